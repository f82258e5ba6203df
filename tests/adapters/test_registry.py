import sys
import textwrap

import pytest

from agentdiff import AgentTrace, BaseAdapter, available_adapters, load_trace, register_adapter
from agentdiff.adapters import registry
from agentdiff.adapters.registry import AdapterPluginWarning, get_adapter
from agentdiff.errors import AdapterRegistrationError
from agentdiff.loader import input_files, parse_trace_data, runs_only

BUILTIN_NAMES = [spec.split(":")[1] for spec in registry.BUILTIN_ADAPTERS]


def _acme_trace(data):
    return AgentTrace(trace_id=data["run"], agent_name="acme-agent")


def test_decorator_registers_name_and_alias_explicit_and_detected(fresh_registry, tmp_path):
    @register_adapter("acme", aliases=("acme_tracer",))
    class AcmeAdapter(BaseAdapter):
        @classmethod
        def from_dict(cls, data):
            return _acme_trace(data)

        @classmethod
        def detect(cls, data):
            return isinstance(data, dict) and data.get("vendor") == "acme"

    target = tmp_path / "run.json"
    target.write_text('{"vendor": "acme", "run": "r-1"}')
    assert load_trace(target, adapter_name="acme").trace_id == "r-1"
    assert load_trace(target, adapter_name="acme_tracer").trace_id == "r-1"
    detected = load_trace(target)
    assert detected.metadata == {"source_format": "acme"}
    info = {a.name: a for a in available_adapters()}["acme"]
    assert info.aliases == ("acme_tracer",)
    assert not info.builtin
    assert get_adapter("acme") is AcmeAdapter


def test_a_registered_class_registers_again_only_under_its_own_names(fresh_registry):
    # under another name it returned early: nothing registered, and alias clashes were hidden
    @register_adapter("acme", aliases=("acme_tracer",))
    class AcmeAdapter(BaseAdapter):
        pass

    assert register_adapter("acme", aliases=("acme_tracer",))(AcmeAdapter) is AcmeAdapter
    with pytest.raises(AdapterRegistrationError, match="already registered as 'acme'"):
        register_adapter("acme2", aliases=("acme_v2",))(AcmeAdapter)
    with pytest.raises(AdapterRegistrationError, match="'langfuse' is taken by a built-in"):
        register_adapter("other", aliases=("langfuse",))(AcmeAdapter)
    with pytest.raises(AdapterRegistrationError, match="already registered as 'langfuse'"):
        register_adapter("lf2")(get_adapter("langfuse"))
    names = [a.name for a in available_adapters()]
    assert "acme" in names
    assert not {"acme2", "other", "lf2"} & set(names)
    assert get_adapter("acme_tracer") is AcmeAdapter


@pytest.mark.parametrize("name", ["generic", "canonical"])
def test_plugins_cannot_shadow_builtin_names_or_aliases(fresh_registry, name):
    with pytest.raises(AdapterRegistrationError, match="taken by a built-in adapter"):

        @register_adapter(name)
        class Shadow(BaseAdapter):
            pass


def test_plugin_alias_cannot_shadow_a_builtin(fresh_registry):
    with pytest.raises(AdapterRegistrationError, match="'generic' is taken"):

        @register_adapter("mine", aliases=("generic",))
        class Sneaky(BaseAdapter):
            pass

    assert "mine" not in [a.name for a in available_adapters()]


def test_greedy_plugin_never_steals_builtin_formats(fresh_registry, spec_example):
    @register_adapter("greedy")
    class Greedy(BaseAdapter):
        @classmethod
        def detect(cls, data):
            return True

        @classmethod
        def from_dict(cls, data):
            return AgentTrace(trace_id="stolen", agent_name="greedy")

    assert load_trace(spec_example).metadata["source_format"] == "generic"
    assert parse_trace_data({"unknown": 1}).trace_id == "stolen"


def test_plugin_detect_that_raises_is_skipped_with_a_warning(fresh_registry):
    @register_adapter("explodes")
    class Explodes(BaseAdapter):
        @classmethod
        def detect(cls, data):
            raise RuntimeError("boom")

    with pytest.warns(AdapterPluginWarning, match="detect\\(\\) failed: boom"):
        assert registry.detect_adapter({"x": 1}) is None


def _write_distribution(root, name, entry_points, module_source):
    dist = root / f"{name}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(entry_points)
    (root / f"{name}.py").write_text(textwrap.dedent(module_source))


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for mod in ("acme_plugin", "broken_plugin"):
        sys.modules.pop(mod, None)


def test_entry_point_plugin_is_discovered(fresh_registry, plugin_path, tmp_path):
    _write_distribution(
        plugin_path,
        "acme_plugin",
        "[agentdiff.adapters]\nacme_ep = acme_plugin:AcmeAdapter\n",
        """
        from agentdiff import AgentTrace, BaseAdapter

        class AcmeAdapter(BaseAdapter):
            aliases = ("acme_ep_alias",)

            @classmethod
            def detect(cls, data):
                return isinstance(data, dict) and data.get("vendor") == "acme-ep"

            @classmethod
            def from_dict(cls, data):
                return AgentTrace(trace_id=data["run"], agent_name="from-entry-point")
        """,
    )
    target = tmp_path / "run.json"
    target.write_text('{"vendor": "acme-ep", "run": "ep-1"}')
    trace = load_trace(target)
    assert trace.agent_name == "from-entry-point"
    assert trace.metadata == {"source_format": "acme_ep"}
    assert load_trace(target, adapter_name="acme_ep_alias").trace_id == "ep-1"
    info = {a.name: a for a in available_adapters()}["acme_ep"]
    assert info.origin == "entry point acme_plugin:AcmeAdapter"


def test_broken_plugin_is_skipped_with_a_warning(fresh_registry, plugin_path, spec_example):
    _write_distribution(
        plugin_path,
        "broken_plugin",
        "[agentdiff.adapters]\nbroken = broken_plugin:Missing\nnotanadapter = broken_plugin:VALUE\n",
        "raise_later = True\nVALUE = 3\n",
    )
    with pytest.warns(AdapterPluginWarning) as caught:
        names = [a.name for a in available_adapters()]
    messages = " ".join(str(w.message) for w in caught)
    assert "adapter plugin 'broken'" in messages
    assert "not a BaseAdapter subclass" in messages
    assert "broken" not in names
    assert load_trace(spec_example).trace_id == "run-101"
    assert len(registry.plugin_problems()) == 2


def test_builtins_come_first_in_fixed_priority(fresh_registry):
    infos = available_adapters()
    assert [a.name for a in infos][: len(BUILTIN_NAMES)] == registry.detection_order()[
        : len(BUILTIN_NAMES)
    ]
    assert infos[0].name == "generic"
    assert all(a.builtin for a in infos[: len(BUILTIN_NAMES)])


_MULTI_FILE_HOOKS = ("companions", "part_of", "with_companions")


@pytest.mark.parametrize("spec", registry.BUILTIN_ADAPTERS)
def test_the_multi_file_builtins_are_exactly_those_overriding_a_companion_hook(spec):
    cls = registry._builtin(spec)
    overrides = any(
        getattr(cls, hook).__func__ is not getattr(BaseAdapter, hook).__func__
        for hook in _MULTI_FILE_HOOKS
    )
    assert overrides == (spec in registry.MULTI_FILE_ADAPTERS)


def test_before_loading_only_the_multi_file_builtins_are_imported(fresh_registry):
    single = "agentdiff.adapters.crewai.adapter"
    sys.modules.pop(single, None)  # imported by an earlier test: see whether it comes back
    try:
        adapters = registry.multi_file_adapters()
        assert [cls.name for cls in adapters] == ["claude_code"]
        assert single not in sys.modules
        assert not fresh_registry.loaded
    finally:
        get_adapter("crewai")  # loads the registry (and re-imports the module)


def test_an_installed_plugin_is_asked_for_the_files_it_reads_beside_a_run(
    fresh_registry, plugin_path, tmp_path
):
    _write_distribution(
        plugin_path,
        "acme_plugin",
        "[agentdiff.adapters]\nacme_ep = acme_plugin:AcmeAdapter\n",
        """
        from pathlib import Path
        from agentdiff import BaseAdapter

        class AcmeAdapter(BaseAdapter):
            @classmethod
            def companions(cls, path, data):
                return [path.with_suffix(".side")]

            @classmethod
            def part_of(cls, path):
                return path.with_suffix(".json") if path.suffix == ".side" else None
        """,
    )
    run, side = tmp_path / "run.json", tmp_path / "run.side"
    assert input_files([run]) == [run, side]
    assert runs_only([run, side]) == [run]
    assert fresh_registry.loaded  # a plugin may read several files: every adapter was asked
