"""Credentials on command lines: the secret flags and arguments of known tools (CLI_SECRETS),
and values set by a command (`set -x NAME VALUE`) or an env-setting call.

CLI_ANCHORS is built here, before anything about anchors: _native.NATIVE_ANCHORS_CASED
is made of it (the engine reports where these commands occur).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._base import _ALNUM, CREDENTIAL, PLACEHOLDER_RE, Hit, is_template, left_ok, looks_random
from ._values import _OPEN_QUOTE, STOPWORDS, _closing_quote, accept_value, mixed_literal, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

# the end of the command (newline, `;`, `&`, `|`, `(`, `)`, a redirection). Where:
#   -p      the next word, or -p=VALUE           -p+   also attached: -pVALUE
#   -p*     attached only (-pVALUE; "-p VALUE" means something else there: 7z, xfreerdp /p:)
#   -U%     the flag's value is user%SECRET (also "," and ":"); only the part after it
#   #2      the 2nd argument that is not a flag (#-1: the last); #1/ user/SECRET[@db]
#   #-1?b   ... only when the short option b is given (htpasswd -b); `?Word`: when the word is
#           given, alone or after `=` (`--type SecureString`, `--type=SecureString`)
#   #1~     ... only a machine-made value (looks_random): "vault login first" is prose
#   #=      every argument KEY=VALUE: its VALUE (a secret store's write: each value is a secret
#           whatever its key; `@file` is a file's name)
#   --f=    the flag's value is KEY=VALUE: the VALUE (`--from-literal=db=X`)
# Not repeated here, older rules cover them: mysql* -pX (mysql-password), curl -u user:X
# (curl-user), sshpass -p (sshpass-password), openssl pass:X (openssl-pass); and any flag
# named like a secret, --password X, -Password X, --api-key=X (secret-assignment).
_MONGO = "-p --password"
_LDAP = "-w+"
CLI_SECRETS: tuple[tuple[str, str], ...] = (
    # registries and clouds
    ("docker login", "-p --password"), ("podman login", "-p --password"), ("nerdctl login", "-p --password"),
    ("buildah login", "-p --password"), ("skopeo login", "-p --password"), ("oras login", "-p --password"),
    ("helm registry login", "-p --password"), ("crane auth login", "-p --password"),
    ("az login", "-p --password"), ("az acr login", "-p --password"), ("oc login", "-p --password --token"),
    ("cf login", "-p"), ("cf auth", "#2"), ("expo login", "-p --password"), ("twine upload", "-p --password"),
    ("dotnet nuget push", "-k --api-key"), ("dotnet nuget add source", "-p --password"),
    ("nuget", "-Password -ApiKey"), ("gh secret set", "-b --body"), ("kubectl", "--token --password"),
    ("consul", "-token"), ("nomad", "-token"), ("vault login", "#1~"), ("cargo login", "#1~"),
    ("ngrok authtoken", "#1~"), ("ngrok config add-authtoken", "#1~"), ("snyk auth", "#1~"), ("wandb login", "#1~"),
    ("doctl auth init", "-t --access-token"), ("mc alias set", "#4"), ("mc config host add", "#4"),
    ("ConvertTo-SecureString", "#1 -String"),
    # databases, brokers, directories, shares, remote shells
    ("redis-cli", "-a --pass"), ("redis-server", "--requirepass --masterauth"),
    ("sqlcmd", "-P+"), ("bcp", "-P+"), ("osql", "-P+"), ("influx", "-password"),
    ("mongo", _MONGO), ("mongosh", _MONGO), ("mongodump", _MONGO), ("mongorestore", _MONGO),
    ("mongoexport", _MONGO), ("mongoimport", _MONGO), ("mongostat", _MONGO), ("mongotop", _MONGO),
    ("sqlplus", "#1/"), ("rabbitmqctl add_user", "#2"), ("rabbitmqctl change_password", "#2"),
    ("mosquitto_pub", "-P --pw"), ("mosquitto_sub", "-P --pw"),
    ("ldapsearch", _LDAP), ("ldapadd", _LDAP), ("ldapmodify", _LDAP), ("ldapdelete", _LDAP),
    ("ldapwhoami", _LDAP), ("ldapcompare", _LDAP), ("ldapmodrdn", _LDAP), ("ldapexop", _LDAP),
    ("ldappasswd", "-w+ -s -a"), ("smbclient", "-U% --user%"), ("rpcclient", "-U% --user%"),
    ("smbget", "-U% --user%"), ("smbmap", "-p"), ("psexec", "-p"), ("xfreerdp", "/p:* /password:*"),
    ("rdesktop", "-p"), ("lftp", "-u,"), ("snmpwalk", "-A -X"), ("snmpget", "-A -X"), ("snmpset", "-A -X"),
    # keys, archives, keychains
    ("keytool", "-storepass -keypass -srcstorepass -deststorepass -srckeypass -destkeypass -new"),
    ("jarsigner", "-storepass -keypass"), ("openssl", "-k"), ("ssh-keygen", "-N -P"),
    ("openssl passwd", "#-1"), ("mkpasswd", "#-1"),  # the password to hash (mkpasswd's last word)
    ("zip", "-P --password"), ("unzip", "-P"), ("7z", "-p*"), ("7za", "-p*"), ("rar", "-p*"), ("unrar", "-p*"),
    ("htpasswd", "#-1?b"), ("security add-generic-password", "-w"), ("security add-internet-password", "-w"),
    ("security unlock-keychain", "-p"), ("security create-keychain", "-p"),
    # secret stores: what is written to them is a secret, whatever its name
    ("fly secrets set", "#="), ("flyctl secrets set", "#="), ("doppler secrets set", "#="),
    ("supabase secrets set", "#="), ("vault kv put", "#="), ("vault kv patch", "#="),
    ("kubectl create secret generic", "--from-literal="), ("oc create secret generic", "--from-literal="),
    ("aws secretsmanager create-secret", "--secret-string"), ("aws secretsmanager put-secret-value", "--secret-string"),
    ("aws secretsmanager update-secret", "--secret-string"), ("az keyvault secret set", "--value"),
    ("vercel secrets add", "#2"), ("aws ssm put-parameter", "--value?SecureString"),
)


@dataclass(frozen=True, slots=True)
class CliSlot:
    """One place a command's secret is (a parsed CLI_SECRETS entry)."""

    flag: str = ""  # "" for a positional argument
    separate: bool = True  # -p VALUE, -p=VALUE
    attached: bool = False  # -pVALUE
    split: str = ""  # user%SECRET: the part after this char
    position: int = 0  # N-th plain argument, -1 the last
    when: str = ""  # a short option that must be given (one letter), or a word (`SecureString`)
    machine: bool = False  # the value must look machine-made
    pairs: bool = False  # every plain KEY=VALUE argument: its VALUE


def _cli_slot(spec: str) -> CliSlot:
    m = re.fullmatch(r"(?:#(?P<pos>-?\d|=)|(?P<flag>[-/][A-Za-z0-9:-]*?))(?P<mode>[+*]?)(?P<split>[%,:/=]?)"
                     r"(?:\?(?P<when>[A-Za-z][A-Za-z-]*))?(?P<machine>~?)", spec)
    if m is None:
        raise ValueError(f"bad CLI_SECRETS entry {spec!r}")
    mode = m["mode"]
    pairs = m["pos"] == "="
    return CliSlot(m["flag"] or "", mode != "*", mode in "+*" and mode != "", "=" if pairs else m["split"],
                   0 if pairs else int(m["pos"] or 0), m["when"] or "", m["machine"] == "~", pairs)


CLI_TABLE: dict[str, list[tuple[tuple[str, ...], tuple[CliSlot, ...]]]] = {}
for _cmd, _specs in CLI_SECRETS:
    _first, *_sub = _cmd.split()
    CLI_TABLE.setdefault(_first, []).append((tuple(_sub), tuple(_cli_slot(s) for s in _specs.split())))
for _entries in CLI_TABLE.values():  # the most words first: `kubectl create secret generic` before `kubectl`
    _entries.sort(key=lambda entry: -len(entry[0]))
# with the blank after it: "rar " is not in "library", and a command with a secret has arguments
CLI_ANCHORS = tuple(cmd + " " for cmd, _ in CLI_SECRETS)


# ---------------------------------------------------------------- command lines (CLI_SECRETS: above)
# Shell words: a word ends at whitespace or an operator; `\n` `\r` (JSON-escaped newlines)
# end the command, `\t` is a blank.
_WORD_STOP = frozenset(" \t\n\r;&|()<>`")
_COMMAND_END = frozenset("\n\r;&|()<>`#")
_QUOTES = frozenset("\"'")
CLI_MAX = 600  # chars of a command read after its name
_CLI_BEFORE = frozenset(" \t\n\r;&|(`'\"/=$")


def shell_words(text: str, pos: int, limit: int) -> Iterator[tuple[int, int]]:
    """Spans of the shell words from `pos` to the end of the command (or `limit`).

    A quote opens a string only at the start of a word or in a flag (`--body="x"`, `-p'x'`,
    `/p:"x"`); elsewhere it ends the word: in JSON text a bare `"` closes the string the
    command is in (`"cmd --token abc="`). A string not closed on its line ends the command."""
    i = pos
    while i < limit:
        c = text[i]
        if c in " \t":
            i += 1
            continue
        if c == "\\" and (esc := _escape_len(text, i)):
            if text[i + esc - 1] != "t":
                return  # an escaped newline ends the command
            i += esc
            continue
        if c in _COMMAND_END:
            return
        start = i
        while i < limit:
            c = text[i]
            if c in _WORD_STOP:
                break
            if c == "\\":
                if _escape_len(text, i):
                    break
                opener = _OPEN_QUOTE.match(text, i)
                if opener is None:
                    i += 2  # a shell escape: the next char is literal
                    continue
            elif c not in _QUOTES:
                i += 1
                continue
            opener = _OPEN_QUOTE.match(text, i)
            if opener is None or not (i == start or (text[start] in "-/" and (text[i - 1] in "=:" or i - start == 2))):
                break
            close = _closing_quote(text, opener.end(), opener.group())
            if close < 0 or "\n" in text[opener.end() : close]:
                return  # unclosed on its line: not one we can read (nor, batched, the next text's)
            i = close + len(opener.group())
        if i > start:
            yield start, min(i, limit)
        if i < limit and text[i] in _QUOTES:
            return  # a bare quote: the end of the JSON string holding the command


def _escape_len(text: str, i: int) -> int:
    """Length of a JSON-escaped newline/tab (`\\n`, `\\\\n`, `\\\\\\n`) at i, else 0."""
    j = i
    while j < len(text) and j - i < 3 and text[j] == "\\":
        j += 1
    return j - i + 1 if j < len(text) and text[j] in "nrt" and j > i else 0


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    """The span inside the quotes of a quoted word (part), else the part itself."""
    opener = _OPEN_QUOTE.match(text, start)
    if opener is not None and text.endswith(opener.group(), start, end) and end - start >= 2 * len(opener.group()):
        return start + len(opener.group()), end - len(opener.group())
    return start, end


def cli_literal(value: str) -> bool:
    """A literal secret, not a reference (`$PW`, `%PW%`, `$(cat f)`), a word or a placeholder."""
    return len(value) >= 3 and not is_template(value) and not PLACEHOLDER_RE.search(value) and (
        value.lower() not in STOPWORDS)


def cli_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The secret flag values and arguments of the tools in CLI_SECRETS."""
    seen = -1
    for i in anchors.find(CLI_ANCHORS):
        if i <= seen or not (i == 0 or text[i - 1] in _CLI_BEFORE or (text[i - 1] in _ALNUM and left_ok(text, i))):
            continue
        seen = i
        end = text.find(" ", i, i + 64)
        for sub, slots in CLI_TABLE.get(text[i:end], ()):
            words = list(shell_words(text, end, min(len(text), end + CLI_MAX)))
            if len(words) > len(sub) and all(text[s:e] == w for (s, e), w in zip(words, sub, strict=False)):
                for slot, start, stop in _cli_values(text, words[len(sub) :], slots):
                    value = text[start:stop]
                    if "\\" in value:
                        anchors.want_json_view = True  # the exact value is read in the unescaped view
                    elif cli_literal(value) and (not slot.machine or looks_random(value, 16)):
                        yield Hit(start, stop, CREDENTIAL, "cli-secret")
                seen = words[-1][1] if words else seen  # the rest of this command was read
                break


def _cli_values(text: str, words: list[tuple[int, int]],
                slots: tuple[CliSlot, ...]) -> Iterator[tuple[CliSlot, int, int]]:
    """Where the secrets are among a command's words (spans of the values, unquoted)."""
    plain = [(s, e) for s, e in words if text[s] != "-" or e - s == 1]
    shorts = "".join(text[s + 1 : e] for s, e in words if text[s] == "-" and text[s + 1 : s + 2] != "-")
    for slot in slots:
        if slot.when and not _given(text, words, slot.when, shorts):
            continue
        if slot.pairs:
            for s, e in plain:
                vs, ve = _unquoted(text, s, e)
                cut = text.find("=", vs, ve)
                if cut <= vs:
                    continue  # no KEY=
                if cut + 1 == ve and (opener := _OPEN_QUOTE.match(text, ve)) is not None:
                    close = _closing_quote(text, opener.end(), opener.group())  # KEY='VALUE' (the word
                    if close > opener.end():  # ends at the quote: shell_words)
                        yield slot, opener.end(), close
                elif cut + 1 < ve and text[cut + 1] != "@":
                    yield slot, cut + 1, ve
            continue
        if slot.position:
            if len(plain) >= abs(slot.position):
                yield from _split(slot, text, *_unquoted(text, *plain[slot.position - (slot.position > 0)]))
            continue
        n = len(slot.flag)
        for k, (s, e) in enumerate(words):
            word = text[s:e]
            if word == slot.flag and slot.separate and k + 1 < len(words):
                vs, ve = words[k + 1]
                if text[vs] != "-":
                    yield from _split(slot, text, *_unquoted(text, vs, ve))
            elif word.startswith(slot.flag) and e - s > n:
                if word[n] == "=" and slot.separate:
                    yield from _split(slot, text, *_unquoted(text, s + n + 1, e))
                elif slot.attached:
                    yield from _split(slot, text, *_unquoted(text, s + n, e))


def _given(text: str, words: list[tuple[int, int]], when: str, shorts: str) -> bool:
    if len(when) == 1:
        return when in shorts
    return any(text[s:e] == when or text.endswith("=" + when, s, e) for s, e in words)


def _split(slot: CliSlot, text: str, start: int, end: int) -> Iterator[tuple[CliSlot, int, int]]:
    """user%SECRET -> SECRET (user/SECRET@db -> SECRET); no user, or no separator: nothing."""
    sep = slot.split
    if not sep:
        yield slot, start, end
        return
    cut = text.find(sep, start, end)
    if cut > start:
        stop = text.rfind("@", cut, end) if sep == "/" else -1
        yield slot, cut + 1, stop if stop > cut else end


# `set -x NAME VALUE` (fish), `setx NAME VALUE` (cmd), `setenv NAME VALUE` (csh), `aws configure set NAME VALUE`,
# `npm config set //host/:_authToken VALUE`, `git config --global NAME VALUE`,
# `Set-Item Env:NAME -Value VALUE`: a verb that sets a variable right before its name.
# (Not a bare `env:NAME`: that is also openssl's `-passin env:VAR`, a reference.)
# (fish: -e erases, -q queries, -n/-S list: no value follows.)
_SETTER = re.compile(
    r"(?:(?<![\w.-])(?:set(?P<flags>(?:[ \t]+--?[A-Za-z]+)*)|setx|setenv"
    r"|(?:npm|yarn|pnpm)[ \t]+config[ \t]+set|npm[ \t]+set"
    r"|aws[ \t]+configure[ \t]+set|git[ \t]+config(?:[ \t]+--(?:global|local|system|worktree))?"
    r"|user-secrets[ \t]+set|poetry[ \t]+config)[ \t]+(?:\S{0,80}:)?"
    r"|(?:[Ss]et|[Nn]ew)-[Ii]tem(?:[ \t]+-[Pp]ath)?[ \t]+[Ee]nv:)$")
_SETTER_WORDS = ("set", "config", "-Item", "-item")
_SETTER_VALUE = re.compile(r"[ \t]+(?:-[Vv]alue[ \t]+)?")
# SetEnvironmentVariable("NAME", "VALUE"), os.Setenv("NAME", "VALUE"), setenv/putenv, setdefault
_ENV_CALL = re.compile(r"(?:SetEnvironmentVariable|[Ss]etenv|putenv|setdefault)[ \t]*\([ \t]*\\{0,3}[\"']$")
# Any other call given the name, then the value: PHP's define('DB_PASSWORD', 'VALUE'),
# config.set("db_password", "VALUE"), setProperty: the value must look like a secret on its own
# (`setError("password", "Too short")`, `t("password", "Passwort")` stay)
_ANY_CALL = re.compile(r"[A-Za-z_$][\w$]*[ \t]*\([ \t]*\\{0,3}[\"']$")
_ENV_CALL_NEXT = re.compile(r"\\{0,3}[\"'][ \t]*,[ \t]*")
_NO_VALUE_FLAGS = frozenset("eqnS")


def setter_value(text: str, start: int, end: int, name: str, tier: int, anchors: Anchors) -> Hit | None:
    """The value of NAME set by a command (`set -x NAME VALUE`) or given after it to a call."""
    window = text[max(0, start - 120) : start]
    if "(" in window[-40:] and ((env := _ENV_CALL.search(window)) is not None or _ANY_CALL.search(window)):
        nxt = _ENV_CALL_NEXT.match(text, end)
        opener = _OPEN_QUOTE.match(text, nxt.end()) if nxt is not None else None
        if opener is None:
            return None  # a variable, not a literal
        close = _closing_quote(text, opener.end(), opener.group())
        value = text[opener.end() : close]
        if close < 0 or "\\" in value:
            anchors.want_json_view = True
        elif accept_value(name, tier, value, quoted=True) and (env is not None or (
                looks_random(value, 16) if tier == 2 else password_like(value, 6) or mixed_literal(value))):
            return Hit(opener.end(), close, CREDENTIAL, "secret-assignment")
        return None
    if not any(w in window for w in _SETTER_WORDS) or (m := _SETTER.search(window)) is None:
        return None
    flags = m.group("flags") or ""
    if any(c in _NO_VALUE_FLAGS for word in flags.split() if not word.startswith("--") for c in word) or any(
            word in ("--erase", "--query", "--names", "--show") for word in flags.split()):
        return None
    sep = _SETTER_VALUE.match(text, end)
    if sep is None:
        return None
    word = next(shell_words(text, sep.end(), min(len(text), sep.end() + 1024)), None)
    if word is None or word[0] != sep.end() or text[word[0]] in "-=:":
        return None
    vstart, vend = _unquoted(text, *word)
    value = text[vstart:vend]
    if "\\" in value:
        anchors.want_json_view = True
        return None
    if accept_value(name, tier, value, quoted=True) and cli_literal(value):
        return Hit(vstart, vend, CREDENTIAL, "secret-assignment")
    return None



def _flag_value(text: str, name: str, tier: int, vstart: int, spaced: bool, anchors: Anchors) -> Hit | None:
    """The bare value of `--name value` / `--name=value`: one shell word, exactly (a `,` or a
    trailing `.` is part of it); after a blank, a word starting with "-" is the next flag."""
    word = _CLI_BARE.match(text, vstart)
    if word is None or (spaced and text[vstart] == "-"):
        return None
    stop = word.end()
    if text[stop : stop + 1] == "\\" and text[stop + 1 : stop + 2] not in ("n", "r", "t", '"', ""):
        anchors.want_json_view = True
    if accept_value(name, tier, word.group(), quoted=True) and cli_literal(word.group()):
        return Hit(vstart, stop, CREDENTIAL, "secret-assignment")
    return None



_CLI_BARE = re.compile(r"[^\s\"'`\\;&|<>()]{1,1024}")
