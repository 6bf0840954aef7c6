"""A person's date of birth: a whole date after a name for it, in text or as a record's field.

A date alone is the log's own (a commit's, a release's): only after `DOB`, `date of birth`,
`born on`, `Geburtsdatum`, `生年月日`... is it a person's, and then it is masked as BIRTH_DATE.
"""

from __future__ import annotations

import pytest

from forsy.redact import BIRTH_DATE, Redactor

MASK = f"[{BIRTH_DATE}_1]"


@pytest.mark.parametrize(("text", "date"), [
    ("DOB: 12/03/1984", "12/03/1984"),
    ("Date of birth: 1984-03-12", "1984-03-12"),
    ("born on March 12, 1984", "March 12, 1984"),
    ("born 12 March 1984 in Leeds", "12 March 1984"),
    ("She was born on 3rd Mar. 1984.", "3rd Mar. 1984"),
    ("D.O.B. 03/12/1984", "03/12/1984"),
    ("birthday: 1984-03-12", "1984-03-12"),
    ("Geburtsdatum: 12.03.1984", "12.03.1984"),
    ("date de naissance : 12/03/1984", "12/03/1984"),
    ("fecha de nacimiento: 12/03/1984", "12/03/1984"),
    ("дата рождения: 12.03.1984", "12.03.1984"),
    ("生年月日：1984年3月12日", "1984年3月12日"),
    ("出生日期: 1984-03-12", "1984-03-12"),
    ("생년월일: 1984년 3월 12일", "1984년 3월 12일"),
    ('"dob": "1984-03-12"', "1984-03-12"),
    ('{\\"birthDate\\": \\"1984-03-12\\"}', "1984-03-12"),  # JSON inside a string
    ("UPDATE users SET date_of_birth = '1984-03-12' WHERE id = 7", "1984-03-12"),
])
def test_a_date_after_its_name_is_masked(text: str, date: str) -> None:
    assert Redactor().redact(text) == text.replace(date, MASK)  # the date, and only the date


@pytest.mark.parametrize("text", [
    "born in 1984",  # a year alone
    "DOB: YYYY-MM-DD",  # a format
    "date of birth: null",
    "released on 2024-03-12",  # a date with no name for a birth
    "firstborn 2024-03-12",
    "reborn 2024-03-12",
    "DOBLE 2024-03-12",
    "birthday party on Friday",
    "born: 2024-03-12T10:00:00Z-ish build",  # a timestamp
    "birth date field is required",
    "born 1984-13-45",  # no such date
    "dob = get_dob(user)",
])
def test_what_is_no_date_of_birth_stays(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_record_s_date_of_birth_field_is_masked_whole() -> None:
    red = Redactor()
    out = red.redact_value({"user": {
        "name": "x", "dob": "1984-03-12", "date_of_birth": "12/03/1984", "birthDate": "1984-03-12T00:00:00Z",
        "Geburtsdatum": "12.03.1984", "created": "2024-03-12", "birthday": "soon", "dob_format": "1984-03-12",
    }})
    user = out["user"]
    assert [user[k] for k in ("dob", "date_of_birth", "birthDate", "Geburtsdatum")] == [
        "[BIRTH_DATE_1]", "[BIRTH_DATE_2]", "[BIRTH_DATE_3]", "[BIRTH_DATE_4]"]
    assert (user["created"], user["birthday"], user["dob_format"]) == ("2024-03-12", "soon", "1984-03-12")
    assert red.report()["by_kind"] == {BIRTH_DATE: 4}
