"""A value typed by browser automation into a field whose selector, label or description names a
password (a passcode, a PIN, a secret, a token) is the secret, whatever it looks like: Playwright
MCP's `browser_type` (the element described in words, the text typed), Playwright and Puppeteer
`fill`/`type`, `getByLabel`, Selenium `send_keys`, Cypress `type`, Capybara `fill_in`. The value
has no name of its own, so nothing masked it. Look-alikes: other fields, variables typed, key
presses, placeholders."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

PW = "Velvet0637?"


@pytest.mark.parametrize("text", [
    '{"name": "browser_type", "input": {"element": "Password textbox", "ref": "e12", "text": "Velvet0637?"}}',
    '{"name": "browser_type", "input": {"text": "Velvet0637?", "ref": "e12", "element": "Confirm password field"}}',
    json.dumps({"input": json.dumps({"element": "Password textbox", "ref": "e12", "text": PW})}),  # escaped JSON
    "await page.fill('#password', 'Velvet0637?');",
    "await page.type('input[type=password]', 'Velvet0637?', { delay: 50 });",
    "await page.getByLabel('Password').fill('Velvet0637?');",
    "await page.getByRole('textbox', { name: 'Password' }).fill('Velvet0637?');",
    "page.get_by_placeholder(\"Your PIN\").fill(\"Velvet0637?\")",
    'driver.find_element(By.ID, "pwd").send_keys("Velvet0637?")',
    "cy.get('input[name=password]').type('Velvet0637?')",
    "cy.get('#password').clear().type('Velvet0637?', { log: false })",
    "password_input.send_keys('Velvet0637?')",
    "await $('#passcode').setValue('Velvet0637?')",
    "fill_in 'Password', with: 'Velvet0637?'",
    'fill_in "user[password]", with: "Velvet0637?"',
])
def test_a_value_typed_into_a_password_field_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert "Velvet0637" not in out, out


def test_the_browser_tool_call_as_forsy_passes_it_parsed() -> None:
    args = [{"element": "Password textbox", "ref": "e12", "text": PW, "submit": True},
            {"fields": [{"name": "New password", "type": "textbox", "ref": "e7", "value": "Kx7mQ2vLp9qw"}]}]
    out = Redactor().redact_values(args)
    assert PW not in repr(out) and "Kx7mQ2vLp9qw" not in repr(out)
    assert out[0]["element"] == "Password textbox" and out[0]["submit"] is True


@pytest.mark.parametrize("text", [
    '{"name": "browser_type", "input": {"element": "Email textbox", "ref": "e11", "text": "hello there"}}',
    '{"name": "browser_type", "input": {"element": "Search box", "ref": "e2", "text": "password reset"}}',
    "await page.fill('#username', 'jsmith42');",
    "await page.fill('#password', password);",
    "await page.fill('#password', process.env.E2E_PASSWORD);",
    "await page.getByLabel('Email').fill('someone');",
    'driver.find_element(By.ID, "user").send_keys("admin")',
    "cy.get('#password').type('{enter}')",
    "cy.get('#search').type('forgot password')",
    "fill_in 'Email', with: 'someone'",
    "await page.fill('#password', '${PASSWORD}')",
    "const row = new Array(5).fill('x');",
])
def test_other_fields_variables_and_key_presses_stay(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_parsed_record_for_another_field_stays() -> None:
    args = [{"element": "Search box", "ref": "e2", "text": "password reset"},
            {"element": "Password textbox", "ref": "e3", "text": "{{password}}"}]
    assert Redactor().redact_values(args) == args
