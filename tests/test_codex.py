"""Codex rollout source: exact events on the hand-written samples, forks, subagents,
compression, hostile input, and every real rollout in ../shared/real_logs/codex checked
against the independent oracle of ../shared/tools/forsy_check.py."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
import zstandard

from forsy.evidence import Event, Session, resolve_pointer
from forsy.payloads import Link, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs" / "codex"
MAIN = SAMPLES / "rollout-2025-11-20T10-00-00-7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"
LEGACY = SAMPLES / "legacy" / "rollout-2025-08-12T09-30-00-5f0b3c1e-2d4a-4b6c-9e8f-0a1b2c3d4e5f.jsonl"
DAY = SAMPLES / "sessions" / "2026" / "05" / "12"
PARENT_ID = "019e2a10-0000-7000-8000-00000000aaaa"
CHILD_ID = "019e2a10-5555-7000-8000-00000000bbbb"
PARENT = DAY / f"rollout-2026-05-12T09-00-00-{PARENT_ID}.jsonl"
CHILD = DAY / f"rollout-2026-05-12T09-00-05-{CHILD_ID}.jsonl"
REAL = ROOT.parent / "shared" / "real_logs" / "codex"
ORACLE = ROOT.parent / "shared" / "tools" / "forsy_check.py"
SRC = CodexSource()

AGENTS_MD = (
    "# AGENTS.md instructions for /home/dev/invoice-tool\n\n<INSTRUCTIONS>\n"
    "Run `make test` before you finish.\nKeep functions short.\n</INSTRUCTIONS>"
)
ENV = (
    "<environment_context>\n  <cwd>/home/dev/invoice-tool</cwd>\n  <approval_policy>on-request</approval_policy>\n"
    "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
    "  <shell>bash</shell>\n</environment_context>"
)
P1 = "The totals in invoices.csv look wrong. Find out why and fix it."
P2 = "Good. Now add a test for the rounding and look up the docs for Decimal quantize."
CWD = "/home/dev/invoice-tool"


def read(path: Path, root: Path | None = None) -> Session:
    sessions = SRC.read(path, ReadContext(root=root or path.parent))
    assert len(sessions) == 1
    return sessions[0]


def kinds(s: Session, kind: str) -> list[Event]:
    return [e for e in s.events if e.kind == kind]


def sig(e: Event) -> tuple[Any, ...]:
    return (e.kind, e.actor, e.text, e.call_id, e.tool, json.dumps(e.args, sort_keys=True), e.is_error)


def stream(path: Path) -> bytes:
    data = path.read_bytes()
    if data.startswith(b"\x28\xb5\x2f\xfd"):
        return zstandard.ZstdDecompressor().stream_reader(data).read()
    return data


def inf(e: Event) -> Any:
    """The event's payload (any class: each test knows the kind it reads)."""
    assert e.info is not None, e
    return e.info


def lnk(e: Event) -> Link:
    return e.link if e.link is not None else Link()


def check_refs(s: Session, root: Path) -> None:
    """Every ref: the bytes at the evidence place hash to its sha256 and, parsed and
    followed by the pointer, give exactly the event's text or args."""
    files = {sf.path: stream(Path(sf.abs_path)) for sf in s.files}
    for e in s.events:
        assert e.refs, e
        for ref in e.refs:
            ev = s.evidence[ref.ev]
            raw = files[ev.source][ev.byte_offset : ev.byte_offset + ev.byte_length]
            assert hashlib.sha256(raw).hexdigest() == ev.sha256
            info = e.info
            assert info is not None
            doc = orjson.loads(raw.decode("utf-8", "replace") if info.lossy_utf8 else raw)
            val = resolve_pointer(doc, ref.pointer)
            if info.inner_pointer is not None:
                val = resolve_pointer(orjson.loads(val), info.inner_pointer)
            if info.span is not None:
                a, b = info.span
                val = val[a:b]
            if isinstance(info, ResultInfo) and info.parts is not None and info.joined is not None:
                val = info.joined.join(resolve_pointer(doc, ref.pointer + p[7:]) for p in info.parts)
            want = e.args if e.kind == "tool_call" else e.text
            if want is not None:
                assert val == want, (e.kind, ref.pointer)


# ------------------------------------------------------------------ envelope sample


@pytest.fixture(scope="module")
def main() -> Session:
    return read(MAIN, SAMPLES)


def test_typed_prompts_verbatim_and_injected_context_elsewhere(main: Session) -> None:
    assert [e.text for e in kinds(main, "user")] == [P1, P2]
    assert all(e.actor == "user" for e in kinds(main, "user"))
    # session_meta.instructions held the AGENTS.md text in these versions: it is the memory
    assert main.meta.memory == "Run `make test` before you finish.\nKeep functions short."
    assert main.meta.extra["memory_ref"]["pointer"] == "/payload/instructions"
    ctx = main.meta.extra["context"]
    assert [(c["kind"], c["text"]) for c in ctx] == [("agents_md", AGENTS_MD), ("environment_context", ENV)]
    (note,) = kinds(main, "note")
    assert inf(note).subtype == "environment_context"
    assert note.text == "<environment_context>\n  <cwd>/home/dev/invoice-tool/tests</cwd>\n</environment_context>"


def test_every_call_with_exact_args_in_order(main: Session) -> None:
    calls = [(e.call_id, e.tool, e.args) for e in kinds(main, "tool_call")]
    assert calls == [
        ("call_read_total", "shell", {"command": ["bash", "-lc", "cat invoice/total.py"], "workdir": CWD}),
        (
            "call_make_test",
            "shell",
            {"command": ["bash", "-lc", "make test"], "workdir": CWD, "timeout_ms": 120000},
        ),
        (
            "call_patch_total",
            "apply_patch",
            "*** Begin Patch\n*** Update File: invoice/total.py\n@@\n"
            "-    return sum(float(x) for x in amounts)\n"
            '+    return sum((Decimal(x) for x in amounts), Decimal("0"))\n*** End Patch\n',
        ),
        ("call_make_test_2", "shell_command", {"command": "make test", "workdir": CWD}),
        ("call_docs", "mcp:docs.lookup", {"symbol": "decimal.Decimal.quantize"}),
        ("call_bad_args", "shell", '{"command":["bash","-lc","pytest -k rounding"'),
        (
            "call_pytest_rounding",
            "shell",
            {"command": ["bash", "-lc", "pytest -k rounding -q"], "workdir": CWD},
        ),
    ]
    assert inf(kinds(main, "tool_call")[5]).args_unparsed is True
    assert any(w.code == "unparsable_arguments" and w.line == 38 for w in main.warnings)


def test_every_output_with_exit_code_and_error_flag(main: Session) -> None:
    results = [(e.call_id, e.text, inf(e).exit_code, inf(e).duration_s, e.is_error)
               for e in kinds(main, "tool_result")]  # fmt: skip
    assert results == [
        ("call_read_total", "def total(amounts):\n    return sum(float(x) for x in amounts)\n",
         0, 0.1, False),
        ("call_make_test",
         "FAILED tests/test_total.py::test_cents - assert 0.30000000000000004 == 0.3\n1 failed, 4 passed\n",
         2, 2.4, True),
        ("call_patch_total", "Success. Updated the following files:\nM invoice/total.py\n", 0, 0.5, False),
        ("call_make_test_2", "Exit code: 0\nWall time: 2.3 seconds\nOutput:\n5 passed\n", 0, 2.3, False),
        ("call_docs", "quantize(exp, rounding=None): round to the exponent of exp.", None, None, False),
        ("call_bad_args", "failed to parse function arguments: EOF while parsing a list at line 1 column 40",
         None, None, True),
    ]  # fmt: skip
    assert inf(kinds(main, "tool_result")[0]).raw is None  # the JSON held nothing more than output


def test_order_groups_and_no_duplicates(main: Session) -> None:
    order = [(e.kind, e.call_id) for e in main.events if e.kind != "note"]
    assert order == [
        ("user", None), ("reasoning", None), ("tool_call", "call_read_total"),
        ("tool_call", "call_make_test"), ("tool_result", "call_read_total"),
        ("tool_result", "call_make_test"), ("agent_text", None), ("tool_call", "call_patch_total"),
        ("tool_result", "call_patch_total"), ("tool_call", "call_make_test_2"),
        ("tool_result", "call_make_test_2"), ("agent_text", None), ("user", None), ("reasoning", None),
        ("tool_call", "call_docs"), ("tool_result", "call_docs"), ("tool_call", "call_bad_args"),
        ("tool_result", "call_bad_args"), ("tool_call", "call_pytest_rounding"),
    ]  # fmt: skip
    ev = main.events
    # the two shell calls and the reasoning before them came in one model response
    assert ev[1].group == ev[2].group == ev[3].group is not None
    assert ev[6].group == ev[7].group != ev[2].group
    assert [e.text for e in kinds(main, "agent_text")] == [
        "The total adds floats, so cents drift. I will switch it to Decimal.",
        "Fixed: totals now use Decimal and all 5 tests pass.",
    ]
    assert [e.text for e in kinds(main, "reasoning")] == [
        "**Reading the code**\n\nThe totals are computed in invoice/total.py; I should read it and run the tests.",
        "**Checking rounding**\n\nFloat addition explains the cent drift.",
    ]
    assert main.quality.extra["event_msg_mirrors"] == 6


def test_quality_counts(main: Session) -> None:
    q = main.quality
    assert q.records == 41
    assert q.missing_results == 1
    assert inf(kinds(main, "tool_call")[-1]).no_result is True
    assert q.encrypted_reasoning == 1
    assert q.unparsable_records == q.unknown_records == q.compactions == 0


def test_session_meta(main: Session) -> None:
    m = main.meta
    assert main.session_id == "7c9e6679-7425-40de-944b-e07fc1f90ae7"
    assert (m.agent, m.agent_version, m.cwd, m.git_branch) == ("codex-cli", "0.58.0", CWD, "fix/totals")
    assert m.models == ["gpt-5.1-codex", "gpt-5.1-codex-mini"]
    assert [(t["model"], t["effort"], t["line"]) for t in m.extra["turns"]] == [
        ("gpt-5.1-codex", "medium", 6),
        ("gpt-5.1-codex-mini", "low", 31),
    ]
    assert m.system_prompt is None and m.system_prompt_ref is None  # not recorded by this version
    assert m.token_usage == {
        "input_tokens": 23800,
        "cached_input_tokens": 16384,
        "output_tokens": 510,
        "reasoning_output_tokens": 160,
        "total_tokens": 24310,
    }
    assert m.extra["git"]["commit_hash"] == "3f1c2a9e5b7d4c6a8e0f1b2c3d4e5f6a7b8c9d0e"
    assert (m.extra["originator"], m.extra["source"], m.extra["model_provider"]) == (
        "codex_cli_rs",
        "cli",
        "openai",
    )
    (sf,) = main.files
    assert sf.path == MAIN.name and sf.kind == "codex"
    assert sf.sha256 == hashlib.sha256(MAIN.read_bytes()).hexdigest()


def test_refs_resolve_on_every_sample() -> None:
    for path in (MAIN, LEGACY, PARENT, CHILD):
        s = read(path, SAMPLES)
        check_refs(s, SAMPLES)
        assert s.warnings == [] or path == MAIN


# ------------------------------------------------------------------ bare format


def test_legacy_bare_format() -> None:
    s = read(LEGACY)
    assert s.session_id == "5f0b3c1e-2d4a-4b6c-9e8f-0a1b2c3d4e5f"
    assert [e.text for e in kinds(s, "user")] == [
        "Why does `make lint` fail on a clean checkout?",
        "Then just run it with --fix.",
    ]
    assert [(e.call_id, e.tool, e.args) for e in kinds(s, "tool_call")] == [
        ("call_lint", "local_shell", {"type": "exec", "command": ["bash", "-lc", "make lint"],
                                      "timeout_ms": 60000, "working_directory": "/home/dev/lint-demo",
                                      "env": None, "user": None}),
        ("call_fix", "shell", {"command": ["bash", "-lc", "ruff check --fix src"]}),
    ]  # fmt: skip
    assert [(e.call_id, inf(e).exit_code, e.is_error) for e in kinds(s, "tool_result")] == [
        ("call_lint", 2, True),
        ("call_fix", 0, False),
    ]
    assert all(e.ts is None for e in s.events)
    m = s.meta
    assert m.system_prompt is None and m.models == [] and m.token_usage == {}
    assert m.memory == "<user_instructions>\nPrefer small commits.\n</user_instructions>"
    assert m.cwd == "/home/dev/lint-demo" and m.extra["cwd_from"]["pointer"] == "/content/0/text"
    assert m.git_branch == "main"
    assert s.quality.records == 15 and s.quality.unknown_records == 0


# ------------------------------------------------------------------ subagent sample


@pytest.fixture(scope="module")
def parent() -> Session:
    return read(PARENT, SAMPLES)


def test_parent_reads_its_subagent_and_links_the_spawning_call(parent: Session) -> None:
    assert [f.path for f in parent.files] == [
        str(PARENT.relative_to(SAMPLES)),
        str(CHILD.relative_to(SAMPLES)),
    ]
    sub = [e for e in parent.events if e.actor == f"subagent:{CHILD_ID}"]
    assert [e.kind for e in sub] == ["reasoning", "tool_call", "tool_result", "agent_text"]
    first_child = next(e for e in parent.events if lnk(e).parent_thread_id == PARENT_ID)
    assert first_child.kind == "note" and inf(first_child).subtype == "subagent_input"
    assert first_child.text == "Review the tests for uses of `calc`."
    assert first_child.actor == "agent"  # the parent agent wrote it, not a person
    assert lnk(first_child).parent_call_id == "call_spawn"
    assert lnk(first_child).link_rule == "collab_agent_spawn_end"
    first_own = next(e for e in parent.events if e.actor == f"subagent:{CHILD_ID}")
    assert first_own.kind == "reasoning" and lnk(first_own).parent_call_id == "call_spawn"
    (info,) = parent.meta.extra["subagents"]
    assert (info["id"], info["parent_call_id"], info["nickname"], info["role"]) == (
        CHILD_ID, "call_spawn", "Ada", "explorer",
    )  # fmt: skip
    assert parent.meta.models == ["gpt-5.5", "gpt-5.5-mini"]
    # merged by time: the child's work sits between the spawn and the wait
    order = [e.call_id for e in parent.events if e.kind == "tool_call"]
    assert order.index("call_child_grep") == order.index("call_spawn") + 1
    assert order.index("call_wait") == order.index("call_child_grep") + 1


def test_spawn_link_from_the_spawn_agent_output_alone(tmp_path: Path) -> None:
    lines = [ln for ln in PARENT.read_bytes().splitlines(keepends=True) if b"collab_agent_spawn_end" not in ln]
    (tmp_path / PARENT.name).write_bytes(b"".join(lines))
    (tmp_path / CHILD.name).write_bytes(CHILD.read_bytes())
    s = read(tmp_path / PARENT.name)
    (info,) = s.meta.extra["subagents"]
    assert (info["parent_call_id"], info["link_rule"]) == ("call_spawn", "spawn_agent_output")
    # without any record of the spawn, nothing is linked by guessing
    lines = [ln for ln in lines if b'"call_id":"call_spawn","output"' not in ln]
    (tmp_path / PARENT.name).write_bytes(b"".join(lines))
    s = read(tmp_path / PARENT.name)
    (info,) = s.meta.extra["subagents"]
    assert info["parent_call_id"] is None
    assert not any(lnk(e).parent_call_id is not None for e in s.events)
    assert s.quality.missing_results == 1  # the spawn call, now without its output


def test_parent_prompts_interrupt_and_compaction(parent: Session) -> None:
    users = kinds(parent, "user")
    assert [e.text for e in users] == [
        "Rename `calc` to `compute_total` and have a subagent review the tests.",
        "Apply it again with the right context.",
        "Use sed instead.",
    ]
    assert inf(users[0]).wrapped == "ide_context" and users[0].refs[0].pointer == "/payload/content/0/text"
    (intr,) = kinds(parent, "interrupt")
    assert intr.actor == "user" and inf(intr).reason == "interrupted"
    (comp,) = kinds(parent, "compaction")
    assert comp.text is not None and comp.text.startswith("Summary of the work so far:")
    assert parent.quality.compactions == 1
    assert parent.meta.system_prompt == "You are Codex, a coding agent based on GPT-5."
    assert parent.meta.system_prompt_ref is not None
    assert parent.meta.system_prompt_ref.pointer == "/payload/base_instructions/text"
    assert (
        parent.meta.memory
        == "# AGENTS.md instructions for /home/dev/shop\n\n<INSTRUCTIONS>\nUse pytest.\n</INSTRUCTIONS>"
    )
    assert [c["kind"] for c in parent.meta.extra["context"]] == [
        "permissions_instructions", "agents_md", "environment_context",
    ]  # fmt: skip


def test_unified_exec_mcp_namespace_and_failed_patch(parent: Session) -> None:
    res = {e.call_id: e for e in kinds(parent, "tool_result")}
    grep = res["call_grep"]
    assert inf(grep).exec_session_id == 4100 and inf(grep).exit_code == 2 and grep.is_error is True
    assert inf(grep).exit_code_from.pointer == "/payload/exit_code"
    assert inf(res["call_poll"]).exec_call_id == "call_grep" and inf(res["call_poll"]).exit_code == 2
    assert res["call_graph"].text == "shop/cart.py:12 calc"
    assert res["call_rename"].is_error is True
    assert res["call_sed"].is_error is False
    tools = {e.call_id: e.tool for e in kinds(parent, "tool_call")}
    assert tools["call_graph"] == "mcp:codebase_memory.search_graph"
    assert parent.quality.missing_results == 0


def test_discover_reads_subagents_with_their_parent() -> None:
    # and the headless run's stream beside them (a session of its own: `codex exec --json`)
    assert SRC.discover(SAMPLES) == sorted([MAIN, LEGACY, PARENT, SAMPLES / "exec-json-run.jsonl"])
    assert SRC.discover(CHILD) == [CHILD]
    assert SRC.discover(SAMPLES / "README.md") == []


def test_subagent_file_read_alone() -> None:
    s = read(CHILD, SAMPLES)
    assert s.session_id == CHILD_ID
    assert kinds(s, "user") == []
    assert {e.actor for e in s.events if e.kind != "note"} == {f"subagent:{CHILD_ID}"}
    assert s.meta.extra["parent_thread_id"] == PARENT_ID and s.meta.extra["subagent"] == "thread_spawn"
    assert inf(s.events[0]).subtype == "subagent_input" and lnk(s.events[0]).parent_call_id is None


def test_sniff() -> None:
    for path in (MAIN, LEGACY, PARENT):
        assert SRC.sniff(path, path.read_bytes()[:65536])
    assert not SRC.sniff(SAMPLES / "README.md", (SAMPLES / "README.md").read_bytes())
    claude = b'{"type":"user","sessionId":"x","message":{"role":"user","content":"hi"}}\n'
    assert not SRC.sniff(Path("x.jsonl"), claude)


# ------------------------------------------------------------------ forks, rollback, zstd


def env(ts: str, typ: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": ts, "type": typ, "payload": payload}


def msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


PID, FID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"


def parent_records() -> list[dict[str, Any]]:
    meta = {"id": PID, "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w", "cli_version": "0.90.0"}
    call = {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": "c1"}
    return [
        env("2026-03-01T10:00:00.000Z", "session_meta", meta),
        env("2026-03-01T10:00:01.000Z", "turn_context", {"cwd": "/w", "model": "m1"}),
        env("2026-03-01T10:00:02.000Z", "response_item", msg("user", "first")),
        env("2026-03-01T10:00:02.001Z", "event_msg", {"type": "user_message", "message": "first"}),
        env("2026-03-01T10:00:03.000Z", "response_item", call),
        env(
            "2026-03-01T10:00:04.000Z",
            "response_item",
            {"type": "function_call_output", "call_id": "c1", "output": "a"},
        ),
        env("2026-03-01T10:00:05.000Z", "response_item", msg("assistant", "done one")),
        env("2026-03-01T10:00:06.000Z", "response_item", msg("user", "second")),
        env("2026-03-01T10:00:06.001Z", "event_msg", {"type": "user_message", "message": "second"}),
        env("2026-03-01T10:00:07.000Z", "response_item", msg("assistant", "done two")),
    ]


def fork_records(copy: list[dict[str, Any]], drop: str | None = None) -> list[dict[str, Any]]:
    own = {"id": FID, "forked_from_id": PID, "timestamp": "2026-03-01T11:00:00.000Z", "cwd": "/w"}
    # Codex writes the copy again with new line timestamps; event_msg may be left out.
    copied = [
        dict(r, timestamp="2026-03-01T11:00:00.500Z")
        for r in copy
        if drop is None or r["payload"].get("message") != drop
    ]
    return [
        env("2026-03-01T11:00:00.000Z", "session_meta", own),
        *copied,
        env("2026-03-01T11:00:10.000Z", "turn_context", {"cwd": "/w", "model": "m1"}),
        env("2026-03-01T11:00:11.000Z", "response_item", msg("user", "second, differently")),
        env(
            "2026-03-01T11:00:11.001Z",
            "event_msg",
            {"type": "user_message", "message": "second, differently"},
        ),
        env("2026-03-01T11:00:12.000Z", "response_item", msg("assistant", "done differently")),
    ]


def test_fork_skips_the_copied_history_when_the_parent_is_found(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "03" / "01"
    write(day / f"rollout-2026-03-01T10-00-00-{PID}.jsonl", parent_records())
    child = write(day / f"rollout-2026-03-01T11-00-00-{FID}.jsonl", fork_records(parent_records()[:7], "first"))
    s = read(child, tmp_path)
    assert [(e.kind, e.text) for e in s.events] == [
        ("user", "second, differently"),
        ("agent_text", "done differently"),
    ]
    assert s.meta.extra["fork"] == {
        "parent_id": PID, "rule": "parent_file", "copied": 6,
        "parent_file": f"rollout-2026-03-01T10-00-00-{PID}.jsonl",
    }  # fmt: skip
    assert s.session_id == FID and [f.path for f in s.files] == [str(child.relative_to(tmp_path))]


def test_fork_without_its_parent_keeps_everything_and_says_so(tmp_path: Path) -> None:
    child = write(tmp_path / f"rollout-2026-03-01T11-00-00-{FID}.jsonl", fork_records(parent_records()[:7]))
    s = read(child)
    assert [e.text for e in kinds(s, "user")] == ["first", "second, differently"]
    (w,) = [w for w in s.warnings if w.code == "fork_prefix_unresolved"]
    assert w.line == 2 and s.quality.extra["fork_prefix_unresolved"] == 1


def test_fork_reference_marks_where_the_thread_begins(tmp_path: Path) -> None:
    recs = parent_records()
    ref = {"rollout_path": f"/x/rollout-{PID}.jsonl", "thread_id": PID, "nth_user_message": 1}
    own = fork_records([recs[0]])
    own.insert(2, env("2026-03-01T11:00:00.600Z", "fork_reference", ref))
    s = read(write(tmp_path / f"rollout-x-{FID}.jsonl", own))
    assert [(e.kind, e.text) for e in s.events] == [
        ("note", None), ("user", "second, differently"), ("agent_text", "done differently"),
    ]  # fmt: skip
    assert inf(s.events[0]).subtype == "fork_reference" and inf(s.events[0]).raw["nth_user_message"] == 1


def test_forked_subagent_is_linked_by_the_spawn_output_codex_copies_into_it(tmp_path: Path) -> None:
    cid = "33333333-3333-4333-8333-333333333333"
    spawn = {"type": "function_call", "name": "spawn_agent", "call_id": "call_fs",
             "arguments": '{"message":"look","fork_context":true}'}  # fmt: skip
    parent = [
        *parent_records()[:4],
        env("2026-03-01T10:00:03.000Z", "response_item", spawn),
        env("2026-03-01T10:00:09.000Z", "response_item",
            {"type": "function_call_output", "call_id": "call_fs", "output": "{}"}),
    ]  # fmt: skip
    source = {"subagent": {"thread_spawn": {"parent_thread_id": PID, "depth": 1}}}
    own = {"id": cid, "forked_from_id": PID, "timestamp": "2026-03-01T10:00:03.500Z", "source": source}
    out = "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\na…12 tokens truncated…"
    child = [
        env("2026-03-01T10:00:03.500Z", "session_meta", own),
        *[dict(r, timestamp="2026-03-01T10:00:03.600Z") for r in parent[:5]],
        env("2026-03-01T10:00:03.700Z", "response_item",
            {"type": "function_call_output", "call_id": "call_fs", "output": "You are the forked agent."}),
        env("2026-03-01T10:00:04.000Z", "response_item", msg("user", "look")),
        env("2026-03-01T10:00:05.000Z", "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"ls"}', "call_id": "c2"}),
        env("2026-03-01T10:00:06.000Z", "response_item",
            {"type": "function_call_output", "call_id": "c2", "output": out}),
        env("2026-03-01T10:00:07.000Z", "response_item", msg("assistant", "found it")),
    ]  # fmt: skip
    p = write(tmp_path / f"rollout-a-{PID}.jsonl", parent)
    write(tmp_path / f"rollout-b-{cid}.jsonl", child)
    s = read(p)
    sub = [e for e in s.events if e.actor == f"subagent:{cid}" or e.kind == "note"]
    assert [(e.kind, e.text) for e in sub] == [
        ("note", "You are the forked agent."), ("note", "look"), ("tool_call", None), ("tool_result", out),
        ("agent_text", "found it"),
    ]  # fmt: skip
    assert inf(sub[0]).subtype == "forked_spawn_output" and lnk(sub[0]).parent_call_id == "call_fs"
    assert lnk(sub[0]).link_rule == "forked_spawn_output" and lnk(sub[2]).parent_call_id == "call_fs"
    assert s.meta.extra["subagents"][0]["parent_call_id"] == "call_fs"
    assert [e.text for e in kinds(s, "user")] == ["first"]  # the child's copy of it was skipped
    assert inf(sub[3]).truncated_by_codex is True and s.quality.truncated_outputs == 1
    assert s.quality.missing_results == 0


def test_a_forked_agents_copy_without_the_parents_usage_records_is_all_set_aside(tmp_path: Path) -> None:
    """The parent's file holds a usage record after each model response; the forked agent's
    copy leaves them out and marks inherited messages. The parent's call made before one was
    read as the subagent's own (a second spawn_agent step, the parent's output as its marker)."""
    cid = "44444444-4444-4444-8444-444444444444"
    usage = {"usage": {"input_tokens": 90, "output_tokens": 5}}
    spawn = {"type": "function_call", "name": "spawn_agent", "call_id": "call_fs",
             "arguments": '{"message":"fix","fork_context":true}'}  # fmt: skip
    parent = [
        *parent_records()[:5],
        env("2026-03-01T10:00:03.500Z", "token_usage_record", usage),
        env("2026-03-01T10:00:04.000Z", "response_item", {"type": "function_call_output", "call_id": "c1",
                                                          "output": "a"}),
        env("2026-03-01T10:00:05.000Z", "response_item", msg("assistant", "delegating")),
        env("2026-03-01T10:00:05.500Z", "token_usage_record", usage),
        env("2026-03-01T10:00:06.000Z", "response_item", spawn),
        env("2026-03-01T10:00:09.000Z", "response_item",
            {"type": "function_call_output", "call_id": "call_fs", "output": "{}"}),
    ]  # fmt: skip
    own = {"id": cid, "forked_from_id": PID, "timestamp": "2026-03-01T10:00:06.500Z",
           "source": {"subagent": {"thread_spawn": {"parent_thread_id": PID, "depth": 1}}}}
    copy = [dict(r, timestamp="2026-03-01T10:00:06.600Z") for r in parent[:10] if r["type"] != "token_usage_record"]
    for r in copy:
        if r["type"] == "response_item" and r["payload"].get("type") == "message":
            r["metadata"] = {"inherited_user_message": True}
    child = [
        env("2026-03-01T10:00:06.500Z", "session_meta", own), *copy,
        env("2026-03-01T10:00:06.700Z", "response_item",
            {"type": "function_call_output", "call_id": "call_fs", "output": "You are the forked agent."}),
        env("2026-03-01T10:00:07.000Z", "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"ls"}', "call_id": "c2"}),
        env("2026-03-01T10:00:08.000Z", "response_item",
            {"type": "function_call_output", "call_id": "c2", "output": "b"}),
    ]  # fmt: skip
    p = write(tmp_path / f"rollout-a-{PID}.jsonl", parent)
    write(tmp_path / f"rollout-b-{cid}.jsonl", child)
    s = read(p)
    sub = [(e.kind, e.text) for e in s.events if e.actor == f"subagent:{cid}"]
    assert sub == [("tool_call", None), ("tool_result", "b")]
    [marker] = [e for e in s.events if e.kind == "note" and inf(e).subtype == "forked_spawn_output"]
    assert marker.text == "You are the forked agent." and lnk(marker).parent_call_id == "call_fs"
    assert [e.call_id for e in s.events if e.kind == "tool_call"] == ["c1", "call_fs", "c2"]


def test_event_msg_stands_in_when_its_response_item_is_absent(tmp_path: Path) -> None:
    meta = env("2026-03-01T10:00:00.000Z", "session_meta", {"id": PID})
    recs = [
        meta,
        env("2026-03-01T10:00:01.000Z", "event_msg", {"type": "user_message", "message": "only here"}),
        env("2026-03-01T10:00:02.000Z", "event_msg", {"type": "agent_reasoning", "text": "thinking"}),
        env("2026-03-01T10:00:03.000Z", "event_msg", {"type": "agent_message", "message": "answer"}),
        env(
            "2026-03-01T10:00:04.000Z",
            "response_item",
            msg("user", "<user_shell_command>\nls\n</user_shell_command>"),
        ),
        env(
            "2026-03-01T10:00:05.000Z",
            "response_item",
            msg("user", "<turn_aborted>\nstopped\n</turn_aborted>"),
        ),
        env("2026-03-01T10:00:06.000Z", "event_msg", {"type": "context_compacted"}),
        env("2026-03-01T10:00:07.000Z", "response_item", msg("assistant", "after")),
        env("2026-03-01T10:00:08.000Z", "response_item", {"type": "compaction", "encrypted_content": "gAAAA"}),
    ]
    path = write(tmp_path / "r.jsonl", recs)
    s = read(path)
    assert [(e.kind, e.text, e.refs[0].pointer) for e in s.events] == [
        ("user", "only here", "/payload/message"),
        ("reasoning", "thinking", "/payload/text"),
        ("agent_text", "answer", "/payload/message"),
        ("note", "<user_shell_command>\nls\n</user_shell_command>", "/payload/content/0/text"),
        ("interrupt", "<turn_aborted>\nstopped\n</turn_aborted>", "/payload/content/0/text"),
        ("compaction", None, "/payload"),
        ("agent_text", "after", "/payload/content/0/text"),
        ("compaction", None, "/payload"),
    ]
    assert inf(s.events[-1]).encrypted is True and s.quality.compactions == 2
    assert s.events[1].group == s.events[2].group
    check_refs(s, tmp_path)


def test_rollback_marks_the_dropped_turn_abandoned(tmp_path: Path) -> None:
    recs = [
        *parent_records(),
        env("2026-03-01T10:00:09.000Z", "event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
    ]
    s = read(write(tmp_path / f"rollout-{PID}.jsonl", recs))
    assert [(e.text, e.abandoned) for e in s.events if e.kind in ("user", "agent_text")] == [
        ("first", False), ("done one", False), ("second", True), ("done two", True),
    ]  # fmt: skip
    assert s.quality.abandoned_events == 2


def test_zstd_rollout_reads_like_the_plain_one(tmp_path: Path) -> None:
    packed = zstandard.ZstdCompressor().compress(MAIN.read_bytes())
    path = tmp_path / (MAIN.name + ".zst")
    path.write_bytes(packed)
    s = read(path, tmp_path)
    assert [sig(e) for e in s.events] == [sig(e) for e in read(MAIN).events]
    assert s.files[0].sha256 == hashlib.sha256(packed).hexdigest() and s.files[0].bytes == len(packed)
    assert s.meta.extra["decompressed"] is True
    check_refs(s, tmp_path)
    assert SRC.discover(tmp_path) == [path]


# ------------------------------------------------------------------ hostile input


def damaged(tmp_path: Path, src: Path, how: str) -> Path:
    lines = src.read_bytes().split(b"\n")[:-1]
    mid = len(lines) // 2
    if how == "truncated":
        lines[-1] = lines[-1][: len(lines[-1]) // 2]
        data = b"\n".join(lines)
    elif how == "garbage":
        data = b"\n".join([*lines[:mid], b"{not json at all", *lines[mid:]]) + b"\n"
    elif how == "nul":
        data = b"\n".join([*lines[:mid], b"\x00" * 32, *lines[mid:]]) + b"\n" + b"\x00" * 64
    else:  # invalid UTF-8 inside the last string value of the middle line
        at = lines[mid].rindex(b':"') + 2
        lines[mid] = lines[mid][:at] + b"\xff" + lines[mid][at:]
        data = b"\n".join(lines) + b"\n"
    out = tmp_path / f"{how}-{src.name}"
    out.write_bytes(data)
    return out


def check_damage(tmp_path: Path, src: Path) -> None:
    whole = read(src)
    base = [sig(e) for e in whole.events]
    for how in ("truncated", "garbage", "nul", "utf8"):
        s = read(damaged(tmp_path, src, how))
        got = [sig(e) for e in s.events]
        codes = {w.code for w in s.warnings}
        if how == "truncated":
            assert "truncated_last_line" in codes and s.quality.unparsable_records == 1
            assert got == base[: len(got)] and len(got) >= len(base) - 1
        elif how in ("garbage", "nul"):
            assert got == base
            assert s.quality.unparsable_records == (1 if how == "garbage" else 2)
            assert "unparsable" in codes
        else:
            assert len(got) == len(base) and s.quality.extra["invalid_utf8_records"] == 1
            assert "invalid_utf8" in codes
        assert s.quality.records == whole.quality.records + (how in ("garbage", "nul")) + (how == "nul")


def test_hostile_variants_of_the_samples(tmp_path: Path) -> None:
    for path in (MAIN, LEGACY, CHILD):
        check_damage(tmp_path, path)


def test_garbage_line_is_reported_at_its_line(tmp_path: Path) -> None:
    s = read(damaged(tmp_path, MAIN, "garbage"))
    (w,) = [w for w in s.warnings if w.code == "unparsable"]
    assert w.line == 21 and w.file == f"garbage-{MAIN.name}"


def test_invalid_utf8_keeps_the_record(tmp_path: Path) -> None:
    path = tmp_path / MAIN.name
    data = MAIN.read_bytes().replace(b"cents drift. I will", b"cents drift.\xff I will", 2)
    path.write_bytes(data)
    s = read(path)
    texts = [e.text for e in kinds(s, "agent_text")]
    assert texts[0] == "The total adds floats, so cents drift.\ufffd I will switch it to Decimal."
    assert inf(kinds(s, "agent_text")[0]).lossy_utf8 is True
    check_refs(s, tmp_path)


def test_unknown_types_warn_once_and_are_skipped(tmp_path: Path) -> None:
    new = env("t", "event_msg", {"type": "brand_new"})
    recs = [*parent_records(), new, new, env("t", "future_kind", {"x": 1}), [1, 2]]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    s = read(path)
    assert s.quality.unknown_records == 4
    assert [w.code for w in s.warnings].count("unknown:event_msg:brand_new") == 1
    assert len(kinds(s, "user")) == 2


# ------------------------------------------------------------------ real logs

REAL_LOGS = sorted(REAL.rglob("*.jsonl")) if REAL.is_dir() else []


def oracle() -> ModuleType:
    spec = importlib.util.spec_from_file_location("forsy_check", ORACLE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.real_logs
@pytest.mark.skipif(not REAL_LOGS or not ORACLE.exists(), reason="../shared/real_logs/codex is absent")
@pytest.mark.parametrize("path", REAL_LOGS, ids=lambda p: p.name[:40])
def test_real_rollout_against_the_oracle(path: Path, tmp_path: Path) -> None:
    fc = oracle()
    s = read(path, REAL)
    records = fc.load_records(path)
    users, calls, results = fc.codex_truth(records)
    # Logs sanitized by their authors write one text as [REDACTED_TEXT len=N sha=X] in the
    # response item and [REDACTED_MESSAGE len=N sha=X] in the event_msg the oracle now takes
    # the typed prompts from: the oracle's own comparison (`norm`) identifies a sanitized text
    # by its length and hash, and so does this test.
    def same(t: str) -> str:
        return str(fc.SANITIZED.sub(r"redacted:\1", t))

    users = [same(u) for u in users]
    # Prompts: ours are the oracle's in order; the oracle's others are injected context we kept.
    ours = [same(e.text or "") for e in kinds(s, "user")]
    assert ours == [u for u in users if u in ours]
    kept = {same(c["text"]) for c in s.meta.extra.get("context", [])} | {same(e.text or "") for e in kinds(s, "note")}
    assert all(u in ours or u in kept for u in users)
    typed = any(d.get("type") == "event_msg" and (d.get("payload") or {}).get("type") == "user_message"
                for d in records)
    if typed or not any(u.startswith("redacted:") for u in users):
        # The oracle's prompts are what Codex logged as typed (or no text is hidden): all of them.
        assert ours == users
    # Calls: same ids, names and key arguments, same order (web searches carry no id there).
    mine = [e for e in kinds(s, "tool_call") if e.tool != "web_search"]
    rename = {"local_shell_call": "local_shell"}
    assert [(c[0], rename.get(c[1], c[1]), c[2]) for c in calls] == [
        (e.call_id, e.tool, fc.key_arg(e.args)) for e in mine
    ]
    out = {e.call_id: e for e in kinds(s, "tool_result")}
    for cid, res in results.items():
        assert fc.contained(res[:300], out[cid].text or ""), cid
    assert s.quality.missing_results == sum(1 for c in calls if c[0] not in results)
    check_refs(s, REAL)
    check_damage(tmp_path, path)


@pytest.mark.real_logs
@pytest.mark.skipif(not REAL_LOGS, reason="../shared/real_logs/codex is absent")
def test_real_rollouts_are_all_discovered() -> None:
    assert SRC.discover(REAL) == REAL_LOGS
