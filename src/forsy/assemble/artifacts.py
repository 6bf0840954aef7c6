"""Artifacts (`static_output.artifacts`) from the steps that wrote files, by stated rules.

* A-write: a successful `Write` → the file was created (or overwritten); content is the
  exact `content` argument, hash its sha256.
* A-edit: a successful `Edit`/`MultiEdit` → modified; diff from the tool's structuredPatch.
* A-patch: a Codex `apply_patch` → the files its patch names; diff is that file's section.
* A-commit: a git commit matched to a step (or a human commit) → each file with its diff.
* A-persisted: a tool output Claude Code saved to `tool-results/` → an observed artifact,
  written under `artifacts/tool-results/` because the model only saw a preview.

One artifact per path: related_steps lists every step that touched it; the diff holds each
step's change in order; content is kept only when the last change wrote the whole file.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..evidence import Event
from ..payloads import CommitInfo, Persisted
from ..rules.segment import Draft
from ..tools import PATH_ARGS, ToolSpec, spec

PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)


@dataclass
class ArtifactDraft:
    path: str
    type: str
    role: str
    related_steps: list[int] = field(default_factory=list)
    content: str | None = None
    diffs: list[str] = field(default_factory=list)
    state: str | None = None
    description: str | None = None
    rules: list[str] = field(default_factory=list)
    file: tuple[str, str] | None = None  # (relative path under the trace folder, text) to write


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_HUNK_NUMBERS = ("oldStart", "oldLines", "newStart", "newLines")


def _patch_diff(hunks: Any) -> str | None:
    """The unified diff the tool's structuredPatch states; None unless every hunk has its four
    numbers and its lines as text (a diff with a hunk left out or made up would mislead)."""
    if not isinstance(hunks, list) or not hunks:
        return None
    out: list[str] = []
    for h in hunks:
        if not (isinstance(h, dict) and all(type(h.get(k)) is int for k in _HUNK_NUMBERS)
                and isinstance(h.get("lines"), list) and all(isinstance(x, str) for x in h["lines"])):
            return None
        out.append(f"@@ -{h['oldStart']},{h['oldLines']} +{h['newStart']},{h['newLines']} @@")
        out.extend(h["lines"])
    return "\n".join(out)


def collect(drafts: list[Draft]) -> list[ArtifactDraft]:
    arts: dict[str, ArtifactDraft] = {}
    for i, d in enumerate(drafts, start=1):
        if d.result is not None and d.result.persisted is not None:  # what a failed call printed, too
            _persisted(arts, i, d.result.persisted)
        if d.values.get("success") is not True and not d.commits:
            continue  # a file is changed only by a call that worked
        tool = spec(d.values.get("tool"))
        if tool is not None and tool.edit_form == "file":
            _file_edit(arts, i, d, tool)
        elif tool is not None and tool.edit_form == "patch":
            _apply_patch(arts, i, d)
        elif tool is not None and tool.edit_form == "changes":
            _changes(arts, i, d)
        for c in d.commits:
            _commit(arts, i, c)
    return list(arts.values())


def _get(arts: dict[str, ArtifactDraft], path: str, typ: str, role: str) -> ArtifactDraft:
    a = arts.get(path)
    if a is None:
        a = arts[path] = ArtifactDraft(path, typ, role)
    return a


def _file_edit(arts: dict[str, ArtifactDraft], step: int, d: Draft, tool: ToolSpec) -> None:
    args = d.tool_args if isinstance(d.tool_args, dict) else {}
    rich = d.rich if isinstance(d.rich, dict) else {}
    path = next((args[k] for k in PATH_ARGS if isinstance(args.get(k), str)), rich.get("filePath"))
    if not isinstance(path, str):
        return
    whole = tool.operation == "write"  # Write gives the whole file; Edit and the others a change
    created = whole and (rich.get("type") == "create" or rich.get("had_original") is False)
    a = _get(arts, path, "created" if created else "modified", "deliverable")
    a.related_steps.append(step)
    if whole and isinstance(args.get("content"), str):
        a.content = args["content"]
        a.rules.append("A-write")
        a.diffs.append(f"step {step}: whole file written ({len(a.content)} characters)")
    else:
        a.content = None  # an edit after a write: the full content is no longer known
        # the writer's patch of what was written (Claude Code), else the change the call asked for as
        # its arguments give it (Cline's SEARCH/REPLACE blocks in `diff`)
        diff = _patch_diff(rich.get("structuredPatch")) or (args["diff"] if isinstance(args.get("diff"), str) else None)
        a.diffs.append(f"step {step}:\n{diff}" if diff else f"step {step}: edited (no patch in the log)")
        a.rules.append("A-edit")
    a.state = f"Last changed in step {step} by {tool.name}."


def _apply_patch(arts: dict[str, ArtifactDraft], step: int, d: Draft) -> None:
    patch = d.tool_args if isinstance(d.tool_args, str) else None
    if patch is None and isinstance(d.tool_args, dict):
        # Codex's `input`, others' `patch`, OpenCode's `patchText`
        cand = d.tool_args.get("input") or d.tool_args.get("patch") or d.tool_args.get("patchText")
        patch = cand if isinstance(cand, str) else None
    if not patch:
        return
    matches = list(PATCH_FILE.finditer(patch))
    for k, m in enumerate(matches):
        end = matches[k + 1].start() if k + 1 < len(matches) else len(patch)
        section = patch[m.start():end].rstrip("\n").removesuffix("*** End Patch").rstrip("\n")
        kind = {"Add": "created", "Update": "modified", "Delete": "deleted"}[m.group(1)]
        a = _get(arts, m.group(2).strip(), kind, "deliverable")
        if kind == "deleted":
            a.type = "deleted"
        a.related_steps.append(step)
        a.content = None
        a.diffs.append(f"step {step}:\n{section}")
        a.rules.append("A-patch")
        a.state = f"Last changed in step {step} by apply_patch."


def _changes(arts: dict[str, ArtifactDraft], step: int, d: Draft) -> None:
    """A list of the files a call changed, each `{path, kind[, diff]}` (Codex exec's file_change:
    kind add, update or delete; the diff when the writer gives one)."""
    for c in d.tool_args if isinstance(d.tool_args, list) else []:
        if not isinstance(c, dict) or not isinstance(c.get("path"), str):
            continue
        kind = {"add": "created", "delete": "deleted"}.get(str(c.get("kind")), "modified")
        a = _get(arts, c["path"], kind, "deliverable")
        a.type = kind if kind == "deleted" else a.type
        a.related_steps.append(step)
        a.content = None
        diff = c.get("diff")
        a.diffs.append(f"step {step}:\n{diff}" if isinstance(diff, str) and diff else
                       f"step {step}: {c.get('kind') or 'changed'} (no diff in the log)")
        a.rules.append("A-changes")
        a.state = f"Last changed in step {step} by {d.values.get('tool')}."


def _commit(arts: dict[str, ArtifactDraft], step: int, commit: Event) -> None:
    if not isinstance(commit.info, CommitInfo):
        return
    sha = str(commit.info.sha)[:12]
    for f in commit.info.files:
        path = f.get("path")
        if not isinstance(path, str):
            continue
        status = str(f.get("status", "M"))[:1]
        kind = {"A": "created", "D": "deleted"}.get(status, "modified")
        a = _get(arts, path, kind, "deliverable")
        if step not in a.related_steps:
            a.related_steps.append(step)
        a.diffs.append(f"commit {sha} (step {step}):\n{f.get('diff') or ''}".rstrip())
        a.rules.append("A-commit")
        a.state = f"Committed in {sha} (step {step})."


def _persisted(arts: dict[str, ArtifactDraft], step: int, p: Persisted) -> None:
    name = p.source.rsplit("/", 1)[-1] or f"step-{step}.txt"
    rel = f"artifacts/tool-results/{name}"
    a = _get(arts, rel, "observed", "evidence")
    a.related_steps.append(step)
    a.content = None
    a.file = (rel, p.text)
    a.description = f"Full output of step {step}; the model saw only a preview."
    a.state = f"Saved by {p.by} to {p.folder}/{name}; copied here."
    a.rules.append("A-persisted")


def to_dict(a: ArtifactDraft, sensitivity: str) -> dict[str, Any]:
    content = a.content
    text_for_hash = content if content is not None else (a.file[1] if a.file else None)
    return {
        "path": a.path,
        "type": a.type,
        "role": a.role,
        "related_steps": sorted(set(a.related_steps)) or None,
        "description": a.description or f"File touched by {len(set(a.related_steps))} step(s).",
        "state": a.state,
        "hash": sha256_text(text_for_hash) if text_for_hash is not None else None,
        "content": content,
        "diff": "\n\n".join(a.diffs) if a.diffs and any("\n" in x for x in a.diffs) else None,
        "release_sensitivity": sensitivity,
    }
