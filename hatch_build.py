"""Wheel build hook: the engine's hot modules compiled with mypyc, when asked for.

`AGENTDIFF_MYPYC=1 pip wheel --no-build-isolation .` (in an environment with mypy, setuptools
and the runtime dependencies, such as the dev venv) builds a wheel whose `COMPILED` modules are
C extensions made by mypyc from the same typed sources; their `.py` files stay in the wheel
beside them, and Python imports the extension first. Every other build (editable installs,
sdists, wheels without the variable) is the pure-Python package, unchanged. `make compiled`
builds and installs the compiled wheel; `make test` runs the tests against both builds.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED = (
    "align",
    "compare",
    "findings",
    "fold",
    "groups",
    "lis",
    "loops",
    "metrics",
    "normalize",
    "order",
    "portable",
    "recovery",
    "signatures",
    "totals",
)
"""The `agentdiff.diff` modules compiled: the engine's per-step passes (no pydantic model is
defined in them; `changes` subclasses `list`, which mypyc cannot compile)."""

_WORK = Path("build") / "mypyc"


class MypycHook(BuildHookInterface):  # type: ignore[type-arg]
    """Compile `COMPILED` into the wheel (only with `AGENTDIFF_MYPYC=1`, never editable)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile and add the extensions to the wheel (a pure wheel unless asked for)."""
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("AGENTDIFF_MYPYC") != "1":
            return
        root = Path(self.root)
        built = _compile(root)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path in built:
            build_data["force_include"][str(path)] = str(path.relative_to(root / _WORK / "lib"))


def _compile(root: Path) -> list[Path]:
    """Run mypyc and setuptools' `build_ext` on the modules; the extension files made."""
    from mypyc.build import mypycify  # noqa: PLC0415 - only a compiled build needs mypy
    from setuptools import Distribution  # noqa: PLC0415

    work = root / _WORK
    shutil.rmtree(work, ignore_errors=True)
    sources = [f"src/agentdiff/diff/{name}.py" for name in COMPILED]
    cwd = Path.cwd()
    os.chdir(root)
    try:
        extensions = mypycify(
            ["--config-file", "pyproject.toml", *sources],
            opt_level="3",
            target_dir=str(work / "c"),
        )
        dist = Distribution({"name": "agentdiff", "ext_modules": extensions})
        command = dist.get_command_obj("build_ext")
        command.build_lib = str(work / "lib")  # type: ignore[attr-defined]
        command.build_temp = str(work / "tmp")  # type: ignore[attr-defined]
        command.parallel = os.cpu_count() or 1  # type: ignore[attr-defined]
        dist.run_command("build_ext")
    finally:
        os.chdir(cwd)
    suffix = ".so" if sys.platform != "win32" else ".pyd"
    return sorted((work / "lib").rglob(f"*{suffix}"))
