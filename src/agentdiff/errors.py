"""The AgentDiff error tree.

Every error is an `AgentDiffError` and also subclasses the builtin it resembles, so callers may
catch either::

    AgentDiffError (Exception)
    ├── TraceLoadError (ValueError)          the input could not be turned into a trace
    │   ├── TraceFileError (OSError)         missing or unreadable file
    │   ├── TraceFormatError                 not JSON / not UTF-8 / not what the adapter expects
    │   │   └── InputLimitError (LimitError) past the input size, gzip ratio, line count or
    │   │                                    document nesting limit
    │   ├── UnknownFormatError               no adapter claims the document
    │   │   └── NotARunError                 it is one of AgentDiff's own JSON reports
    │   └── MultipleTracesError              the document holds several traces; pick one
    ├── TraceValidationError (ValueError)    duplicate step ids, parent cycles, bad values
    │   └── TraceLimitError (LimitError)     past the step limit, or a payload nests too deep
    ├── UnknownAdapterError (LookupError)    no adapter registered under that name
    ├── AdapterRegistrationError (ValueError) a name or alias is taken (no built-in shadowing)
    ├── ConfigError (ValueError)             a bad agentdiff.toml key, type, env var or flag
    └── OutputPathError (OSError)            an output the command must not write (an input,
                                             a device, a directory, a read-only file)

`LimitError` marks an input that passed a limit (`agentdiff.limits`): its content may be a fine
trace, too big for the limits in force, so it is never taken for a corrupt file (a baseline past
a limit is not "unreadable": `approve --force` never replaces it).

Messages name the file, the JSON path where known, what was expected and the valid choices.
`hint` carries a one-line suggestion the CLI prints under the message.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AdapterRegistrationError",
    "AgentDiffError",
    "ConfigError",
    "InputLimitError",
    "LimitError",
    "MultipleTracesError",
    "NotARunError",
    "OutputPathError",
    "TraceFileError",
    "TraceFormatError",
    "TraceLimitError",
    "TraceLoadError",
    "TraceValidationError",
    "UnknownAdapterError",
    "UnknownFormatError",
]


class AgentDiffError(Exception):
    """Base class of every error AgentDiff raises on purpose."""

    def __init__(
        self, message: str, *, hint: str | None = None, source: str | Path | None = None
    ) -> None:
        self.message = message
        self.hint = hint
        self.source = str(source) if source is not None else None
        super().__init__(self.__str__())

    def __str__(self) -> str:
        return f"{self.source}: {self.message}" if self.source else self.message

    def with_source(self, source: str | Path) -> AgentDiffError:
        """Return the same error, naming the file it came from (unless it already names one)."""
        if self.source is None:
            self.source = str(source)
            self.args = (self.__str__(),)
        return self


class TraceLoadError(AgentDiffError, ValueError):
    """The input could not be turned into a trace."""


class TraceFileError(TraceLoadError, OSError):
    """The file is missing or cannot be read."""


class TraceFormatError(TraceLoadError):
    """The bytes are not valid JSON/UTF-8, or the document is not what the adapter expects."""


class LimitError(AgentDiffError):
    """The input passed a limit (size, steps, nesting); its content may be a fine trace.

    A marker: each error raised is also a `TraceFormatError` (`InputLimitError`) or a
    `TraceValidationError` (`TraceLimitError`).
    """


class InputLimitError(TraceFormatError, LimitError):
    """Reading passed a limit: the input size, the gzip ratio, the JSON Lines count, the nesting."""


class UnknownFormatError(TraceLoadError):
    """No adapter claims the document."""


class NotARunError(UnknownFormatError):
    """No adapter claims the document: it is a report AgentDiff wrote (`report_kinds`), no run.

    A search for runs (`compare-runs`, `routes`, `suite`) skips such a file; given as a run
    (`compare`, `inspect`), it is an error as any unknown document is.
    """


class MultipleTracesError(TraceLoadError):
    """The document holds several traces and none was chosen."""


class TraceValidationError(AgentDiffError, ValueError):
    """The trace breaks a rule of the canonical model (duplicate ids, cycles, bad values)."""


class TraceLimitError(TraceValidationError, LimitError):
    """The trace passed a limit: more steps than allowed, or a payload nested too deep."""


class UnknownAdapterError(AgentDiffError, LookupError):
    """No adapter is registered under the requested name."""


class AdapterRegistrationError(AgentDiffError, ValueError):
    """An adapter name or alias is already taken; built-in names can never be shadowed."""


class ConfigError(AgentDiffError, ValueError):
    """A configuration file, environment variable or flag holds a bad key or value."""


class OutputPathError(AgentDiffError, OSError):
    """An output the command must not write: one of its inputs, not a regular file, read-only."""
