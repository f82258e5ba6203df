"""What `agentdiff init` writes: a commented `agentdiff.toml` and a CI job, as text.

The config file is generated from `agentdiff.config.SETTINGS` and the models' own defaults, so it
always lists every setting with its current default (and never drifts from the gate table). The
CI files run `agentdiff record` for the candidate (with the task file its `--input @FILE` names,
written as `{}` when missing), then compare it with the approved baseline:
GitHub through the AgentDiff action (sticky PR comment, job summary), GitLab as a job whose JUnit
report shows in the merge request.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, fields
from pathlib import Path

from agentdiff.config import CONFIG_FILE, SETTINGS, Setting
from agentdiff.diff.options import CompareOptions
from agentdiff.errors import ConfigError
from agentdiff.gate import GateThresholds
from agentdiff.render.options import RenderOptions
from agentdiff.render.text import one_line
from agentdiff.stats_options import StatsOptions

__all__ = [
    "DEFAULT_STALE_AFTER_DAYS",
    "Scaffold",
    "ci_files",
    "config_file",
    "config_toml",
    "sh",
    "task_file",
    "yaml_text",
]

DEFAULT_STALE_AFTER_DAYS = 30
"""What `init` writes for `stale_after_days` (the built-in default is off)."""
_DEFAULTS: dict[str, object] = {
    **{name: field.default for name, field in GateThresholds.model_fields.items()},
    **{name: field.default for name, field in CompareOptions.model_fields.items()},
    **{name: field.default for name, field in RenderOptions.model_fields.items()},
    **{name: field.default for name, field in StatsOptions.model_fields.items()},
    "redact": True,  # `None` there means "on, except in the JSON report" (the setting's help)
}


_ACTION = re.compile(r"\w[\w.-]*/[\w.-]+(/[\w./-]+)?(@[\w./-]+)?")
"""`owner/repo[/path][@ref]`: what a workflow's `uses:` names, nothing a shell or YAML reads."""
_FLAGS = {"agent": "--agent", "task_input": "--input", "baseline": "--baseline"}


def sh(value: str) -> str:
    """`value` as one shell word (quoted only when it needs to be: `my_agent:run` stays)."""
    return shlex.quote(value)


def yaml_text(value: str) -> str:
    """`value` as a YAML string scalar, double-quoted (a JSON string is one).

    So `: `, `#`, a leading `{` or `@`, or a word such as `yes` never makes it something else.
    """
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Scaffold:
    """The project facts the CI files mention.

    Each is written into shell commands and YAML, so each must be one line of printable text,
    and `action` a plain `owner/repo[@ref]`; anything else is a `ConfigError` naming the flag.
    """

    agent: str = "my_agent:run"
    """MODULE:FUNCTION that `agentdiff record` runs."""
    task_input: str = "@agentdiff/task.json"
    baseline: str = "baselines/agent.json"
    action: str = "your-org/agentdiff@main"
    """The AgentDiff GitHub Action: the repository (and tag) you use."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            flag = _FLAGS.get(field.name, "--action")
            if not value or one_line(value) != value:
                msg = f"{flag} must be one line of printable text, got {value!r}"
                raise ConfigError(msg, hint="it is written into the CI job's commands")
        if not _ACTION.fullmatch(self.action):
            msg = f"--action must be OWNER/REPO[@REF], got {self.action!r}"
            raise ConfigError(msg, hint="e.g. --action acme/agentdiff@v1")

    @property
    def record(self) -> str:
        """The command that records the candidate run."""
        return f"agentdiff record {sh(self.agent)} --input {sh(self.task_input)} -o runs/candidate"

    @property
    def install(self) -> str:
        """`pip install` of AgentDiff from the action's own repository and ref."""
        repository, _, ref = self.action.partition("@")
        return f'"agentdiff @ git+https://github.com/{repository}{"@" + ref if ref else ""}"'

    @property
    def task_path(self) -> str | None:
        """The file `--input @FILE` names (read as `record --input` reads it), if any."""
        return self.task_input[1:] if self.task_input.startswith("@") else None

    @property
    def candidate(self) -> str:
        """The first run `agentdiff record -o runs/candidate` writes."""
        return "runs/candidate/1.json"


def _toml_value(value: object) -> str:
    if value is None:
        return '"off"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _line(setting: Setting, value: object, *, active: bool = False) -> str:
    assignment = f"{setting.name} = {_toml_value(value)}"
    return f"{'' if active else '# '}{assignment:<38} # {setting.help}"


def config_toml() -> str:
    """The commented `agentdiff.toml`: every setting at its default, grouped by section."""
    lines = [
        "# AgentDiff configuration. Precedence: command-line flag > AGENTDIFF_<NAME> environment",
        "# variable > this file > built-in default. Every setting is listed at its default: remove",
        '# the "# " in front of a line to change it. A number set to "off" switches its rule off.',
        "# The gate: hard rules fail the comparison (exit 1); soft ones only warn.",
    ]
    for section in dict.fromkeys(s.section for s in SETTINGS):
        lines += ["", f"[{section}]"]
        for setting in (s for s in SETTINGS if s.section == section):
            if setting.name == "stale_after_days":
                lines.append(_line(setting, DEFAULT_STALE_AFTER_DAYS, active=True))
            else:
                lines.append(_line(setting, _DEFAULTS.get(setting.name)))
    return "\n".join(lines) + "\n"


def _github(s: Scaffold) -> str:
    return f"""\
# AgentDiff: record the agent's run on every pull request and compare it with the approved
# baseline ({s.baseline}). The report goes to the job summary and to one PR comment that is
# updated in place on every push. Approve a new baseline with
#   agentdiff approve {s.candidate} --baseline {sh(s.baseline)} --reason "..."
name: agentdiff
on:
  pull_request:

permissions:
  contents: read
  pull-requests: write  # the sticky PR comment

jobs:
  agentdiff:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Record the candidate run
        run: |
          pip install {s.install}  # plus your agent's own dependencies
          {s.record}
      - name: Compare with the baseline
        uses: {s.action}  # the AgentDiff action: point it at the repository (and tag) you use
        with:
          baseline: {yaml_text(s.baseline)}
          candidate: {s.candidate}
          comment: true
"""


def _gitlab(s: Scaffold) -> str:
    compare = f"agentdiff compare {sh(s.baseline)} {s.candidate}"
    return f"""\
# AgentDiff: record the agent's run in every merge request and compare it with the approved
# baseline ({s.baseline}); a regression fails the job and shows in the MR's test report.
agentdiff:
  image: python:3.12
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script:
    - {yaml_text(f"pip install {s.install}")}  # plus your agent's own dependencies
    - {yaml_text(s.record)}
    - {yaml_text(f"{compare} || true")}  # the readable report, in the log
    - {yaml_text(f"{compare} --format junit --output agentdiff-junit.xml")}
  artifacts:
    when: always
    paths:
      - runs/candidate/
    reports:
      junit: agentdiff-junit.xml
"""


def ci_files(ci: str, scaffold: Scaffold, root: Path) -> list[tuple[Path, str]]:
    """(path, text) for the chosen CI; GitLab goes beside an existing `.gitlab-ci.yml`."""
    if ci == "github":
        return [(root / ".github" / "workflows" / "agentdiff.yml", _github(scaffold))]
    main = root / ".gitlab-ci.yml"
    target = root / ".gitlab" / "agentdiff.yml" if main.exists() else main
    return [(target, _gitlab(scaffold))]


_TASK_PLACEHOLDER = "{}\n"
"""What `init` writes into the task file the job names when there is none: an empty JSON object
(the agent's input; the user puts the task there)."""


def task_file(scaffold: Scaffold, root: Path) -> list[tuple[Path, str]]:
    """(path, text) of the task file the CI job's `--input @FILE` reads, when it is relative.

    The job runs at the project root, so it needs the file there; without it the first CI run
    fails with "file not found". An absolute path is the user's own and is left alone.
    """
    name = scaffold.task_path
    if name is None or Path(name).is_absolute():
        return []
    return [(root / name, _TASK_PLACEHOLDER)]


def config_file(root: Path) -> tuple[Path, str]:
    """(path, text) of the commented config file."""
    return root / CONFIG_FILE, config_toml()
