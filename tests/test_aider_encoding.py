"""A chat history that is not UTF-8. aider writes it in the encoding its `--encoding` option
names (aider/io.py `append_chat_history`: `open(..., encoding=self.encoding, errors="ignore")`),
so a chat written with `--encoding cp1252` holds bytes UTF-8 cannot read. They are shown as
U+FFFD, a character the log does not hold: each session that has such lines says so, with how
many and the first, and how to convert the file. A UTF-8 chat, one that holds U+FFFD itself
too, says nothing."""

from __future__ import annotations

from pathlib import Path

from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource

HEAD = "\n# aider chat started at {}\n\n> Aider v0.86.0  \n\n"


def _read(tmp_path: Path, data: bytes) -> list[object]:
    p = tmp_path / ".aider.chat.history.md"
    p.write_bytes(data)
    return list(AiderSource().read(p, ReadContext(root=tmp_path)))


def _warnings(s: object, code: str) -> list[tuple[str, str | None, int | None]]:
    return [(w.message, w.file, w.line) for w in s.warnings if w.code == code]  # type: ignore[attr-defined]


def test_lines_not_utf8_are_named_once_a_session_with_their_count_and_first_line(tmp_path: Path) -> None:
    first = (HEAD.format("2026-03-01 09:00:00") + "#### Café résumé — greet a name  \n\nOk.\n\n").encode("cp1252")
    second = (HEAD.format("2026-03-01 10:00:00") + "#### plain words  \n\nDone.\n\n").encode()
    third = (HEAD.format("2026-03-01 11:00:00") + "#### naïve one  \n#### naïve two  \n\nSure.\n\n").encode("cp1252")
    a, b, c = _read(tmp_path, first + second + third)
    [(message, file, line)] = _warnings(a, "not-utf8")
    assert file == ".aider.chat.history.md" and line == 6
    assert message.startswith("1 line(s) are not UTF-8 (first at line 6): the bytes that could not be read are "
                              "shown as U+FFFD, which the log does not hold")
    assert "--encoding" in message and "iconv" in message
    assert _warnings(b, "not-utf8") == []
    [(message, _, line)] = _warnings(c, "not-utf8")
    assert line == first.count(b"\n") + second.count(b"\n") + 6 and message.startswith("2 line(s) are not UTF-8")
    prompts = [e.text for e in a.events if e.kind == "user"]  # type: ignore[attr-defined]
    assert prompts and "\ufffd" in prompts[0]  # what could not be read is marked, not guessed


def test_a_utf8_chat_holding_the_replacement_character_itself_is_not_warned(tmp_path: Path) -> None:
    data = (HEAD.format("2026-03-01 09:00:00") + "#### what is \ufffd in my output?  \n\nA lost byte.\n\n").encode()
    [s] = _read(tmp_path, data)
    assert _warnings(s, "not-utf8") == []


def test_line_offsets_stay_byte_offsets_on_lines_that_are_not_utf8(tmp_path: Path) -> None:
    from forsy.sources.aider._md import split_lines

    data = "x\nCafé — ok\ny\n".encode("cp1252")
    bad: list[int] = []
    lines = split_lines(data, bad)
    assert bad == [2]
    assert [(ln.start, ln.end) for ln in lines] == [(0, 1), (2, 11), (12, 13)]
    assert data[lines[1].start:lines[1].end] == "Café — ok".encode("cp1252")
