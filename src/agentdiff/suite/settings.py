"""Settings for a suite, each with where it came from.

Precedence: flag > `AGENTDIFF_*` env > the manifest's `[gate]`/`[compare]` > `agentdiff.toml` >
default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agentdiff.config import SETTINGS, load_options
from agentdiff.diff import CompareOptions
from agentdiff.suite.manifest import SuiteManifest

__all__ = ["resolve_settings"]


def resolve_settings(
    flags: Mapping[str, object],
    manifest: SuiteManifest | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[CompareOptions, dict[str, str]]:
    """The compare options of a suite and each setting's source (the options' own `sources`)."""
    env = os.environ if env is None else env
    given = {key: value for key, value in flags.items() if value is not None}
    from_manifest = {}
    if manifest is not None:
        for setting in SETTINGS:
            wanted = setting.name in manifest.raw_settings and setting.name not in given
            if wanted and not env.get(setting.env, "").strip():
                from_manifest[setting.name] = manifest.raw_settings[setting.name]
    resolved = load_options({**from_manifest, **given}, env=env)
    sources = dict(resolved.sources)
    for name in from_manifest:
        section = next(s.section for s in SETTINGS if s.name == name)
        sources[name] = f"{manifest.path if manifest else ''} [{section}]"
    return resolved.options.model_copy(update={"sources": sources}), sources
