"""A table a tool printed is read as records: each cell is given its column's name and masked as
that field's value would be (a secret, a phone, a government number, a date of birth), whatever
the table's form (psql, mysql, Markdown, CSV, TSV, pg_dump's COPY, a pandas frame, columns
aligned by spaces), raw or JSON-escaped; cells of other columns, placeholders, and lines that
only look like a header stay (redact/tables.py)."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

SECRETS = ("Tr0ub4dor&3zz", "hunter2hunter!", "123-45-6789", "078-05-1120", "+1 415 555 0132", "1984-03-12",
           "ghx8Kq2LmN4vB7wQ1eZ9rT5y")

# psql's aligned output: names centred, a border of `-` and `+`, a count after the rows
PSQL = """\
 id |     email      |   password    |     ssn     |    dob
----+----------------+---------------+-------------+------------
  1 | al@corp.io     | Tr0ub4dor&3zz | 123-45-6789 | 1984-03-12
  2 | bo@corp.io     | hunter2hunter! | 078-05-1120 | 1990-01-02
(2 rows)
"""
# mysql's box: borders above and below the names and after the last row
MYSQL = """\
+----+----------+------------------+-----------------+
| id | username | api_token        | phone           |
+----+----------+------------------+-----------------+
|  1 | deploy   | ghx8Kq2LmN4vB7wQ1eZ9rT5y | +1 415 555 0132 |
+----+----------+------------------+-----------------+
1 row in set (0.00 sec)
"""
MARKDOWN = """\
| user | password | token |
|:-----|:--------:|------:|
| admin | Tr0ub4dor&3zz | ghx8Kq2LmN4vB7wQ1eZ9rT5y |
"""
CSV = 'name,email,"password",phone_number\n"Smith, Alice",al@corp.io,"Tr0ub4dor&3zz",+1 415 555 0132\r\n'
SEMICOLON = "name;Passwort;Geburtsdatum\nAlice;Tr0ub4dor&3zz;12.03.1984\n"
TSV = "username\tpassword\tsecret\ndeploy\tTr0ub4dor&3zz\tghx8Kq2LmN4vB7wQ1eZ9rT5y\n"
COPY = ("COPY public.users (id, email, password, ssn) FROM stdin;\n"
        "1\tal@corp.io\tTr0ub4dor&3zz\t123-45-6789\n2\tbo@corp.io\t\\N\t078-05-1120\n\\.\n")
# `docker`-style: names and cells left-aligned, a name of two words
DOCKER = """\
CONTAINER ID   NAME      SECRET_TOKEN               PHONE
3f2a1b         web-1     ghx8Kq2LmN4vB7wQ1eZ9rT5y   +1 415 555 0132
"""

TABLES = [PSQL, MYSQL, MARKDOWN, CSV, SEMICOLON, TSV, COPY, DOCKER]


def _masked(text: str) -> str:
    out = Redactor().redact(text)
    for s in SECRETS:
        if s in text:
            assert s not in out, (s, out)
    return out


@pytest.mark.parametrize("table", TABLES)
def test_each_cell_of_a_named_column_is_masked(table: str) -> None:
    out = _masked(table)
    assert out.count("\n") == table.count("\n")  # the table's shape stays
    for kept in ("id", "al@corp.io", "deploy", "admin", "Alice", "web-1", "1 row in set", "(2 rows)"):
        if kept in table and "@" not in kept:
            assert kept in out


def test_cells_of_other_columns_and_the_names_stay() -> None:
    out = Redactor().redact(PSQL)
    assert out.splitlines()[0] == PSQL.splitlines()[0]
    assert " 1 | " in out and "[CREDENTIAL_" in out and "[ID_NUMBER_" in out and "[BIRTH_DATE_" in out
    assert "pg_dump" not in out and Redactor().redact(COPY).count("\\N") == 1  # pg_dump's NULL is none


def test_a_pandas_frame_as_pandas_prints_it() -> None:
    pd = pytest.importorskip("pandas")  # the writer itself: its alignment, index and NaN
    frame = pd.DataFrame({
        "id": [1, 2, 3], "name": ["Alice Smith", "Bob Jones", "Carol"],
        "password": ["Tr0ub4dor&3zz", "hunter2hunter!", "x9!Kq7zPw"],
        "phone_number": ["+1 415 555 0132", None, "(212) 555-0199"],
        "date_of_birth": ["1984-03-12", "1990-01-02", "2001-12-31"],
    })
    for text in (frame.to_string(), str(frame.set_index("id")), frame.to_csv(), frame.to_csv(sep="\t")):
        out = _masked(text)
        assert "x9!Kq7zPw" not in out and "(212) 555-0199" not in out and "2001-12-31" not in out
        assert "Alice Smith" in out and "Carol" in out


def test_a_long_table_is_read_to_its_end() -> None:
    rows = "".join(f"{i},user{i},Pw{i:05d}!xQz\n" for i in range(2000))
    out = Redactor().redact("id,login,password\n" + rows)
    assert "Pw01999!xQz" not in out and "Pw00000!xQz" not in out
    assert out.count("[CREDENTIAL_") == 2000 and "user1999" in out


def test_a_table_inside_json_is_read() -> None:
    wrapped = json.dumps({"stdout": "id,email,password,ssn\n1,al@corp.io,Tr0ub4dor&3zz,123-45-6789\n"})
    out = Redactor().redact(wrapped)
    assert "Tr0ub4dor&3zz" not in out and "123-45-6789" not in out and "id,email,password" in out


@pytest.mark.parametrize("table", [PSQL, DOCKER, TSV])
def test_a_table_in_a_json_line_is_read_where_its_string_opens(table: str) -> None:
    for line in (json.dumps({"stdout": table}), json.dumps({"cmd": "q" * 5000, "stdout": table})):
        out = Redactor().redact(line)
        assert not any(s in out for s in SECRETS), out


def test_a_table_on_a_long_escaped_line_is_read() -> None:
    line = json.dumps({"note": "x" * 6000, "stdout": "user\tpassword\nbob\tTr0ub4dor&3zz\n"})
    out = Redactor().redact(line)
    assert "Tr0ub4dor&3zz" not in out and "x" * 6000 in out


KEPT = [
    # documentation tables: the column names a secret, its cells describe it
    "| Variable | Required | Description |\n|---|---|---|\n| API_KEY | yes | Your API key |\n"
    "| password | no | Password for the admin user |\n",
    "| Setting | Value |\n|---|---|\n| token_limit | 4096 |\n| password_min_length | 12 |\n",
    # a key/value listing whose values are counts and words
    "key,value\nname,forsy\ntoken_count,42\n",
    # placeholders where the secret would be
    "name,password\nalice,changeme\nbob,your_password\ncarol,<password>\ndave,$DB_PASSWORD\n",
    "user | password\n---- | --------\nbob  | ********\n",
    # a shell pipeline and the next line: no row of it
    "cat secrets.txt | grep token\nfoo | bar_baz\n",
    # a row that is not the header's width ends the table before it
    "login,password\nalice,Tr0ub4dor&3zz,extra,cells\n",
    # prose with two spaces after a full stop, and an aligned line below
    "Rotate the token.  Then restart.\nThe new one  is  ready.\n",
    # a column named for something else (`token_count`, `key_id`, `tokenizer`)
    "model,token_count,key_id,tokenizer\ngpt,12345,AKIDX,Qw3rTyUi0pAsDfGh\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_what_only_looks_like_a_secret_column_stays(text: str) -> None:
    assert Redactor().redact(text) == text
