"""Reading a model's answer (llm/_check.py): the proposals object is found where a model puts it
(the whole answer, a fenced block, the outermost braces) and anything else is a ValueError
counting the errors; nothing is guessed out of a malformed answer."""

from __future__ import annotations

import pytest

from forsy.llm._check import answer_candidates, parse_answer

OBJ = '{"proposals": [{"step": 1, "field": "observation", "value": "x", "citations": []}]}'


def test_an_answer_sent_as_json_is_read_as_sent() -> None:
    assert parse_answer(OBJ) == [{"step": 1, "field": "observation", "value": "x", "citations": []}]
    assert parse_answer('  {"proposals": []}\n') == []


def test_a_fenced_block_is_read_with_or_without_words_around_it() -> None:
    fenced = f"Here you are:\n```json\n{OBJ}\n```\nDone."
    assert parse_answer(fenced)[0]["field"] == "observation"
    assert parse_answer(f"```JSON \n{OBJ}\n  ```")[0]["step"] == 1
    assert parse_answer(f"```\n{OBJ}\n```")[0]["step"] == 1


def test_the_outermost_braces_are_read_last() -> None:
    assert parse_answer(f"Sure! {OBJ} Hope it helps.")[0]["value"] == "x"


def test_candidates_are_the_text_each_fenced_block_then_the_braces() -> None:
    text = 'a ```json\n{"b": 1}\n``` c ```\n{"d": 2}\n``` e'
    assert answer_candidates(text) == [text, '{"b": 1}', '{"d": 2}', '{"b": 1}\n``` c ```\n{"d": 2}']
    assert answer_candidates(" no braces ") == ["no braces"]
    assert answer_candidates("} {") == ["} {"]  # a closing brace before the opening one is no object
    assert answer_candidates("{}") == ["{}", "{}"]


@pytest.mark.parametrize(("answer", "errors"), [
    ("not json", 1),
    ('{"proposals": 3}', 1),
    ('{"other": []}', 1),
    ('{"proposals": [1, 2]}', 2),
])
def test_anything_else_is_a_value_error_counting_the_errors(answer: str, errors: int) -> None:
    with pytest.raises(ValueError, match=f"answer is not a proposals object: {errors} error\\(s\\)"):
        parse_answer(answer)
