"""Secrets out of human-facing reports: values under secret keys and credential patterns.

Trace files carry credentials (API keys in tool arguments, `Authorization` headers, tokens in
error messages), and reports get posted where many people read them. A `Redactor` replaces

- every string value under a **secret key** — exact names (`password`, `authorization`,
  `cookie`, `api_key`, `access_token`, `secret`...) and suffixes (`*_api_key`, `*_secret`,
  `*_token`, `*_password`...), in any case or spelling (`apiKey`, `X-Api-Key`) — but never a
  number, so counters such as `total_tokens` or `max_tokens` stay;
- every **credential pattern** anywhere in a string: OpenAI and Anthropic keys, AWS access key
  ids and secrets, GitHub and Slack tokens, bearer and JWT tokens, private key blocks, plus
  the user's own patterns (`[report] redact_patterns`)

with `<prefix>…[redacted:3f9a]`: a recognisable prefix and a short hash of the secret, so a
changed secret still shows as changed and an unchanged one as unchanged, without showing it.
Reports call it once, in the view model; `--no-redact` / `redact = false` turns it off.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

__all__ = [
    "CREDENTIAL_PATTERNS",
    "DEFAULT_REDACTOR",
    "SECRET_KEYS",
    "SECRET_SUFFIXES",
    "Redactor",
    "is_secret_key",
    "redact_report_data",
    "redacted",
]

SECRET_KEYS = frozenset(
    {
        "api_key",
        "apikey",
        "access_key",
        "access_token",
        "auth",
        "auth_token",
        "authorization",
        "bearer",
        "client_secret",
        "cookie",
        "credential",
        "credentials",
        "id_token",
        "passphrase",
        "passwd",
        "password",
        "private_key",
        "proxy_authorization",
        "pwd",
        "refresh_token",
        "secret",
        "secret_key",
        "session_token",
        "set_cookie",
        "token",
    }
)
"""Keys (normalized: lower snake case) whose string values are always secret."""
SECRET_SUFFIXES = (
    "_api_key",
    "_apikey",
    "_access_key",
    "_secret",
    "_secret_key",
    "_token",
    "_password",
    "_passwd",
    "_private_key",
    "_credentials",
    "_cookie",
)
"""Key endings whose string values are secret (`openai_api_key`, `github_token`...)."""

_EDGE = r"(?<![A-Za-z0-9])"
"""Where a token with a short, common prefix may start: not inside a word (but after `_`)."""
_UPPER_EDGE = r"(?<![A-Z0-9])"
"""Where an AWS key id may start: not inside a longer run of capitals and digits (a hash)."""
_ASSIGNED = r"(?i:\b(?:password|passwd|pwd)\\?[\"']?[ \t]*[=:][ \t]*\\?[\"']?)"
"""A password assigned in text (`password=`, `PWD: `, JSON text `"password": "`, also escaped
inside a JSON string): the value after it is redacted."""
CREDENTIAL_PATTERNS: tuple[tuple[str, str], ...] = (
    ("private key", r"-----BEGIN[A-Z ]*PRIVATE KEY( BLOCK)?-----(?:.*?-----END[A-Z ]*-----|.*)"),
    # distinctive prefixes match glued to a word too (`token%3Dsk-proj-…`, `xghp_…`): only a
    # bare `sk-` needs the edge, or every `task-…` id of 20+ characters would be redacted
    ("anthropic", r"sk-ant-[A-Za-z0-9_\-]{16,}"),
    ("openai", r"sk-(?:proj-|svcacct-|admin-|None-)[A-Za-z0-9_\-]{20,}"),
    ("openai", _EDGE + r"sk-[A-Za-z0-9_\-]{20,}"),
    (
        "aws access key",
        _UPPER_EDGE + r"(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}(?![0-9A-Za-z])",
    ),
    (
        "aws secret",
        r"(?i:aws_secret_access_key|secretaccesskey)[\"'\s:=]{1,5}[A-Za-z0-9/+]{30,}={0,2}",
    ),
    # the end is where the token's characters stop (`ghp_…_0` in a step name is a token too)
    ("github", r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})(?![A-Za-z0-9])"),
    ("slack", _EDGE + r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    ("jwt", _EDGE + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer", r"(?i:(?<=\bbearer ))[A-Za-z0-9._~+/\-]{12,}=*"),
    ("basic auth", r"(?i:(?<=\bbasic ))[A-Za-z0-9+/]{12,}=*"),
    ("url password", r"(?<=://)[^\s:/@]+:[^\s/@]+(?=@)"),
    # `password=hunter2` in free text (a log line, a tool's output); the key stays readable
    ("assigned password", _ASSIGNED + r"[^\s&\"',;]{4,}"),
)
"""(name, regex) of credentials recognised anywhere in a string."""

_PREFIX = re.compile(
    r"^(?:-----BEGIN[A-Z ]*-----"
    r"|(?i:aws_secret_access_key|secretaccesskey)[\"'\s:=]{1,5}"
    r"|(?i:(?:password|passwd|pwd)\\?[\"']?[ \t]*[=:][ \t]*\\?[\"']?)"
    r"|sk-ant-|sk-(?:proj-|svcacct-|admin-)?|AKIA|ASIA|gh[pousr]_|github_pat_|xox[abposre]-|eyJ)"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
"""Where a camel-case key splits into words, acronyms too (`OpenAIApiKey`: open_ai_api_key)."""


def _normalized_key(key: str) -> str:
    return _CAMEL.sub("_", key).lower().replace("-", "_").replace(" ", "_").strip("_")


def is_secret_key(key: object, extra: frozenset[str] = frozenset()) -> bool:
    """True when a value under `key` is a secret (see `SECRET_KEYS`, `SECRET_SUFFIXES`)."""
    if not isinstance(key, str):
        return False
    name = _normalized_key(key)
    return name in SECRET_KEYS or name in extra or name.endswith(SECRET_SUFFIXES)


def _marker(secret: str) -> str:
    digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:4]
    prefix = _PREFIX.match(secret)
    shown = prefix.group() if prefix else ""
    return f"{shown}…[redacted:{digest}]"


def _replaced(match: re.Match[str]) -> str:
    """A match's marker (an empty match, of a user pattern such as `x*`, stays empty)."""
    found = match.group()
    return _marker(found) if found else found


@dataclass(frozen=True)
class Redactor:
    """Redacts strings and JSON-like values; `enabled=False` returns everything as it is."""

    enabled: bool = True
    patterns: tuple[str, ...] = ()
    """User regexes, added to `CREDENTIAL_PATTERNS`."""
    keys: tuple[str, ...] = ()
    """User key names, added to `SECRET_KEYS`."""
    _cache: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def _patterns(self) -> tuple[re.Pattern[str], ...]:
        r"""The built-in patterns as one regex, then each user pattern on its own.

        A user pattern is checked alone (`config_kinds.PATTERNS`), so it is compiled alone:
        joined to the others, its global flags (`(?i)…`), group names and group numbers (a
        backreference `\1`) would break the whole regex or silently match something else.
        """
        builtin = "|".join(f"(?:{rx})" for _, rx in CREDENTIAL_PATTERNS)
        return tuple(re.compile(rx, re.DOTALL) for rx in (builtin, *self.patterns))

    @cached_property
    def _keys(self) -> frozenset[str]:
        return frozenset(_normalized_key(k) for k in self.keys)

    def text(self, text: str) -> str:
        """`text` with every credential pattern replaced by its marker."""
        if not self.enabled or not text:
            return text
        cached = self._cache.get(text)
        if cached is None:
            cached = text
            for pattern in self._patterns:
                cached = pattern.sub(_replaced, cached)
            if len(self._cache) < 100_000:  # noqa: PLR2004 - a bound, not a tuning knob
                self._cache[text] = cached
        return cached

    def secret_key(self, key: object) -> bool:
        """True when values under `key` are redacted whole."""
        return self.enabled and is_secret_key(key, self._keys)

    def value(self, value: Any, key: object = None) -> Any:
        """A copy of a JSON-like `value` with secrets replaced (`key`: the key it sits under)."""
        if not self.enabled:
            return value
        if isinstance(value, str):
            return _marker(value) if self.secret_key(key) else self.text(value)
        if isinstance(value, dict):
            return {self.key(k): self.value(v, k) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v, key) for v in value]
        return value

    def key(self, key: Any) -> Any:
        """A mapping key as shown: a credential in it (a scenario named after a token) redacted."""
        return self.text(key) if isinstance(key, str) else key

    def at(self, path: str, value: Any) -> Any:
        """`value` found at a dotted `path` (e.g. `input_payload.headers.Authorization`)."""
        return self.value(value, _last_key(path))

    def all(self, texts: Iterable[str]) -> list[str]:
        """`text()` of each."""
        return [self.text(t) for t in texts]

    def parts(self, parts: Sequence[str], separator: str) -> list[tuple[str, int]]:
        """`parts` (read joined by `separator`) redacted as their whole is, to show in part.

        Each: (shown, how many of `parts` it holds). Redacted one by one, a secret that spans a
        boundary (a user pattern `name_ → tool_001`, a private key block) would match in no
        part, so the whole is redacted once and the parts shown are cut from it: each part
        redacted alone, where that reads as the redacted whole; else the parts from the first
        to the last that differ from it merged into one, shown as the redacted whole shows
        them. Joined by `separator`, the parts shown never show what the whole's redaction hid.
        """
        each = [self.text(part) for part in parts]
        whole = separator.join(parts)
        shown = self.text(whole)
        if shown == whole or separator.join(each) == shown:
            return [(part, 1) for part in each]
        # the parts (each with the separator after it) the redacted whole starts with
        head, start = 0, 0
        while head < len(each) - 1 and shown.startswith(each[head] + separator, start):
            start += len(each[head]) + len(separator)
            head += 1
        tail, end = 0, len(shown)  # and those it ends with, after the head
        while tail < len(each) - 1 - head and shown.endswith(
            separator + each[-1 - tail], start, end
        ):
            end -= len(each[-1 - tail]) + len(separator)
            tail += 1
        return [
            *((part, 1) for part in each[:head]),
            (shown[start:end], len(each) - head - tail),
            *((part, 1) for part in each[len(each) - tail :]),
        ]


DEFAULT_REDACTOR = Redactor()
"""The built-in patterns and keys, redacting (one per process: its cache is shared)."""


def redacted(text: str) -> str:
    """`text` with the default credential patterns redacted.

    For messages that quote a value and may cut it: redact first, or the cut hides the key from
    the pattern and its start leaks.
    """
    return DEFAULT_REDACTOR.text(text)


def _last_key(path: str) -> str:
    """The key the value at `path` sits under: list indices (`.0`, `[0]`) are no keys.

    `input_payload.password.0` is an item of the list under `password`, as secret as the list.
    """
    for part in reversed(path.split(".")):
        key = _INDEXES.sub("", part)
        if key and not key.isdigit():
            return key
    return ""


_INDEXES = re.compile(r"(?:\[\d+\])+$")


def _skeleton_parts(parts: Any, redactor: Redactor) -> Any:
    """A route's `skeleton_parts` redacted as its `skeleton` is (see `Redactor.parts`).

    A secret that spans parts is redacted in the skeleton; redacted one by one, the parts would
    show it: the parts it spans are merged into one (their steps added up).
    """
    if not (
        isinstance(parts, list)
        and parts
        and all(isinstance(p, dict) and isinstance(p.get("shown"), str) for p in parts)
    ):
        return redact_report_data(parts, redactor)
    from agentdiff.routes.skeleton import ARROW  # noqa: PLC0415 - only for a routes report

    out: list[Any] = []
    at = 0
    for shown, held in redactor.parts([p["shown"] for p in parts], ARROW):
        spanned = parts[at : at + held]
        at += held
        record = redact_report_data(spanned[0], redactor)
        record["shown"] = shown
        steps = [p.get("steps") for p in spanned]
        if held > 1 and all(isinstance(n, int) for n in steps):
            record["steps"] = sum(n for n in steps if isinstance(n, int))
        out.append(record)
    return out


def redact_report_data(data: Any, redactor: Redactor) -> Any:
    """The JSON report's data with secrets redacted (`--format json --redact`).

    A change record (`{"path", "baseline", "candidate"}`) has its values redacted as the
    values under the key its `path` ends with. A route's skeleton in parts (`skeleton_parts`,
    `side_route_parts`) is redacted as the skeleton whole is (`Redactor.parts`).
    """
    if isinstance(data, dict):
        path = data.get("path")
        if isinstance(path, str) and ("baseline" in data or "candidate" in data):
            return {
                redactor.key(k): redactor.at(path, v)
                if k in ("baseline", "candidate")
                else redactor.value(v, k)
                for k, v in data.items()
            }
        return {redactor.key(k): _redacted_item(k, v, redactor) for k, v in data.items()}
    if isinstance(data, list):
        return [redact_report_data(v, redactor) for v in data]
    return redactor.value(data)


def _redacted_item(key: Any, value: Any, redactor: Redactor) -> Any:
    """The value under `key` of a report's mapping, redacted (a skeleton's parts as a whole)."""
    if key == "skeleton_parts":
        return _skeleton_parts(value, redactor)
    if key == "side_route_parts" and isinstance(value, dict):
        return {redactor.key(k): _skeleton_parts(v, redactor) for k, v in value.items()}
    if isinstance(value, dict | list):
        return redact_report_data(value, redactor)
    return redactor.value(value, key)
