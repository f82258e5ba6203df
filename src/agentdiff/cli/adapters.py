"""`agentdiff adapters`: every registered adapter, built-in and plugin, with aliases."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from agentdiff.adapters.registry import available_adapters, plugin_problems
from agentdiff.cli.errors import handle_errors

__all__ = ["adapters"]


@handle_errors
def adapters() -> None:
    """List adapters in detection order (built-ins first), with aliases and origin."""
    table = Table("name", "aliases", "kind", "description", box=None)
    for info in available_adapters():
        table.add_row(
            info.name,
            ", ".join(info.aliases) or "-",
            "built-in" if info.builtin else f"plugin ({info.origin})",
            info.description,
        )
    console = Console(highlight=False, emoji=False)
    console.print(table, markup=False)
    for problem in plugin_problems():
        console.print(f"warning: {problem}", markup=False, style="yellow")
