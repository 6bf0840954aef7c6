"""The literals the secret engine reports in its own single pass (the anchors of forsy's
rules that are rare in logs, so cheap to report but costly to search for one by one), made
of the rules' own lists; the engine's rule file (_engine.py) and the Redactor's Anchors use them."""

from __future__ import annotations

from ._tokens import TOKEN_FINDER
from .addresses import LABEL_ANCHORS as ADDRESS_LABELS
from .addresses import STREET_ANCHORS
from .browser import TYPED_ANCHORS
from .calls import CALL_ANCHORS, CALL_ANCHORS_CAMEL
from .cmdline import CLI_ANCHORS
from .codes import CODE_ANCHORS, CODE_ANCHORS_CASED
from .contacts import ACCOUNT_ANCHORS_RARE, AT_ANCHORS, BOX_ANCHORS
from .declared import HCL_ANCHORS, MASK_ANCHORS
from .encoded import ENCODED_ANCHORS
from .headers import HEADER_ANCHORS, HEADER_ANCHORS_TITLE
from .inserts import INSERT_ANCHORS
from .jwk import JWK_ANCHORS
from .keys import KEY_BLOCK_ANCHORS, SIGNING_KEY_ANCHORS
from .languages import ANCHORS as LANGUAGE_ANCHORS
from .links import ACCESS_ANCHORS, LINK_ANCHORS_CASED
from .logins import AUTH_COMMAND_ANCHORS, LOGIN_ANCHORS
from .outputs import DEVICE_ANCHORS_RARE
from .people import PEOPLE_ANCHORS
from .personal import BIRTH_LABELS, ID_KEY_LABELS, ID_LABELS, PHONE_LABELS
from .printed import PRINTED_ANCHORS_RARE
from .prompts import SENDS
from .prose import PAIR_ANCHORS, PHRASE_ANCHORS
from .rules import COOKIE_STRING_ANCHORS, SIGNATURE_ANCHORS
from .structure import NATIVE_ANCHORS as STRUCTURE_ANCHORS
from .tables import TABLE_ANCHORS

# Literals rare in logs, so cheap for the engine to report (but each report costs its pass ~90 µs,
# measured: `default:` added 0.14 s on a 100 MB session) and costly to search for here (one
# pass over the text each). Common ones stay in Anchors.
NATIVE_ANCHORS_CASED = tuple(dict.fromkeys(TOKEN_FINDER.literals + CLI_ANCHORS + STRUCTURE_ANCHORS + LANGUAGE_ANCHORS
                                              + KEY_BLOCK_ANCHORS + SIGNING_KEY_ANCHORS + PHONE_LABELS + ID_LABELS
                                              + ID_KEY_LABELS + BIRTH_LABELS + SENDS + INSERT_ANCHORS
                                              + TABLE_ANCHORS + LOGIN_ANCHORS + AUTH_COMMAND_ANCHORS + MASK_ANCHORS
                                              + HCL_ANCHORS + CODE_ANCHORS_CASED + JWK_ANCHORS + STREET_ANCHORS
                                              + ADDRESS_LABELS + BOX_ANCHORS + COOKIE_STRING_ANCHORS
                                              + TYPED_ANCHORS + LINK_ANCHORS_CASED + HEADER_ANCHORS_TITLE
                                              + CALL_ANCHORS_CAMEL + ENCODED_ANCHORS + PEOPLE_ANCHORS))
NATIVE_ANCHORS_ANY_CASE = ("authorization", "bearer", "basic", "cookie", "mysql", "mariadb", "-u ", "-u\t",
                           "--user", ":\\/\\/", "sshpass", "pass:", *SIGNATURE_ANCHORS, *PHRASE_ANCHORS,
                           *PAIR_ANCHORS, *CODE_ANCHORS, *DEVICE_ANCHORS_RARE, *AT_ANCHORS,
                           *ACCOUNT_ANCHORS_RARE, *PRINTED_ANCHORS_RARE, *ACCESS_ANCHORS, *HEADER_ANCHORS,
                           *CALL_ANCHORS)
NATIVE_ANCHORS = frozenset(NATIVE_ANCHORS_CASED + NATIVE_ANCHORS_ANY_CASE)
CASED_ANCHORS = frozenset(NATIVE_ANCHORS_CASED)
