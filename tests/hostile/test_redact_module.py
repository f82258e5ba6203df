"""The redactor itself: secret keys, credential patterns, markers with a short hash."""

from __future__ import annotations

import pytest

from agentdiff.redact import Redactor, is_secret_key

from .secrets import AWS_SECRET, BEARER, KEYED_SECRETS, PATTERN_SECRETS

redactor = Redactor()


@pytest.mark.parametrize(("kind", "secret"), PATTERN_SECRETS.items())
def test_each_credential_pattern_is_redacted_anywhere_in_text(kind, secret):
    shown = redactor.text(f"before {secret} after")
    assert secret not in shown
    assert shown.startswith("before ")
    assert "[redacted:" in shown
    assert shown.endswith(" after") or kind == "private_key"


@pytest.mark.parametrize("text", [BEARER, AWS_SECRET, "https://bob:hunter2pass@example.com/x"])
def test_contextual_credentials_keep_their_context(text):
    shown = redactor.text(text)
    assert "[redacted:" in shown
    assert text.split("=")[-1].split(" ")[-1] not in shown


def test_markers_keep_a_prefix_and_a_short_hash_that_tracks_changes():
    key = PATTERN_SECRETS["openai"]
    first, again, changed = (redactor.text(k) for k in (key, key, key + "X"))
    assert first.startswith("sk-proj-…[redacted:")
    assert len(first.split("redacted:")[1]) == 5
    assert first == again
    assert first != changed


@pytest.mark.parametrize("key", [*KEYED_SECRETS, "OPENAI_API_KEY", "db_password", "refreshToken"])
def test_secret_keys(key):
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "key",
    ["total_tokens", "max_tokens", "prompt_tokens", "tokens", "name", "keyword", "secrets_count_x"],
)
def test_counters_and_plain_keys_are_not_secret(key):
    assert not is_secret_key(key)


def test_values_under_secret_keys_are_redacted_but_numbers_stay():
    data = {"api_key": "abc", "total_tokens": 5, "max_tokens": "100", "nested": [{"password": "p"}]}
    shown = redactor.value(data)
    assert shown["api_key"].startswith("…[redacted:")
    assert shown["total_tokens"] == 5
    assert shown["max_tokens"] == "100"
    assert shown["nested"][0]["password"].startswith("…[redacted:")
    assert data["api_key"] == "abc"  # a copy; the trace is never changed


def test_user_patterns_and_keys_and_switching_off():
    custom = Redactor(patterns=(r"acme-[0-9a-f]{8}",), keys=("internalRef",))
    assert "acme-" not in custom.text("id acme-0123abcd here").replace("acme-…", "")
    assert custom.value({"internal_ref": "x"})["internal_ref"].startswith("…[redacted:")
    off = Redactor(enabled=False)
    assert off.text(BEARER) == BEARER
    assert off.value({"password": "p"}) == {"password": "p"}
    assert redactor.at("input_payload.headers.Authorization", "Token x").startswith("…[redacted")


GLUED = [
    "x" + "ghp_FakeGitHubToken0123456789abcdefghijKL",
    "token%3D" + "sk-proj-Zq3xV9tLmN2pR8sK4wY7bC1dF6gH0jA5eT",
    "key" + "sk-proj-Zq3xV9tLmN2pR8sK4wY7bC1dF6gH0jA5eT",
    "\\n" + "sk-svcacct-Zq3xV9tLmN2pR8sK4wY7bC1dF6gH0jA5eT",
    "id" + "AKIAZZFAKEKEY0TESTQQ",
    "x" + "sk-ant-api03-abcdefghijklmnopqrstuv",
]


@pytest.mark.parametrize("kind", list(PATTERN_SECRETS))
def test_a_credential_glued_to_an_underscore_after_it_is_redacted(kind):
    """`call_<token>_0` (a step name made from a token) hides the token too."""
    secret = PATTERN_SECRETS[kind]
    shown = Redactor().text(f"call_{secret}_0")
    assert "[redacted:" in shown
    assert (secret.split("\n")[1] if "\n" in secret else secret[-12:]) not in shown


@pytest.mark.parametrize("text", GLUED)
def test_a_credential_glued_to_the_word_before_it_is_redacted(text):
    """Distinctive prefixes need no word edge: a URL-encoded or concatenated key still leaks."""
    shown = Redactor().text(text)
    assert "[redacted:" in shown
    assert text[-12:] not in shown


@pytest.mark.parametrize(
    "text",
    [
        "task-0123456789abcdefghijklmnop",
        "desk-0123456789abcdefghijklmnop",
        "HASHAKIAZZFAKEKEY0TESTQQ",
    ],
)
def test_ids_that_merely_contain_a_short_prefix_stay(text):
    """A bare `sk-` or an AWS id inside a longer run of capitals is part of a word, not a key."""
    assert Redactor().text(text) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("login failed with password=hunter2 for bob", "login failed with password=…[redacted:"),
        ('db.connect(user="bob", password="hunter22")', 'db.connect(user="bob", password="…'),
        ("PWD: s3cr3tValue", "PWD: …[redacted:"),
        ("https://a.example/?pwd=abcd1234&x=1", "https://a.example/?pwd=…[redacted:"),
    ],
)
def test_a_password_assigned_in_free_text_is_redacted_and_its_key_kept(text, shown):
    """A password in a log line or a tool's output (not under a secret key) is a secret too."""
    redacted = redactor.text(text)
    assert redacted.startswith(shown)
    assert not any(v in redacted for v in ("hunter2", "s3cr3t", "abcd1234"))


@pytest.mark.parametrize(
    "text", ["the password field is required", "passwords: many", "password=", "pwd: abc"]
)
def test_prose_about_passwords_is_left_alone(text):
    assert redactor.text(text) == text
