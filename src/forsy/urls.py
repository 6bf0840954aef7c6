"""URLs as forsy prints and records them: never with a password.

A URL may carry a password in its user part (`postgresql://forsy:pw@db/forsy`) or in a query
parameter (`?password=pw`, `sslpassword=`, `api_token=`): a store's URL goes to terminals, cron
logs (`forsy sweep --json`), `--status` and error messages, and a model server's address may
come back inside a driver's error. Every such value is masked, in a URL alone or in a text
that holds URLs, whatever the scheme; the rest is kept as given.
"""

from __future__ import annotations

import re

MASK = "***"
# the password of `scheme://user:password@host`: after the first colon of the user part, to
# the last `@` before the path (an unescaped `@` in a password is masked with it)
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*):[^\s/?#]*@")
# a query parameter (or a libpq `key=value` pair) whose name says it holds a secret
# (password, sslpassword, token, secret); `passfile` names a file, not a secret
_SECRET_PARAM = re.compile(r"(^|[?&\s])([^=&#\s]*(?:pass(?!file)|secret|token)[^=&#\s]*)=[^&#\s]*", re.I)


def shown_url(url: str) -> str:
    """`url` (or a text holding URLs) with each password in a user part and each secret
    parameter's value masked."""
    return _SECRET_PARAM.sub(rf"\1\2={MASK}", _USERINFO.sub(rf"\1:{MASK}@", url))
