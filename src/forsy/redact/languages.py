"""Secrets named in the person's own language: `Passwort: X`, `密码是X`, `пароль — X`, `senha: X`.

People write to agents in their own language, and the other rules know the English names
only (`password`, `token`, `api_key`…). Here the word for "password" (and, where a language
has its own, for "token" or "secret key") in the languages agents are used in most is a label;
the value after it, past a separator or a short linking word (`ist`, `est`, `是`, `は`…), is
masked when it looks like a secret on its own. A language's word alone proves nothing, so the
value decides, as in English prose: `Passwort: falsch` and `密码错误` stay.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit, after_escape, is_template, longest_at, looks_random, wide
from ._values import code_like, is_doc_placeholder, mixed_case_literal, mixed_literal, password_like
from .prose import typed_password

if TYPE_CHECKING:
    from ._anchors import Anchors

# The word for a password a person chose (lower case, as written). `compound`: the language
# joins words, so the word may end a longer one (`Datenbankpasswort`, `rootwachtwoord`).
PASSWORD_WORDS: tuple[str, ...] = (
    "passwort", "kennwort",  # German
    "wachtwoord",  # Dutch
    "lösenord", "losenord",  # Swedish
    "passord",  # Norwegian
    "adgangskode",  # Danish
    "salasana",  # Finnish
    "mot de passe",  # French
    "contraseña", "contrasena",  # Spanish
    "senha",  # Portuguese
    "parola",  # Romanian, Turkish
    "şifre", "sifre",  # Turkish
    "hasło", "haslo",  # Polish
    "heslo",  # Czech, Slovak
    "jelszó", "jelszo",  # Hungarian
    "lozinka", "лозинка",  # Croatian, Serbian
    "пароль", "пароля", "паролем", "паролі",  # Russian, Ukrainian, Bulgarian
    "κωδικός", "συνθηματικό",  # Greek
    "mật khẩu", "mat khau",  # Vietnamese
    "kata sandi", "kata laluan",  # Indonesian, Malay
    "密码", "密碼", "口令",  # Chinese
    "パスワード", "暗証番号",  # Japanese
    "비밀번호", "패스워드", "암호",  # Korean
    "รหัสผ่าน",  # Thai
    "पासवर्ड",  # Hindi
    "סיסמה", "סיסמא",  # Hebrew
    "كلمة المرور", "كلمة السر",  # Arabic
    "رمز عبور",  # Persian
)
# A secret, which is a password in English too (but names what a machine made as well)
SECRET_WORDS = ("secreto", "segreto", "segreta", "segredo", "geheimnis")
PASSWORD_WORDS += SECRET_WORDS
# A name in code joins the words of a multi-word one: `mot_de_passe`, `motdepasse`, `kata_sandi`
PASSWORD_WORDS += tuple(dict.fromkeys(f for w in PASSWORD_WORDS if " " in w for f in (w.replace(" ", "_"),
                                                                                      w.replace(" ", ""))))
# Words for a machine-made secret (a token, a key, a secret): only a token-like value is one
# (`la clave es …` is as often "the key point is …")
TOKEN_WORDS = (
    "密钥", "秘钥", "金鑰", "令牌", "トークン", "シークレット", "토큰", "시크릿", "токен",
    "clave", "chiave", "chave", "clé", "schlüssel", "schluessel", "sleutel", "nyckel", "nøgle", "nøkkel",
    "avain", "klucz", "klíč", "ключ",  # key: Spanish, Italian, Portuguese, French, German, Dutch, Nordic, Polish...
    "jeton", "gettone",  # token: French, Italian
)
# The verb that links the word for a password to its value, as English's "is" does (`Passwort
# ist X`, `la contraseña es X`, `a senha é X`, `heslo je X`): right after it, or right after the
# word, a password a person typed is one too (`typed_password`: `tangerine-velvet-88`), as it is
# in English prose; after other words (`Passwort für server-2024-01`) it must look like one alone
LINKING_VERBS = frozenset({
    "ist", "lautet", "war",  # German
    "is", "was", "luidt",  # Dutch
    "är", "var", "er",  # Swedish, Norwegian, Danish
    "on", "oli",  # Finnish
    "est", "était", "sera",  # French
    "es", "era", "será", "sería",  # Spanish
    "é", "seria",  # Portuguese
    "è", "sarà",  # Italian
    "este",  # Romanian
    "to", "jest", "brzmi", "było",  # Polish
    "je", "bylo", "glasi",  # Czech, Slovak, Croatian
    "это", "был", "це", "є", "је", "гласи",  # Russian, Ukrainian, Serbian
    "είναι", "ήταν",  # Greek
    "là",  # Vietnamese
    "adalah", "ialah",  # Indonesian, Malay
    "היא", "הוא",  # Hebrew
    "هي",  # Arabic
})
COMPOUND = frozenset({"passwort", "kennwort", "wachtwoord", "lösenord", "losenord", "passord", "adgangskode",
                      "salasana", "schlüssel", "schluessel", "sleutel", "nyckel", "nøgle", "nøkkel", "avain"})


def _variants(word: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((word, word.capitalize(), word.upper())))


# Every form looked for, exact case (lower, Capitalised, UPPER): the engine reports them in
# its one pass (_native.py); its ASCII-only case folding would miss `Пароль`
ANCHORS = tuple(dict.fromkeys(v for w in (*PASSWORD_WORDS, *TOKEN_WORDS) for v in _variants(w)))
_WORD_OF = {v: w for w in (*PASSWORD_WORDS, *TOKEN_WORDS) for v in _variants(w)}
_LONGEST_FIRST = tuple(sorted(ANCHORS, key=len, reverse=True))
_TOKEN = frozenset(TOKEN_WORDS)

_SEPARATORS = frozenset(":=：＝-—–")
_NAME_TAIL = re.compile(r"(?:[_.-]?[A-Za-z0-9])+(?=[\s\"'`:=])")
_OPENERS = frozenset("\"'`“‘「『«")
_CLOSERS = frozenset("\"'`”’」』»")
# what ends a sentence after a value and is not the value's: not `!`, which ends many a password
# a person made (`Sommer2024!`), and is masked with it when it ends the sentence instead
_TRAILING = ".,;:?)]}。，；：！？、）"
_GLUE_MAX = 2  # linking words between the name and the value: `ist`, `lautet`, `est`, `是`, `为`
_GLUE_LEN = 7
_VALUE_MAX = 256


def language_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value after a word for "password" (or "token") in another language."""
    done = -1
    for i in anchors.find(ANCHORS):
        if i < done:
            continue
        found = longest_at(text, i, _LONGEST_FIRST)
        if found is None:
            continue
        word = _WORD_OF[found]
        end = i + len(found)
        if not wide(found[0]):
            before = text[i - 1] if i > 0 else " "
            if before.isalpha() and not (word in COMPOUND and found == word) and not after_escape(text, i):
                continue  # inside a longer word, unless a compound ends in it (`Datenbankpasswort`)
            if end < len(text) and text[end].isalpha():
                continue  # `Passwortmanager`, `passwords`
            if (tail := _NAME_TAIL.match(text, end)) is not None:
                end = tail.end()  # a name in code (`SENHA_ADMIN`, `clave_api`): the value follows all of it
        hit = _value_after(text, end, token=word in _TOKEN)
        if hit is not None:
            done = hit.end
            yield hit


def _value_after(text: str, pos: int, *, token: bool) -> Hit | None:
    n = len(text)
    label = False
    glue = 0
    typed = True  # no word but a linking verb between the label's word and the value
    pos = _past_quote(text, pos, _CLOSERS)  # a quoted key: `"passwort": "X"`, `\\"passwort\\": …`
    while pos < n:
        while pos < n and text[pos] in " \t\u3000":
            pos += 1
        if pos < n and text[pos] in _SEPARATORS and not label:
            label = True
            pos += 1
            continue
        if glue >= _GLUE_MAX or pos >= n:
            break
        # a linking word: a short run of letters (`ist`, `est`, `是`, `は`, `는`), never the value
        stop = pos
        run_wide = wide(text[pos])
        while stop < n and stop - pos < _GLUE_LEN and text[stop].isalpha() and wide(text[stop]) == run_wide and (
                not run_wide or stop - pos < 2) and not (text[stop].isascii() and not text[stop].islower()):
            stop += 1
        if stop == pos or (not run_wide and stop < n and text[stop].isalnum()):
            break  # no word here, or the value itself (`ist Zq8v…` stops at `Zq8v…`)
        glue += 1
        typed = typed and text[pos:stop].lower() in LINKING_VERBS
        label = label or run_wide  # `密码是X`, `パスワードはX`: a particle links a label to its value
        pos = stop
    if pos >= n:
        return None
    start = _past_quote(text, pos, _OPENERS)
    quoted = start > pos
    while quoted and start < n and text[start] in " \u00a0\u202f":  # French quotes: `« X »`
        start += 1
    stop = start
    while stop < n and stop - start < _VALUE_MAX and not text[stop].isspace() and not wide(text[stop]) and (
            text[stop] not in _CLOSERS and text[stop] != "\\"):  # `X\n` in escaped text: the escape is not X's
        stop += 1
    value = text[start:stop]
    if not quoted:
        value = value.rstrip(_TRAILING)
    # a machine-made value, not a name in code nor a capitalised word (`Einstellungen`)
    machine_made = ((label or quoted) and value.isalnum() and looks_random(value, 12)
                    and sum(c.isupper() or c.isdigit() for c in value[1:]) >= 2)
    if not value or is_template(value) or is_doc_placeholder(value) or (code_like(value) and not machine_made):
        return None
    if token:
        ok = looks_random(value, 16)
    elif label or quoted:  # a machine-made value too, letters only (`密码：uwbjWEMFmPpLnLVU`)
        ok = password_like(value, 6) or mixed_literal(value) or _letters_and_digits(value, 6) or machine_made
    else:  # prose: `Passwort ist X`, `密码是X` (`ändern in Windows10`: a word, not a value)
        ok = password_like(value) or mixed_case_literal(value) or (typed and typed_password(value))
    return Hit(start, start + len(value), CREDENTIAL, "language-secret") if ok else None


# Letters and digits run together (`MiClave2024`, `MinhaSenha2024`): what a person makes a
# password of, and what English's `password: X` masks too. Not with `.`, `:`, `/` or `-`, which
# make versions, times, dates and paths (`v2.1`, `10:22`, `2024-05-01`).
_LETTERS_AND_DIGITS = re.compile(r"(?=[^\d]*\d)(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9!@#$%^&*_+=?]+")


def _letters_and_digits(value: str, n: int) -> bool:
    return len(value) >= n and _LETTERS_AND_DIGITS.fullmatch(value) is not None


def secret_field(key: str, value: str) -> bool:
    """A dict entry named in another language (`{"passwort": X}`, `{"数据库密码": X}`,
    `{"db_contraseña": X}`) whose value looks like a secret on its own, as after a label."""
    word = key_word(key)
    if word is None:
        return False
    value = value.strip()
    if not value or is_template(value) or is_doc_placeholder(value) or code_like(value):
        return False
    if word in _TOKEN:
        return looks_random(value, 16)
    return password_like(value, 6) or mixed_literal(value)


_ONLY_PASSWORDS = sorted((w for w in PASSWORD_WORDS if w not in SECRET_WORDS), key=len, reverse=True)
_PASSWORD_LONGEST = len(_ONLY_PASSWORDS[0])
# the word at the end of the text, after a character that is no letter (or after any, for a
# word of a wide script and for the last word of a compound: `数据库密码`, `Datenbankpasswort`)
_ENDS_IN_PASSWORD = re.compile(
    r"(?:(?<![^\W\d_])(?:" + "|".join(re.escape(w) for w in _ONLY_PASSWORDS) + ")"
    + "|(?:" + "|".join(re.escape(w) for w in _ONLY_PASSWORDS if wide(w[0]) or w in COMPOUND) + r"))\Z")


def ends_in_password_word(text: str) -> bool:
    """`text` ends in a word for a password (`mein Passwort`, `le mot de passe`, `数据库密码`,
    `Datenbankpasswort`), not in a longer word ending in one (`desenha`, Portuguese for "draws",
    ends in `senha`); not in a word for a secret (`el secreto`)."""
    return _ENDS_IN_PASSWORD.search(text[-_PASSWORD_LONGEST - 1 :].lower()) is not None


_BY_LENGTH = sorted((*PASSWORD_WORDS, *TOKEN_WORDS), key=len, reverse=True)


@functools.lru_cache(maxsize=4096)
def key_word(key: str) -> str | None:
    """The word for a password or token a dict key is named by, if any (keys repeat in every
    record of a log: asked once each)."""
    low = key.lower().strip()
    m = _ANY_WORD.search(low)
    return m.group() if m is not None and _whole_word(low, m.group()) else None


_ANY_WORD = re.compile("|".join(re.escape(w) for w in _BY_LENGTH))  # longest first: `пароля` before `пароль`


def _whole_word(key: str, word: str) -> bool:
    """`word` in `key` as a word of its own (or ending a compound): `db_passwort`, `数据库密码`,
    `datenbankpasswort`; not `passwortmanager`."""
    at = key.find(word)
    end = at + len(word)
    if wide(word[0]):
        return True
    if end < len(key) and key[end].isalpha():
        return False
    return at == 0 or not key[at - 1].isalpha() or word in COMPOUND


def _past_quote(text: str, pos: int, quotes: frozenset[str]) -> int:
    """Past a quote at `pos`, escaped or not (`"`, `\\"` in JSON-escaped text), or `pos`."""
    at = pos
    while at < len(text) and at - pos < 3 and text[at] == "\\":
        at += 1
    return at + 1 if at < len(text) and text[at] in quotes else pos
