"""Postal addresses (redact/addresses.py): a street with its number, and the city and postcode
after it, in the shapes of several countries; and what follows a label for one. Network,
memory and e-mail addresses, and streets' words elsewhere, stay."""

from __future__ import annotations

import pytest

from forsy.redact import ADDRESS, Redactor

ADDRESSES = [
    "742 Evergreen Terrace, Springfield, IL 62704",
    "10 Downing Street, London SW1A 2AA",
    "1600 Pennsylvania Avenue NW, Washington, DC 20500",
    "55 Main St, Apt 4B, Boston, MA 02108",
    "100 Queen St W, Toronto, ON M5H 2N2",
    "221B Baker Street",
    "Musterstraße 12, 10115 Berlin",
    "Hauptstr. 5",
    "Seestrasse 353, Zurich, Switzerland",
    "12 rue de la Paix, Paris",
    "8 calle Mayor, Madrid",
    # the type capitalised, as often written
    "12 Rue de Rivoli, 75001 Paris",
    "5 Calle Mayor, 28013 Madrid",
    "7 Avenue des Champs-Élysées, Paris",
    "3 Piazza Navona, Roma",
    # the type, the name, then the number (Spain, Catalonia, Italy, Portugal, Brazil)
    "Calle Mayor 5, 28013 Madrid",
    "Via Roma 10, 00184 Roma",
    "Carrer de Mallorca 401, 08013 Barcelona",
    "Avenida Paulista 1578, São Paulo",
    "Piazza del Popolo 12, Roma",
    "Rua Augusta 100",
]


@pytest.mark.parametrize("address", ADDRESSES)
@pytest.mark.parametrize("template", ["Please ship it to {}.", "The user lives at {}.", "{}"])
def test_a_street_address_is_masked_whole(address: str, template: str) -> None:
    out = Redactor().redact(template.format(address))
    assert out == template.format(f"[{ADDRESS}_1]"), out


@pytest.mark.parametrize(("text", "masked"), [
    ("home address: 742 Evergreen Terrace", "home address: [ADDRESS_1]"),
    ("the address is 5 Main St", "the address is [ADDRESS_1]"),
    ("Anschrift: Musterweg 3, 12345 Musterstadt", "Anschrift: [ADDRESS_1]"),
    ("Shipping Address: 4 Privet Drive, Little Whinging", "Shipping Address: [ADDRESS_1]"),
])
def test_what_follows_a_label_for_an_address_is_masked(text: str, masked: str) -> None:
    assert Redactor().redact(text) == masked


@pytest.mark.parametrize("text", [
    "IP address: 10.0.0.1", "listen address: 0.0.0.0:8080", "Address: 0x7ffee4b2", "email address: see profile 2",
    "address: see the wiki page 2", "address: 42", "mac_address=aa:bb:cc", "address_book = 5 Main",
    "sent 3 via Email", "String 42 chars", "return true 5", "Step 2 Drive the car", "returned 404 Not Found",
    "the 3 Way merge", "Dr. Smith at 5 pm", "Close the 2 Files", "bind address is 127.0.0.1",
    "Via the API 2 calls were made", "Plaza Hotel", "Largo 3 movement", "we met at Plaza Mayor", "Calle 13 concert",
    "Via HTTP 2", "Corso 2024 dates",
])
def test_other_addresses_and_street_words_stay(text: str) -> None:
    assert Redactor().redact(text) == text
