"""`agentdiff init`: a commented `agentdiff.toml` and a CI job; never overwrites a file."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from agentdiff.cli.errors import handle_errors
from agentdiff.errors import AgentDiffError
from agentdiff.files import check_folder, make_folder
from agentdiff.render.text import one_line
from agentdiff.scaffold import Scaffold, ci_files, config_file, sh, task_file

__all__ = ["init"]


class CI(str, Enum):
    """Where the comparison runs."""

    github = "github"
    gitlab = "gitlab"


def _write_new(path: Path, text: str) -> bool:
    """Create `path` with `text`; False (and nothing written) when it exists already."""
    make_folder(path)  # or an error saying why not (a file where a folder goes is no "exists")
    try:
        with path.open("x", encoding="utf-8") as file:
            file.write(text)
    except FileExistsError:
        return False
    except OSError as exc:
        raise AgentDiffError(f"cannot write {path}: {exc.strerror or exc}") from None
    return True


@handle_errors
def init(
    ci: Annotated[CI, typer.Option("--ci", help="The CI to write a job for.")] = CI.github,
    agent: Annotated[
        str, typer.Option("--agent", help="MODULE:FUNCTION the CI job records.")
    ] = Scaffold.agent,
    task_input: Annotated[
        str, typer.Option("--input", help="The --input the CI job passes to the agent.")
    ] = Scaffold.task_input,
    baseline: Annotated[
        str, typer.Option("--baseline", help="The approved baseline file.")
    ] = Scaffold.baseline,
    action: Annotated[
        str, typer.Option("--action", help="The AgentDiff GitHub Action to use (owner/repo@ref).")
    ] = Scaffold.action,
    directory: Annotated[
        Path, typer.Option("--directory", "-C", help="The project root.")
    ] = Path(),
) -> None:
    """Write agentdiff.toml and a CI job (GitHub Actions or GitLab) for the baseline loop."""
    scaffold = Scaffold(agent=agent, task_input=task_input, baseline=baseline, action=action)
    task = task_file(scaffold, directory)
    files = [config_file(directory), *task, *ci_files(ci.value, scaffold, directory)]
    for path, _ in files:  # every target first: a bad one leaves nothing written
        check_folder(path)
    for path, text in files:
        if _write_new(path, text):
            typer.echo(one_line(f"wrote {path}"))
        else:
            typer.echo(one_line(f"kept {path}: it exists (init never overwrites a file)"))
    job = files[-1][0].relative_to(directory)
    if ci is CI.gitlab and job.name != ".gitlab-ci.yml":
        typer.echo(f"add to .gitlab-ci.yml:  include: {{local: {job.as_posix()}}}")
    edit = f"put your agent's input in {sh(scaffold.task_path or '')}, " if task else ""
    typer.echo(
        f"next: {edit}{scaffold.record}, then agentdiff approve {scaffold.candidate} "
        f"--baseline {sh(baseline)} --reason 'first baseline'"
    )
