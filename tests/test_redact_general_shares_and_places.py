"""Links that share a file or a document with whoever holds them (`/s/<id>`, `/share/<id>`,
`/join/<id>`, a document's `/d/<id>`, Dropbox's `rlkey=`); people named by git (an author, a
committer, a trailer's `-by:`, `--author=`, `user.name`: masked as the commit authors the
redactor is given are, not bots or apps); a device's hardware address; a position given to a
few metres (a pair after a word for a place or in a map link, or each number after its own
name). Look-alikes: short or word ids, a dashboard, Claude as a co-author, a Docker or
broadcast MAC, a fingerprint, a tensor's numbers, an EXIF-less pair of floats."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

ID = "Hq8Wz3Lm9Xp2Vn7Kt4Wb6Yc1"


@pytest.mark.parametrize("text", [
    f"Here is the deck: https://files.acme.io/share/{ID}",
    f"https://pad.acme.io/s/{ID}#section-2",
    f"Join the call: https://meet.acme.io/join/{ID}?pwd=1",
    "https://docs.google.com/spreadsheets/d/1Hq8Wz3Lm9Xp2Vn7Kt4Wb6Yc1Hq8Wz3Lm9Xp2/view?usp=drive_link",
    "https://www.dropbox.com/scl/fi/9x8y7z/plan.pdf?rlkey=hq8wz3lm9xp2vn7kt4wb6yc1h&st=abc&dl=0",
])
def test_a_link_that_shares_with_whoever_holds_it_has_its_id_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert "Hq8Wz3Lm9Xp2Vn7Kt4Wb6Yc1" not in out and "hq8wz3lm9xp2vn7kt4wb6yc1h" not in out, out


def test_git_names_people_and_not_bots() -> None:
    log = ("commit 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d\nAuthor:     Ingrid Løvaas <ingrid@fjord.no>\n"
           "Commit:     Tomás O'Neill <tomas@x.ie>\n\n    Fix the parser\n\n"
           "    Reviewed-by: Ana-Maria Pop <ana@x.ro>\n    Co-Authored-By: Claude <noreply@anthropic.com>\n"
           "    Signed-off-by: dependabot[bot] <support@github.com>\n")
    red = Redactor()
    out = red.redact(json.dumps({"stdout": log}))
    for name in ("Ingrid Løvaas", "Tomás O'Neill", "Ana-Maria Pop"):
        assert name not in json.loads(out)["stdout"], out
    assert "Claude <noreply@anthropic.com>" in out and "dependabot[bot]" in out
    assert red.report()["by_rule"]["git-person"] == 3


def test_a_coding_agents_own_name_is_not_a_person_and_a_name_sharing_a_word_with_one_is() -> None:
    """OpenHands asks its agent to add `Co-authored-by: openhands <…>`: the agent's name, not a
    person's; an agent's name is matched whole, so a person called Cline is still masked."""
    red = Redactor()
    out = red.redact("add Co-authored-by: openhands <openhands@all-hands.dev> to any commit\n"
                     "Signed-off-by: Patsy Cline <patsy@x.io>\n")
    assert "Co-authored-by: openhands <" in out and "Patsy Cline" not in out, out
    assert red.report()["by_rule"]["git-person"] == 1


@pytest.mark.parametrize(("text", "name"), [
    ('git -c user.name="Wei Zhang" commit --author="Wei Zhang <wei@x.cn>" -m fix', "Wei Zhang"),
    ("$ git config --list\nuser.name=Priya Raman\ncore.editor=vim", "Priya Raman"),
    ("GIT_AUTHOR_NAME='Olu Adeyemi' git commit -m x", "Olu Adeyemi"),
])
def test_a_name_set_for_git_is_masked(text: str, name: str) -> None:
    assert name not in Redactor().redact(text)


def test_hardware_addresses_of_devices_are_masked_and_made_up_ones_stay() -> None:
    text = ("en0: flags=8863<UP>\n\tether a4:83:e7:1c:2d:90\n"
            "   Physical Address. . . . . : F0-1F-AF-3B-22-C4\n"
            "docker0: link/ether 02:42:ac:11:00:02 brd ff:ff:ff:ff:ff:ff\n"
            "ssh key 16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48\n")
    out = Redactor().redact(text)
    assert "a4:83:e7:1c:2d:90" not in out and "F0-1F-AF-3B-22-C4" not in out
    assert "02:42:ac:11:00:02 brd ff:ff:ff:ff:ff:ff" in out and "16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48" in out


@pytest.mark.parametrize("text", [
    "Delivered at GPS 40.689247,-74.044502",
    "coordinates: -33.856784; 151.215297",
    "https://www.google.com/maps/place/x/@35.658581,139.745433,17z",
    '{"lat": 52.520008, "lng": 13.404954, "name": "office"}',
    "geo?lat=41.890251&lon=12.492373",
])
def test_a_position_to_a_few_metres_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert not any(n in out for n in ("40.689247", "-74.044502", "-33.856784", "151.215297", "35.658581",
                                      "139.745433", "52.520008", "13.404954", "41.890251", "12.492373")), out
    assert "[ADDRESS_" in out


def test_numbers_that_are_no_position_stay_beside_one() -> None:
    text = "Location: 51.507223, -0.127586\ntensor([0.123456, -0.654321])\nscale: 1.5000, 2.2500\nlat: 51.5\n"
    out = Redactor().redact(text)
    assert out == "Location: [ADDRESS_1]\ntensor([0.123456, -0.654321])\nscale: 1.5000, 2.2500\nlat: 51.5\n"
