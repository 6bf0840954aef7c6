"""Personal data in forms the other rules did not see: labels in CJK and in any case, a number
given with its country code after a label (vCard, tel: and WhatsApp links), e-mail addresses
written to escape harvesters, post office boxes and Japanese postal marks, bank account numbers
beside a bank's word, `~name/` and `home$` shares. Each rule's own samples (none of the
held-out sets'), with the look-alikes that must stay."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor


def _gone(text: str, value: str) -> bool:
    return value not in Redactor().redact(text)


@pytest.mark.parametrize(("text", "value"), [
    ("連絡先電話番号：080-2211-4455", "080-2211-4455"),
    ("携帯電話 070 1234 9876", "070 1234 9876"),
    ("TEL;TYPE=work,voice:+44 161 496 0734", "+44 161 496 0734"),
    ('<a href="tel:+493012345678">anrufen</a>', "+493012345678"),
    ("chat: https://wa.me/447700900461", "447700900461"),
])
def test_phones_after_cjk_labels_vcard_properties_and_links_are_masked(text: str, value: str) -> None:
    assert _gone(text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("National Insurance Number: AB 12 34 56 D", "AB 12 34 56 D"),
    ("PAN Card: BNZPM2501F", "BNZPM2501F"),
    ("Aadhaar number 4411 2233 5566", "4411 2233 5566"),
    ('{"passenger": {"passport_no": "K7345521"}}', "K7345521"),
])
def test_government_numbers_under_names_in_any_case_are_masked(text: str, value: str) -> None:
    assert _gone(text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("write to m.okafor [at] posteo [dot] de", "m.okafor [at] posteo [dot] de"),
    ("maintainer: lena{at}kernel-lab.org", "lena{at}kernel-lab.org"),
    ("Kontakt: info.schmidt(AT)web(DOT)de", "info.schmidt(AT)web(DOT)de"),
])
def test_an_email_written_to_escape_harvesters_is_masked(text: str, value: str) -> None:
    out = Redactor().redact(text)
    assert value not in out and value.split("[")[0].split("{")[0].split("(")[0] not in out


@pytest.mark.parametrize(("text", "value"), [
    ("Remit to: PO Box 88123, Portland, OR 97208", "PO Box 88123"),
    ("Postfach 10 02 03, 10115 Berlin", "Postfach 10 02 03"),
    ("送付先 〒530-0001 大阪府大阪市北区梅田3-1-1", "大阪府大阪市北区梅田3-1-1"),
])
def test_post_office_boxes_and_japanese_addresses_are_masked(text: str, value: str) -> None:
    assert _gone(text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("Ship it to 116 Kingsway, London WC2B 3RH please", "116 Kingsway"),
    ('{"stdout": "Invoice\\n45 Hope, Liverpool L1 9BP\\nTotal: 12.00"}', "45 Hope"),
    ("billing: 3 Albion, Leeds, West Yorkshire LS1 5ES", "3 Albion"),
    ("send to 240 Sparks, Ottawa, ON K1P 5E7", "240 Sparks"),
    ("a long line first " * 40 + "\nthen 9 Princes, Edinburgh EH2 2ER", "9 Princes"),
    # a US state's code and ZIP: any street type (`Pkwy`, `Hwy`, `Cir`, `Trl`), or none
    ("send it to Jane Doe, 1600 Amphitheatre Pkwy, Mountain View, CA 94043", "1600 Amphitheatre Pkwy"),
    ("ship to 4821 Willow Creek Trl, Boulder, CO 80302-1234 by Friday", "4821 Willow Creek Trl"),
    ("ship to 4821 Willow Creek, Boulder, CO 80302", "4821 Willow Creek"),
])
def test_an_address_is_found_by_its_postcode_whatever_the_street_is_called(text: str, value: str) -> None:
    # where the engine reports the postcodes, and where it reports no anchors (the rule searches)
    for red in (Redactor(), Redactor(engine=_NoAnchors())):  # type: ignore[arg-type]
        out = red.redact(text)
        assert value not in out and "[ADDRESS_1]" in out, out


class _NoAnchors:
    name, reports_anchors = "no anchors", False

    def scan(self, data: bytes) -> list[object]:
        return []


@pytest.mark.parametrize(("text", "value"), [
    ("ACH: routing 111000025, acct no. 000123456789", "000123456789"),
    ("Kontonummer: 0532013000, BLZ 37040044", "0532013000"),
    ("Sort code 20-00-00, account number 31926819", "31926819"),
])
def test_a_bank_account_number_beside_a_banks_word_is_masked(text: str, value: str) -> None:
    assert _gone(text, value)


@pytest.mark.parametrize(("text", "value"), [
    ("cp ~margot/notes.md .", "margot"),
    (r"\\nas01\home$\rkowalczyk\backup.zip", "rkowalczyk"),
])
def test_a_home_folder_named_by_its_owner_is_masked(text: str, value: str) -> None:
    assert _gone(text, value)


@pytest.mark.parametrize("text", [
    "Look at the results [at] the end of the run",
    "see {at} and {dot} placeholders in the template",
    "the account number field is 10 digits long",
    "AWS account number 123456789012 in us-east-1",
    "Box 3 of 12 shipped",
    "Item in box 42",
    "cd ~/projects && ls ~root/",
    "see https://www.cs.example.edu/~kmiller/papers/ for the proof",
    "npm i lodash@~4.17.21",
    "Callback: Tel 3",
    "〒 mark",
    "Step 2 Build, Test X86 4GB",
    "item 5 Box, Shelf B12 3CD",
    "postcode SW1A 1AA alone",
    "v2 Kingsway, London WC2B 3RH",
    "Fixed in 2 Files, Merged, PR 12345",  # a pull request, not Puerto Rico
    "User 42 Created, Admin, ID 12345",
    "| 12 | Mountain View | CA 94043 |",
    "Boulder, CO 80302",
])
def test_their_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == text
