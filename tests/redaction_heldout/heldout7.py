"""A seventh held-out set, written in one sitting before any rule change made from it: personal
data as it stands in what agents read and write (git metadata, vCards, HTTP headers, shipping
records, support tickets, forms, logs of other countries), of the kinds forsy masks: e-mail
addresses, phone numbers, postal addresses, government numbers, dates of birth, public IP
addresses, card and bank numbers, a home folder's user. See heldout.py for how these sets are
used."""

from __future__ import annotations

from heldout import Case, _Gen

FIRST = ("amelia", "bruno", "chloe", "dmitri", "elena", "farid", "greta", "hiroshi", "ines", "jonas")
LAST = ("okafor", "lindqvist", "moreau", "takahashi", "brennan", "kowalski", "haddad", "ferreira", "novak", "quinn")
STREETS = ("Maple Avenue", "Harbor Road", "Linden Street", "Orchard Lane", "Granite Way", "Willow Court")
CITIES = (("Springfield", "IL", "627"), ("Portland", "OR", "972"), ("Austin", "TX", "787"), ("Madison", "WI", "537"))


def _luhn(body: str) -> str:
    """`body` with the check digit that makes it pass the Luhn test."""
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return body + str((10 - total % 10) % 10)


def _iban(country: str, bban: str) -> str:
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def heldout7_cases(seed: int = 3) -> list[Case]:
    g = _Gen(seed + 600)
    out: list[Case] = []

    def person() -> tuple[str, str]:
        return g.rng.choice(FIRST), g.rng.choice(LAST)

    def email() -> str:
        f, last = person()
        host = g.rng.choice(("gmail.com", "outlook.de", "proton.me", "acme-corp.io"))
        return f"{f}.{last}{g.rng.randint(1, 99)}@{host}"

    def add(category: str, form: str, template: str, value: str) -> None:
        out.append(Case(category, form, (template.replace("{S}", value),), (value,)))

    c = "email"
    add(c, "git log Author", "commit 3f2a9c1\nAuthor: Jane Roe <{S}>\nDate:   Tue Mar 4 10:12:03 2025 +0100", email())
    add(c, "Co-authored-by trailer", "Fix the parser\n\nCo-authored-by: Sam Lee <{S}>", email())
    add(c, "mailto link", '<a href="mailto:{S}?subject=Refund">write to us</a>', email())
    add(c, "obfuscated [at] [dot]", "contact: {S}", "elena.novak [at] proton [dot] me")
    add(c, "obfuscated (at)", "Send the logs to {S} please", "farid(at)haddad-family.net")
    add(c, "URL-encoded in a query", "GET /api/users?email={S}&page=2", "greta.quinn%40outlook.de")
    add(c, "plus tag", "Invite sent to {S}", "ines.ferreira+staging@gmail.com")
    add(c, "display name quoted", 'To: "Kowalski, Bruno" <{S}>', email())
    add(c, "IDN address", "Kontakt: {S}", "jürgen.müller@beispiel-firma.de")
    add(c, "in a stack trace", "ValidationError: user {S} already exists (code 409)", email())

    c = "phone"
    add(c, "US parentheses", "Call the customer back at {S} after 5pm", f"({g.digits(3)}) {g.digits(3)}-{g.digits(4)}")
    add(c, "US dots", "cell: {S}", f"{g.digits(3)}.{g.digits(3)}.{g.digits(4)}")
    add(c, "UK +44", "Tel +44 {S}", f"20 {g.digits(4)} {g.digits(4)}")
    add(c, "German (0)", "Telefon: {S}", f"+49 (0)30 {g.digits(6)}")
    add(c, "Japan", "電話番号: {S}", f"090-{g.digits(4)}-{g.digits(4)}")
    add(c, "India mobile", "mobile no. {S}", f"+91 9{g.digits(4)} {g.digits(5)}")
    add(c, "China mobile", "手机: {S}", f"+86 13{g.digits(1)} {g.digits(4)} {g.digits(4)}")
    add(c, "tel: link", '<a href="tel:{S}">call</a>', f"+1{g.digits(10)}")
    add(c, "vCard TEL", "BEGIN:VCARD\nVERSION:3.0\nFN:Chloe Moreau\nTEL;TYPE=cell:{S}\nEND:VCARD",
        f"+33 6 {g.digits(2)} {g.digits(2)} {g.digits(2)} {g.digits(2)}")
    add(c, "wa.me link", "Message me on https://wa.me/{S}", f"34{g.digits(9)}")
    add(c, "JSON phone field", '{"customer": {"name": "A. Brennan", "phone_number": "{S}"}}',
        f"+1-{g.digits(3)}-{g.digits(3)}-{g.digits(4)}")

    c = "postal address"
    street = f"{g.rng.randint(10, 9999)} {g.rng.choice(STREETS)}"
    city, state, z = g.rng.choice(CITIES)
    add(c, "US one line", "Ship to: {S}", f"{street}, {city}, {state} {z}{g.digits(2)}")
    add(c, "UK postcode", "Deliver to {S}", f"{g.rng.randint(1, 200)} Kingsway, London WC2B {g.digits(1)}RH")
    add(c, "German", "Adresse: {S}", f"Lindenstraße {g.rng.randint(1, 120)}, 10{g.digits(3)} Berlin")
    add(c, "French", "Adresse de livraison : {S}", f"{g.rng.randint(1, 90)} rue de la République, 69002 Lyon")
    add(c, "Japanese", "住所: {S}",
        f"〒150-{g.digits(4)} 東京都渋谷区神南{g.rng.randint(1, 3)}-{g.rng.randint(1, 30)}-1")
    add(c, "PO Box", "Mail: {S}", f"P.O. Box {g.digits(4)}, {city}, {state} {z}{g.digits(2)}")
    add(c, "vCard ADR", "ADR;TYPE=home:;;{S};Springfield;IL;62704;USA", f"{g.rng.randint(10, 999)} Elm Street")
    add(c, "JSON shipping line1",
        '{"shipping": {"address": {"line1": "{S}", "city": "Austin", "postal_code": "78701"}}}',
        f"{g.rng.randint(100, 9999)} Congress Avenue Apt {g.rng.randint(1, 40)}")
    add(c, "multi-line label", "Billing address:\n{S}\nSpringfield, IL 62704", f"{g.rng.randint(10, 999)} Oak Street")

    c = "government number"
    add(c, "SSN dashes", "Applicant SSN: {S}", f"{g.rng.randint(100, 665)}-{g.digits(2)}-{g.digits(4)}")
    add(c, "SSN in prose", "her social security number is {S}",
        f"{g.rng.randint(100, 665)}-{g.digits(2)}-{g.digits(4)}")
    add(c, "UK NINO", "National Insurance number: {S}", f"QQ {g.digits(2)} {g.digits(2)} {g.digits(2)} C")
    add(c, "India Aadhaar", "Aadhaar: {S}", f"{g.rng.randint(2, 9)}{g.digits(3)} {g.digits(4)} {g.digits(4)}")
    add(c, "India PAN", "PAN card no. {S}", f"ABCPK{g.digits(4)}L")
    add(c, "Brazil CPF", "CPF: {S}", f"{g.digits(3)}.{g.digits(3)}.{g.digits(3)}-{g.digits(2)}")
    add(c, "Spain DNI", "DNI {S}", f"{g.digits(8)}Z")
    add(c, "passport JSON", '{"traveller": {"passport_number": "{S}", "nationality": "DE"}}', f"C{g.digits(8)}")
    add(c, "driver's licence", "Driver's license #: {S}", f"D{g.digits(3)}-{g.digits(4)}-{g.digits(4)}")
    add(c, "Canada SIN", "SIN: {S}", f"{g.digits(3)} {g.digits(3)} {g.digits(3)}")

    c = "date of birth"
    add(c, "DOB slash", "Patient DOB: {S}", f"{g.rng.randint(1, 12):02d}/{g.rng.randint(1, 28):02d}/19{g.digits(2)}")
    add(c, "born on words", "She was born on {S} in Porto.", f"{g.rng.randint(1, 28)} March 19{g.digits(2)}")
    add(c, "JSON birthdate", '{"user": {"birthdate": "{S}"}}',
        f"19{g.digits(2)}-0{g.rng.randint(1, 9)}-1{g.rng.randint(0, 9)}")
    add(c, "form field", "date_of_birth={S}&country=PT",
        f"19{g.digits(2)}-1{g.rng.randint(0, 2)}-0{g.rng.randint(1, 9)}")
    add(c, "German", "Geburtsdatum: {S}", f"{g.rng.randint(10, 28)}.0{g.rng.randint(1, 9)}.19{g.digits(2)}")

    c = "public IP address"
    ip4 = ".".join(str(n) for n in (g.rng.choice((81, 92, 146, 185, 212)), *(g.rng.randint(1, 254) for _ in range(3))))
    add(c, "X-Forwarded-For", "X-Forwarded-For: {S}, 10.0.0.3", ip4)
    add(c, "nginx access log", '{S} - - [04/Mar/2025:10:12:03 +0000] "GET /login HTTP/1.1" 200 512', ip4)
    add(c, "sshd log", "Accepted publickey for deploy from {S} port 51234 ssh2", ip4)
    add(c, "IPv6", "client address {S} connected", f"2a02:{g.chars('0123456789abcdef', 4)}:8f0:1::{g.digits(2)}")
    add(c, "JSON remote_ip", '{"event": "login", "remote_ip": "{S}"}', ip4)

    c = "card and bank"
    card = _luhn("4" + g.digits(14))
    add(c, "card spaced", "Card: {S} exp 09/27", " ".join(card[i:i + 4] for i in range(0, 16, 4)))
    add(c, "card in JSON", '{"payment": {"card_number": "{S}", "exp": "09/27"}}', _luhn("5" + g.digits(14)))
    iban = _iban("DE", g.digits(18))
    add(c, "IBAN spaced", "IBAN: {S}", " ".join(iban[i:i + 4] for i in range(0, 22, 4)))
    add(c, "IBAN compact in prose", "please wire it to {S} by Friday", _iban("FR", g.digits(23)))
    add(c, "US routing/account", "Routing 021000021, account number {S}", g.digits(10))

    c = "home folder's user"
    user = g.rng.choice(FIRST) + g.rng.choice(LAST)[:3]
    add(c, "WSL path", "cd /mnt/c/Users/{S}/projects/app", user)
    add(c, "Windows escaped", '{"cwd": "C:\\\\Users\\\\{S}\\\\source\\\\repos\\\\api"}', user)
    add(c, "tilde user", "ls ~{S}/.config", user)
    add(c, "macOS Volumes", "open /Volumes/Macintosh HD/Users/{S}/Desktop/notes.txt", user)
    add(c, "UNC share", r"copy \\fileserver\home$\{S}\report.docx .", user)
    return out


def heldout7_lookalikes(seed: int = 3) -> list[str]:
    """Text that must come out unchanged: the same shapes holding no personal data."""
    g = _Gen(seed + 601)
    return [
        "version 10.2.3.4 released",
        "listening on 10.0.0.12:8080 and 192.168.1.20",
        "ISBN 978-3-16-148410-0",
        "released on 2024-03-12 (see CHANGELOG)",
        "build 2025.03.04 took 12.5 s",
        f"order #{g.digits(8)} shipped",
        "HTTP/1.1 404 Not Found",
        "Call 911 in an emergency",
        "python 3.11.7 (main, Dec 8 2023, 18:56:58)",
        "git@github.com:acme/widgets.git",
        "the function phone_number_format() returns a string",
        "dob_format = '%Y-%m-%d'",
        "SSN: the nine-digit number, see the docs",
        "Co-authored-by: dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
        "cd /home/runner/work/app",
        "C:\\Users\\Public\\Documents",
        "~/.config/app/settings.json",
        "123 tests passed, 4 skipped",
        "sha256: 4f2a9c1e0b",
        "Port 51234 is in use",
        "x = 1234 5678 9012 3456  # a matrix of digits in a test",
    ]
