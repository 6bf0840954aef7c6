"""Cline task folders, file by file: which of a task's four files name it (sniff), a file that
is the task's only file, arrays cut short or damaged, and the times of an assistant message's
reasoning and words (the API history holds none: the first UI record that names the message
gives them). Hand-written folders, one array element per line (element i is on line i + 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.evidence import Mark
from forsy.sources import ReadContext
from forsy.sources.cline import ClineSource
from forsy.sources.cline._ledger import TIME
from test_sources_cline_promises import API, META, UI, T, at, iso, read, task, ui_id

FOCUS = "focus_chain_taskid_1769053680000.md"
USER0 = {"role": "user", "content": [{"type": "text", "text": "<task>\ngo\n</task>"}]}


def _sniff(path: Path) -> bool:
    return ClineSource().sniff(path, path.read_bytes()[:8192])


@pytest.mark.parametrize("siblings", [(), (API,), (UI,), (API, UI)])
def test_each_of_the_four_files_names_its_task(tmp_path: Path, siblings: tuple[str, ...]) -> None:
    """The API history and the UI messages name a task by their heads alone; the metadata only
    beside one of them; the focus chain only beside the API history."""
    folder = tmp_path / "t"
    folder.mkdir()
    api = '\ufeff \n[{"role": "user", "content": "x"}]'  # a BOM and blank space before the array
    ui = '[{"ts": 1, "type": "say", "say": "text", "text": "x"}]'
    for name, text in ((API, api), (UI, ui)):
        if name in siblings:
            (folder / name).write_text(text, "utf-8")
    (folder / META).write_text('{"files_in_context": []}', "utf-8")
    (folder / FOCUS).write_text("# Focus chain\n", "utf-8")
    got = {p.name: _sniff(p) for p in folder.iterdir()}
    assert got == {**{n: True for n in siblings}, META: bool(siblings), FOCUS: API in siblings}


def test_look_alike_heads_are_not_clines(tmp_path: Path) -> None:
    cases = {
        API: ['{"role": "user"}', '[{"ts": 1, "say": "text"}]', "[1, 2]"],  # not an array; no role
        UI: ['{"ts": 1, "say": "text"}', '[{"role": "user"}]', '[{"ts": 1, "type": "x"}]',
             '[{"say": "text", "type": "say"}]'],  # not an array; no ts; neither say nor ask; no ts
        META: ['[{"files_in_context": []}]'],  # an array, beside an API history
    }
    for name, heads in cases.items():
        for k, head in enumerate(heads):
            folder = tmp_path / f"{name}-{k}"
            folder.mkdir()
            if name == META:
                (folder / API).write_text("[]", "utf-8")
            (folder / name).write_text(head, "utf-8")
            assert not _sniff(folder / name), (name, head)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "focus_chain_taskid_1.txt").write_text("# Focus chain\n", "utf-8")
    (tmp_path / "x" / API).write_text('[{"role": "user"}]', "utf-8")
    assert not _sniff(tmp_path / "x" / "focus_chain_taskid_1.txt")  # not .md
    (tmp_path / "x" / "other.json").write_text('[{"role": "user"}]', "utf-8")
    assert not _sniff(tmp_path / "x" / "other.json")  # another name


def test_a_metadata_file_alone_is_no_task(tmp_path: Path) -> None:
    folder = task(tmp_path / "t", None, None, '{"files_in_context": []}')
    with pytest.raises(InputError) as err:
        ClineSource().read(folder / META, ReadContext(root=folder))
    assert (err.value.message, err.value.path) == (f"a Cline task file without its {API}", str(folder / META))


def test_any_of_the_files_reads_the_whole_task_as_cline(tmp_path: Path) -> None:
    folder = task(tmp_path / "t", [USER0], [{"ts": T, "type": "say", "say": "text", "text": "go"}], "{}")
    for name in (API, UI, META):
        s = read(folder, name)
        assert (s.source_kind, s.meta.agent, s.session_id) == ("cline", "cline", "t")
        assert sorted((f.path, f.kind, f.abs_path) for f in s.files) == [
            (n, "cline", str((folder / n).resolve())) for n in (API, META, UI)]


def test_a_damaged_api_history_keeps_what_came_before_and_says_what_was_lost(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    good = json.dumps(USER0)
    (folder / API).write_text(f"[\n{good},\n{{\"role\": \"assistant\", oops}}\n]\n", "utf-8")
    s = read(folder)
    start = len(f"[\n{good},\n".encode())
    end = start + len('{"role": "assistant", oops}')  # the damaged message alone: the array ends after it
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings if w.code != "no-ui-messages"] == [
        ("unparsable-element", f"array element is not JSON; skipped (bytes {start}-{end} of the file lost)",
         API, 3)]
    assert (s.quality.records, s.quality.unparsable_records) == (1, 1)
    assert [(e.kind, e.text) for e in s.events] == [("user", "<task>\ngo\n</task>")]  # no UI to cut it from


def test_a_damaged_ui_file_is_counted_as_well(tmp_path: Path) -> None:
    folder = task(tmp_path / "t", [USER0], None)
    rec = json.dumps({"ts": T, "type": "say", "say": "text", "text": "go"})
    (folder / UI).write_text(f"[\n{rec},\n{rec[:20]}\n]\n", "utf-8")
    s = read(folder)
    [w] = s.warnings
    assert (w.code, w.file, w.line) == ("unparsable-element", UI, 3)
    assert (s.quality.records, s.quality.unparsable_records) == (2, 1)  # one API message, one UI record
    # the same UI file alone: read from the UI, its damage still said
    (folder / API).unlink()
    s = read(folder, UI)
    assert [w.code for w in s.warnings] == ["unparsable-element", "no-api-history"]
    assert (s.quality.records, s.quality.unparsable_records) == (1, 1)


def test_reasoning_and_words_take_the_time_of_the_ui_record_naming_their_message(tmp_path: Path) -> None:
    api = [USER0,
           {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"}]},
           {"role": "user", "content": [{"type": "text", "text": "more"}]},
           {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]},
           {"role": "user", "content": [{"type": "text", "text": "again"}]},
           {"role": "assistant", "content": "plain words"}]
    ui = [{"ts": T, "type": "say", "say": "text", "text": "go"},
          {"ts": T + 1000, "type": "say", "say": "checkpoint_created", "conversationHistoryIndex": 0},
          {"ts": T + 2000, "type": "say", "say": "reasoning", "text": "hmm", "conversationHistoryIndex": 0},
          {"ts": T + 3000, "type": "say", "say": "text", "text": "ok", "conversationHistoryIndex": 0},
          {"ts": T + 4000, "type": "say", "say": "text", "text": "zzz", "conversationHistoryIndex": 2},
          {"ts": T + 5000, "type": "say", "say": "text", "text": "plain words", "conversationHistoryIndex": 4}]
    s = read(task(tmp_path / "t", api, ui))
    agent = [(e.kind, e.text, e.ts, at(s, e.ts_from)) for e in s.events if e.actor == "agent"]
    # a checkpoint record is no time of the message; the first other record naming it is
    assert agent == [("reasoning", "hmm", iso(T + 2000), ("u", 2, "/ts")),
                     ("agent_text", "ok", iso(T + 2000), ("u", 2, "/ts")),
                     ("agent_text", "plain words", iso(T + 5000), ("u", 5, "/ts"))]
    # the record whose time a step took is marked a time; the one of a message that made no event
    # (only redacted thinking) is not
    assert [s.ledger.get(ui_id(s, i)) for i in (2, 4, 5)] == [
        Mark("metadata", TIME, "reasoning"), None, Mark("metadata", TIME, "text")]


def test_a_ui_only_task_event_by_event(tmp_path: Path) -> None:
    """Each UI record kind the UI-only reader makes an event of, with its actor, time and
    citation; a command's outputs up to the next call are its one result (the last output's
    time); a command with none and a tool view have no result in the log."""
    view = json.dumps({"tool": "readFile", "path": "a.py"})
    ui = [{"ts": T, "type": "say", "say": "text", "text": "do x"},
          {"ts": T + 1000, "type": "say", "say": "reasoning", "text": "think"},
          {"ts": T + 2000, "type": "say", "say": "text", "text": "I will"},
          {"ts": T + 3000, "type": "ask", "ask": "command", "text": "make testREQ_APP"},
          {"ts": T + 4000, "type": "say", "say": "command_output", "text": "ok 1"},
          {"ts": T + 5000, "type": "ask", "ask": "command_output", "text": "ok 2"},
          {"ts": T + 6000, "type": "say", "say": "tool", "text": view},
          {"ts": T + 7000, "type": "say", "say": "tool", "text": "[1, 2]"},  # not an object: no call
          {"ts": T + 8000, "type": "say", "say": "command", "text": "ls"},
          {"ts": T + 9000, "type": "say", "say": "user_feedback", "text": "and y"},
          {"ts": T + 10000, "type": "ask", "ask": "followup", "text": json.dumps({"question": "which?"})},
          {"ts": T + 11000, "type": "say", "say": "completion_result", "text": "doneHAS_CHANGES"}]
    s = read(task(tmp_path / "t", None, ui), UI)
    got = [(e.kind, e.actor, e.ts, [at(s, r) for r in e.refs], e.tool, e.text if e.kind != "tool_call" else e.args)
           for e in s.events]
    assert got == [
        ("user", "user", iso(T), [("u", 0, "/text")], None, "do x"),
        ("reasoning", "agent", iso(T + 1000), [("u", 1, "/text")], None, "think"),
        ("agent_text", "agent", iso(T + 2000), [("u", 2, "/text")], None, "I will"),
        ("tool_call", "agent", iso(T + 3000), [("u", 3, "/text")], "execute_command", "make test"),
        ("tool_result", "agent", iso(T + 5000), [("u", 4, "/text"), ("u", 5, "/text")], "execute_command",
         "ok 1\nok 2"),
        ("tool_call", "agent", iso(T + 6000), [("u", 6, "/text")], "readFile", {"tool": "readFile", "path": "a.py"}),
        ("tool_call", "agent", iso(T + 8000), [("u", 8, "/text")], "execute_command", "ls"),
        ("user", "user", iso(T + 9000), [("u", 9, "/text")], None, "and y"),
        ("tool_call", "agent", iso(T + 10000), [("u", 10, "/text")], "ask_followup_question", {"question": "which?"}),
        ("tool_call", "agent", iso(T + 11000), [("u", 11, "/text")], "attempt_completion", "done")]
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [(c.info.span, c.info.result_in_log) if c.info else None for c in calls] == [
        ((0, 9), True), (None, False), (None, False), (None, False), ((0, 4), False)]
    assert calls[0].call_id == f"{ui_id(s, 3)}/command"


def test_clines_own_words_are_told_by_their_start_whatever_comes_before_or_after() -> None:
    """_harness on block texts as Cline writes them into user messages (leading newlines and
    spaces included): notices, a command's status, the person's words inside a wrapper (from
    the first opening tag to the last closing one; none when nothing lies between), and the
    failure messages of a result after its `[tool] Result:` line."""
    from forsy.sources.cline._harness import command_failed, harness_kind, result_failed, wrapped_words

    assert harness_kind("\n  [ERROR] You did not use a tool in your previous response! Retry") == "no_tool_used"
    assert command_failed("\n Command failed with exit code 2.\nOutput:") is True
    two = "<feedback>\na\n</feedback>\n<feedback>\nb\n</feedback>"
    assert wrapped_words("\n" + two) == ("feedback", (12, 1 + len(two) - len("\n</feedback>")))
    assert wrapped_words("<feedback>\n\n</feedback>") == ("feedback", (11, 11))  # empty words: still a wrapper
    assert wrapped_words("<feedback>\n</feedback>") is None  # no line for words at all
    head = "[replace_in_file for 'a.py'] Result:"
    failing = [
        f"  {head}\n\nThe tool execution failed with the following error: e",  # blank line after the header
        f"{head}\n  The tool execution failed with the following error: e",
        f"{head}\nsome text\nThis is likely because the SEARCH block content doesn't match exactly",
        f"{head}\nAccess to secret.env is blocked by the .clineignore file settings.",
        f"{head}\nFailed to write to 'a.py': The 'content' parameter was empty.",
    ]
    assert [result_failed(t) for t in failing] == [True] * 5
    # a lone header, and a first line that is no result header (the failure text is not at its start)
    assert result_failed(head) is False
    assert result_failed("[note] no result\nThe tool execution failed with the following error: e") is False
