"""Cookbook: the baseline loop, end to end in a throwaway git repository.

    agentdiff init      → agentdiff.toml (commented gate defaults) + the GitHub workflow
    agentdiff record    → runs/candidate/1.json from the agent callable
    agentdiff approve   → baselines/weather.json, with who / when / commit / why
    (change the agent)  → agentdiff record again → agentdiff compare: the gate blocks a new loop
    agentdiff approve   → refused; --force --reason blesses it, keeping the previous approval

Every command is the real CLI (`python -m agentdiff`) in a temporary git repository; the agent is
a small Python function recorded with `agentdiff.record`. `tests/cli/test_baseline_e2e.py` runs
the same loop with assertions on the files.

Run: `python cookbooks/baseline_workflow.py`
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

AGENT = '''\
"""A weather agent recorded with agentdiff.record (version {version})."""
from agentdiff.record import current_step, traced

POLLS = {polls}


@traced(step_type="llm_call", name="plan")
def plan(question):
    current_step().set_usage(prompt_tokens=120, completion_tokens=18)
    return {{"tools": ["geocode", "get_weather"]}}


@traced
def geocode(city):
    return {{"lat": 48.8566, "lon": 2.3522}}


@traced
def get_weather(lat, lon):
    return {{"temp_c": 18.0, "conditions": "partly cloudy"}}


def run(task):
    plan(task["question"])
    place = geocode(task["city"])
    for _ in range(POLLS):
        weather = get_weather(place["lat"], place["lon"])
    return f"{{weather['temp_c']}} °C in {{task['city']}}"
'''
TASK = {"question": "Weather in Paris?", "city": "Paris"}
BASELINE = "baselines/weather.json"
CANDIDATE = "runs/candidate/1.json"


class Project:
    """A temporary git repository holding the agent, driven through the real CLI."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "Grace Hopper")
        self.git("config", "user.email", "grace@example.com")
        (root / "task.json").write_text(json.dumps(TASK))
        (root / ".gitignore").write_text("runs/\n__pycache__/\n")  # recordings are not commits
        self.write_agent(version=1, polls=1)

    def write_agent(self, *, version: int, polls: int) -> None:
        (self.root / "weather_agent.py").write_text(AGENT.format(version=version, polls=polls))

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.root, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def agentdiff(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(self.root), "COLUMNS": "100", "NO_COLOR": "1"}
        return subprocess.run(
            [sys.executable, "-m", "agentdiff", *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def record(self) -> subprocess.CompletedProcess[str]:
        return self.agentdiff(
            "record", "weather_agent:run", "--input", "@task.json", "-o", "runs/candidate",
            "--name", "weather-agent",
        )  # fmt: skip

    def provenance(self) -> dict[str, Any]:
        data = json.loads((self.root / BASELINE).read_text())
        return data["metadata"]["provenance"]  # type: ignore[no-any-return]


def show(title: str, done: subprocess.CompletedProcess[str]) -> None:
    print(f"$ agentdiff {title}  (exit {done.returncode})")
    lines = (done.stdout + done.stderr).strip().splitlines()
    print("\n".join(f"  {line}" for line in lines if not line.startswith("recording")))


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        project = Project(Path(folder))
        show(
            "init",
            project.agentdiff(
                "init", "--agent", "weather_agent:run", "--input", "@task.json",
                "--baseline", BASELINE,
            ),
        )  # fmt: skip
        v1 = project.commit("weather agent v1")
        show("record (v1)", project.record())
        show("approve (first)", project.agentdiff(
            "approve", CANDIDATE, "--baseline", BASELINE, "--reason", "first baseline"
        ))  # fmt: skip
        first = project.provenance()
        print(f"provenance: by {first['approved_by']}, commit is v1: {first['commit'] == v1}, "
              f"reason: {first['reason']}")  # fmt: skip
        project.commit("approve the first baseline")

        project.write_agent(version=2, polls=4)  # v2 polls the weather service four times
        v2 = project.commit("weather agent v2: poll until the data is fresh")
        show("record (v2)", project.record())
        show("compare", project.agentdiff("compare", BASELINE, CANDIDATE))
        show("approve (refused)", project.agentdiff("approve", CANDIDATE, "--baseline", BASELINE))
        show("approve --force", project.agentdiff(
            "approve", CANDIDATE, "--baseline", BASELINE, "--force",
            "--reason", "polling is intended in v2",
        ))  # fmt: skip
        second = project.provenance()
        print(f"provenance: commit is v2: {second['commit'] == v2}, reason: {second['reason']}, "
              f"previous commit is v1: {second['previous']['commit'] == v1}")  # fmt: skip
        show("compare (after approval)", project.agentdiff("compare", BASELINE, CANDIDATE))


if __name__ == "__main__":
    main()
