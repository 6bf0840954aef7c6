"""A password given by its place to a call that signs in or opens a protocol's client: past a
connection or an identity (`ldap_bind($link, dn, X)`, `PlainAuth("", user, X, host)`), to a
`…Async` sign-in, to `Bind(dn, X)`, to a credentials type's constructor (`Credentials::new`,
a literal converted on the spot), alone (`auth(X)`: Redis's AUTH takes the password only),
among a protocol client's settings (`Net::POP3.start(…)`, `Redis(…)`, `…Connection(…)`,
Erlang's `:ftp.user`), and at a Redis prompt (`host:port> AUTH [user] X`). Look-alikes: a
variable, an environment look-up, a host, a plain word, prose quoted in markdown."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor


@pytest.mark.parametrize(("text", "secret"), [
    ('ok := ldap_bind($link, "uid=svc,ou=apps,dc=corp,dc=example", "Tw4!mQe8zR");', "Tw4!mQe8zR"),
    ('a := smtp.PlainAuth("", "reports", "Hq7vX2nLp5", "mail.corp.example")', "Hq7vX2nLp5"),
    ('await smtp.AuthenticateAsync("reports", "Zp6nW4rT1x");', "Zp6nW4rT1x"),
    ('err = l.Bind("cn=reader,dc=corp,dc=example", "Lb8qN2vZ5s")', "Lb8qN2vZ5s"),
    ('let c = Credentials::new("relay".to_owned(), "Rc3mK7xP9w".to_owned());', "Rc3mK7xP9w"),
    ("creds = Aws::Credentials.new('AKIDEXAMPLEID', 'Gy5tH8qL2z')", "Gy5tH8qL2z"),
    ("$redis->auth('Qn4xB7kW2pLs');", "Qn4xB7kW2pLs"),
    ('red.auth("Vm3zT9qR6nKp")', "Vm3zT9qR6nKp"),
    ("pop = Net::POP3.start('pop.corp.example', 110, 'inbox', 'Pq2wE8rT5y')", "Pq2wE8rT5y"),
    ('rc = redis.Redis("cache.corp.example", 6380, 2, "Rd7kM3nX9q")', "Rd7kM3nX9q"),
    ('var c = new AMQPConnection("broker.corp.example", "ingest", "Am5qW2zX8c");', "Am5qW2zX8c"),
    (":ok = :ftp.user(conn, 'mirror', 'Ft6yU3iO9p')", "Ft6yU3iO9p"),
])
def test_a_password_given_by_its_place_is_masked(text: str, secret: str) -> None:
    out = Redactor().redact(text)
    assert secret not in out, out
    assert "[CREDENTIAL_1]" in out


@pytest.mark.parametrize(("text", "secret"), [
    ("10.1.2.3:6379> AUTH tr0mbone\nOK", "tr0mbone"),
    ("cache:6380[3]> auth ingest hunter2x\nOK", "hunter2x"),
    ("redis> AUTH sesame\n(error) WRONGPASS", "sesame"),
])
def test_the_password_of_redis_auth_at_its_prompt_is_masked(text: str, secret: str) -> None:
    out = Redactor().redact(text)
    assert secret not in out, out


@pytest.mark.parametrize("text", [
    'ok := ldap_bind($link, $dn, $password);',
    'a := smtp.PlainAuth("", cfg.User, cfg.Pass, cfg.Host)',
    'await smtp.AuthenticateAsync(user, Environment.GetEnvironmentVariable("SMTP_PASS"));',
    "$redis->auth(getenv('REDIS_PASSWORD'));",
    'red.auth("default")',
    'l.Bind("cn=reader,dc=corp,dc=example", "")',
    "pop = Net::POP3.start('pop.corp.example', 110, user, pass)",
    'rc = redis.Redis("cache.corp.example", 6380, 2)',
    "127.0.0.1:6379> AUTH $REDIS_PASSWORD",
    "> auth tokens expire after an hour",
    "See `AUTH <password>` in the Redis docs.",
])
def test_names_hosts_and_words_in_those_places_stay(text: str) -> None:
    assert Redactor().redact(text) == text
