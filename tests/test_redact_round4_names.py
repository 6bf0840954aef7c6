"""People named by the field holding their name (redact/namefields.py), by a manifest's author
list or an AUTHORS file (redact/manifests.py), by a quoted display name before an address
(redact/people.py): masked as PERSON; code, types, stand-ins, organisations and the same words
in other places are left."""

from __future__ import annotations

import pytest

from forsy.redact import PERSON, Redactor

# (text, the names it holds)
NAMED = [
    ('{"customer": {"first_name": "Oluwaseun", "last_name": "Adebayo-Smith"}}', ["Oluwaseun", "Adebayo-Smith"]),
    ('{"fullName": "Marit Solberg Haugen", "plan": "pro"}', ["Marit Solberg Haugen"]),
    ("patient_name: Dragan Petrović\nward: 4B\n", ["Dragan Petrović"]),
    ('User.objects.create(first_name="Katarzyna", last_name="Zielińska")', ["Katarzyna", "Zielińska"]),
    ("CONTACT_FULL_NAME='Amara Nwosu-Bello'", ["Amara Nwosu-Bello"]),
    ('{\\"surname\\": \\"Van der Berg\\"}', ["Van der Berg"]),
    ("收件人：李志强，电话：见附件", ["李志强"]),
    ("氏名：山田 花子\n", ["山田 花子"]),
    ("Ansprechpartner: Frau Ilse Brandstätter, Raum 3", ["Ilse Brandstätter"]),
    ("BEGIN:VCARD\nVERSION:4.0\nFN:Dagrun Eikeland\nN:Eikeland;Dagrun;;;\nEND:VCARD",
     ["Dagrun Eikeland", "Eikeland;Dagrun"]),
    ('[project]\nname = "pkg"\nauthors = [\n  {name = "Sigrún Ólafsdóttir", email = "sigrun@fjord.is"},\n]\n',
     ["Sigrún Ólafsdóttir"]),
    ('{"name": "tool", "contributors": [{"name": "Priya Raghunathan"}, "Tomás Ó Briain (https://t.ie)"]}',
     ["Priya Raghunathan", "Tomás Ó Briain"]),
    ('  spec.authors = ["Haruki Tanabe", "Greta Lindqvist"]', ["Haruki Tanabe", "Greta Lindqvist"]),
    ('setup(name="x", author="Bartholomew Quaye", author_email="bq@quaye.dev")', ["Bartholomew Quaye"]),
    ("$ cat CONTRIBUTORS\n# people who helped\nTomasz Wiśniewski\nBùi Thị Hoa\n\n",
     ["Tomasz Wiśniewski", "Bùi Thị Hoa"]),
    ("==> AUTHORS.md <==\n* Ifeoma Chukwu\n* Lars-Erik Dahl\n", ["Ifeoma Chukwu", "Lars-Erik Dahl"]),
    ('From: "Kowalczyk, Agnieszka" <a.kowalczyk@poczta.pl>', ["Kowalczyk, Agnieszka"]),
    ('To: "Ørjan Haugland" <orjan@haugland.no>', ["Ørjan Haugland"]),
]
LOOK_ALIKES = [
    "first_name = row['first_name']",
    "display_name: str = ''",
    "    full_name = f'{first} {last}'",
    'def get_full_name(self) -> str:\n    return self.first_name',
    '{"display_name": "Visual Studio Code", "first_name": null}',
    '{"full_name": "octocat/hello-world", "last_name": "string"}',
    "first_name: string;\nlast_name?: string;",
    '{"first_name": "John", "last_name": "Doe", "full_name": "Jane Doe"}',
    "if first_name == 'Ann':",
    "FN: a function pointer\nN: 12",
    "BEGIN:VCARD\nFN:Acme Support Team\nEND:VCARD",
    '"author": "Microsoft Corporation"',
    'authors = ["The Foo Project Developers"]',
    "author = models.ForeignKey(User, on_delete=models.CASCADE)",
    "coauthors: Sigrun Olafsdottir",
    "$ cat AUTHORS\nThis file lists everyone who wrote code here and more\nJane Roe\n",
    'Reply-To: "Acme Billing Team" <invoices@acme.io>',
    "联系人列表：已更新",
]


@pytest.mark.parametrize(("text", "names"), NAMED)
def test_a_named_person_is_masked(text: str, names: list[str]) -> None:
    out = Redactor().redact(text)
    assert f"[{PERSON}_" in out
    for name in names:
        for word in name.replace(";", " ").replace(",", " ").split():
            assert word not in out, (word, out)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay(text: str) -> None:
    assert f"[{PERSON}_" not in Redactor().redact(text)


def test_a_record_field_is_read_after_its_key() -> None:
    out = Redactor().redact_value({"givenName": "Leilani", "familyName": "Kahananui", "username": "Leilani"})
    assert out["givenName"].startswith(f"[{PERSON}_") and out["familyName"].startswith(f"[{PERSON}_")
    assert out["username"] == "Leilani"
