"""One fake credential of each kind (none is real: they only have the right shape)."""
# ruff: noqa: S105

from __future__ import annotations

from typing import Any

from .helpers import spec

PATTERN_SECRETS = {
    "openai": "sk-proj-Zq3xV9tLmN2pR8sK4wY7bC1dF6gH0jA5eT",
    "anthropic": "sk-ant-api03-Fake7Key9ForTests2OnlyX4yZ6wV8uT0sR",
    "aws_access_key": "AKIAZZFAKEKEY0TESTQQ",
    "github": "ghp_FakeGitHubToken0123456789abcdefghijKL",
    "slack": "xoxb-1234567890-FakeSlackTokenForTests",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0LXVzZXIifQ.c2lnbmF0dXJlLWZvci10ZXN0cw",
    "private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEfakeKEYbody\n-----END RSA PRIVATE KEY-----",
}
BEARER = "Bearer fAkEbEaReRtOkEn0123456789"
AWS_SECRET = "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEYTEST"
KEYED_SECRETS = {
    "password": "correct-horse-battery",
    "api_key": "plain-looking-value-1",
    "client_secret": "plain-looking-value-2",
    "Authorization": "Token plain-looking-value-3",
    "x-api-key": "plain-looking-value-4",
    "githubToken": "plain-looking-value-5",
    "cookie": "session=plain-looking-value-6",
}
EVERY_SECRET = [*PATTERN_SECRETS.values(), *KEYED_SECRETS.values(), BEARER[7:], AWS_SECRET[22:]]
"""The secret parts that must never be shown."""
SECRET_FRAGMENTS = [s.split("\n")[1] if "\n" in s else s[-12:] for s in EVERY_SECRET]
"""A tail of each secret: none may appear in a redacted report, whatever it clips."""


def leaky_trace(changed: bool) -> dict[str, Any]:
    """The example trace with a secret of each kind in names, payloads, errors and metadata."""
    document = spec()
    step = document["steps"][1]
    suffix = "-v2" if changed else ""
    step["input_payload"] = {
        **{key: value + suffix for key, value in KEYED_SECRETS.items()},
        "prompt": " ".join(PATTERN_SECRETS.values()) + suffix,
        "headers": {"Authorization": BEARER + suffix},
        "env": AWS_SECRET,
        "max_tokens": 1000,
        "total_tokens": "1000",
    }
    step["output_payload"] = {"echo": PATTERN_SECRETS["openai"] + suffix}
    step["status"] = "error" if changed else "success"
    step["error_message"] = f"401 for key {PATTERN_SECRETS['openai']}{suffix}"
    step["name"] = f"call_{PATTERN_SECRETS['github']}"
    document["steps"][0]["metadata"] = {"token": "tok-plain-value"}
    return document
