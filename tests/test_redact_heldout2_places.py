"""A position to a few metres in more of the ways links and tools write it: a map link's
parameters named with a word before `lat`/`lon` when the twin stands beside it (OpenStreetMap's
`mlat=…&mlon=…`), a camel-case name (`pickupLat`), a pair joined by `~` (Bing's `cp=`) or by a
URL-encoded comma (`query=…%2C…`), degrees, minutes and seconds with their hemispheres
(`38°43'20.3"N 9°08'21.5"W`, exiftool's `deg`), decimal degrees with hemispheres. Look-alikes:
a word that ends in `lon` or `lat` with no twin (`epsilon`, `flat`), numbers of other kinds."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor


@pytest.mark.parametrize(("text", "values"), [
    ("https://www.openstreetmap.org/?mlat=41.14961&mlon=-8.61099#map=17", ("41.14961", "-8.61099")),
    ('{"pickupLat": 41.149612, "pickupLng": -8.610993}', ("41.149612", "-8.610993")),
    ("https://www.bing.com/maps?cp=41.14961~-8.61099&lvl=17", ("41.14961", "-8.61099")),
    ("https://www.google.com/maps/search/?api=1&query=41.14961%2C-8.61099", ("41.14961", "-8.61099")),
    ("Dropped pin 41°08'58.6\"N 8°36'39.6\"W", ("58.6", "39.6")),
    ("GPS Position                    : 41 deg 8' 58.60\" N, 8 deg 36' 39.56\" W", ("58.60", "39.56")),
    ("GPS Position : 41.149612 N, 8.610993 W", ("41.149612", "8.610993")),
])
def test_a_position_is_masked(text: str, values: tuple[str, ...]) -> None:
    out = Redactor().redact(text)
    assert not any(v in out for v in values), out
    assert "[ADDRESS_" in out


@pytest.mark.parametrize("lookalike", [
    "epsilon=0.12345 flat=12.3456",
    "took 12.5 s, 3 N",
    "transform: translate(41.1496px, -8.6110px)",
    "loss 41.1496, accuracy 0.8610, epoch 3",
])
def test_numbers_that_are_no_position_stay_beside_one(lookalike: str) -> None:
    text = f"https://www.openstreetmap.org/?mlat=41.14961&mlon=-8.61099\n{lookalike}"
    out = Redactor().redact(text)
    assert "41.14961" not in out
    assert out.endswith("\n" + lookalike), out
