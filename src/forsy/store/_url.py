"""A store URL as forsy prints and records it: never with a password.

A libpq URL may carry a password in its user part (`postgresql://forsy:pw@db/forsy`) or in
a query parameter (`?password=pw`, `sslpassword=`); the store's URL goes to terminals, cron
logs (`forsy sweep --json`), `--status` and error messages, so every such value is masked,
whatever the scheme, and the rest of the URL is kept as given.
"""

from __future__ import annotations

import re

MASK = "***"
# the password of `scheme://user:password@host`: after the first colon of the user part
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*):[^/?#]*@")
# a query parameter (or a libpq `key=value` pair) whose name says it holds a secret
# (password, sslpassword, token, secret); `passfile` names a file, not a secret
_SECRET_PARAM = re.compile(r"(^|[?&\s])([^=&#\s]*(?:pass(?!file)|secret|token)[^=&#\s]*)=[^&#\s]*", re.I)


def shown_url(url: str) -> str:
    """`url` with its password (user part) and any secret query parameter's value masked."""
    return _SECRET_PARAM.sub(rf"\1\2={MASK}", _USERINFO.sub(rf"\1:{MASK}@", url))
