"""Addresses on the public internet: where a person or their machine is, masked as IP_ADDRESS.

Private, loopback, documentation and multicast addresses, the public resolvers, version numbers
written like addresses and the address a named host resolved to stay as they are.
"""

from __future__ import annotations

import json

import pytest

from forsy.redact import IP_ADDRESS, Redactor

MASK = f"[{IP_ADDRESS}_1]"


@pytest.mark.parametrize(("text", "address"), [
    ("$ curl ifconfig.me\n81.2.69.160", "81.2.69.160"),
    ("ssh root@81.2.69.160 'uptime'", "81.2.69.160"),
    ("Accepted publickey for bob from 81.2.69.142 port 52144 ssh2", "81.2.69.142"),
    ('{"ip": "81.2.69.160", "city": "London"}', "81.2.69.160"),
    ("\\n81.2.69.160\\n", "81.2.69.160"),  # JSON-escaped lines
    ("81.2.69.160 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200", "81.2.69.160"),
    ("X-Forwarded-For: 81.2.69.160, 10.0.0.1", "81.2.69.160"),
    ("curl http://81.2.69.160:8080/api", "81.2.69.160"),
    ("Trying 93.184.216.34:443...", "93.184.216.34"),
    ("allow 81.2.69.0/24;", "81.2.69.0"),
    ("HOST=81.2.69.160", "81.2.69.160"),
    ("The server is at 81.2.69.160.", "81.2.69.160"),  # a full stop after it
    ("inet6 2a01:4f8:c17:1234::1/64 scope global", "2a01:4f8:c17:1234::1"),
    ("listen [2a01:4f8:c17:1234::1]:443;", "2a01:4f8:c17:1234::1"),
    ("Trying 2606:2800:220:1:248:1893:25c8:1946:443...", "2606:2800:220:1:248:1893:25c8:1946"),  # curl -v's port
])
def test_a_public_address_is_masked(text: str, address: str) -> None:
    assert Redactor().redact(text) == text.replace(address, MASK)  # the address, and only it


@pytest.mark.parametrize("text", [
    "ping 10.0.0.1 and 127.0.0.1 and 192.168.1.20 and 172.16.4.2 and 100.64.0.7 and 0.0.0.0",  # not public
    "fe80::1%eth0 and ::1 and 2001:db8::1 and 192.0.2.7 and 198.51.100.7 and 203.0.113.9",  # documentation
    "mask 255.255.255.0 and multicast 224.0.0.251 and ff02::fb",
    "nameserver 8.8.8.8 and 1.1.1.1 and 2001:4860:4860::8888.",  # public resolvers
    "ppft==1.7.6.8 pyerfa-2.0.1.5-cp39-abi3 pkginfo>=1.12.1.2",  # versions
    "Version: 1.2.3.4",
    '__version__ = "4.1.2.3"',
    "v1.2.3.4 and python3.11.7.1",
    "OID 1.3.6.1.4.1.311 and 1.2.840.113549",  # longer dotted numbers
    "0% [Connecting to archive.ubuntu.com (185.125.190.81)]",  # a named host's address
    "PING google.com (142.250.80.46) 56(84) bytes of data.",
    "at 12:34:56, mac aa:bb:cc:dd:ee:ff, std::vector, 2024::",
    "256.1.2.3 and 01.2.3.4",  # not addresses
])
def test_what_is_no_one_s_address_stays(text: str) -> None:
    assert Redactor().redact(text) == text


def test_the_same_address_has_one_placeholder_and_is_counted_by_its_kind() -> None:
    red = Redactor()
    out = red.redact_value({"cmd": "ssh deploy@81.2.69.160", "log": "Connection from 81.2.69.160 port 22",
                            "args": json.dumps({"host": "81.2.69.161"})})
    assert out["cmd"] == "ssh deploy@[IP_ADDRESS_1]"
    assert out["log"] == "Connection from [IP_ADDRESS_1] port 22"
    assert json.loads(out["args"]) == {"host": "[IP_ADDRESS_2]"}
    assert red.report()["by_kind"] == {IP_ADDRESS: 3}
