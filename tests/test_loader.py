import gzip
import json

import pytest

from agentdiff import load_trace
from agentdiff.errors import (
    MultipleTracesError,
    TraceFileError,
    TraceFormatError,
    TraceValidationError,
    UnknownAdapterError,
    UnknownFormatError,
)
from agentdiff.loader import parse_trace_data, read_document


def test_gzip_is_read_transparently(tmp_path, spec_example):
    target = tmp_path / "run.json.gz"
    target.write_bytes(gzip.compress(spec_example.read_bytes()))
    assert load_trace(target).trace_id == "run-101"


def test_gzip_detected_by_magic_not_by_name(tmp_path, spec_example):
    target = tmp_path / "run.json"
    target.write_bytes(gzip.compress(spec_example.read_bytes()))
    assert load_trace(target).trace_id == "run-101"


def test_utf8_bom_is_accepted(tmp_path, spec_example):
    target = tmp_path / "bom.json"
    target.write_bytes(b"\xef\xbb\xbf" + spec_example.read_bytes())
    assert load_trace(target).agent_name == "WeatherAgent"


def test_json_lines_give_a_list_of_documents(tmp_path):
    target = tmp_path / "spans.jsonl"
    target.write_text('{"a": 1}\n\n{"b": 2}\n')
    assert read_document(target) == [{"a": 1}, {"b": 2}]


def test_json_lines_without_the_suffix_are_recognised(tmp_path):
    target = tmp_path / "spans.json"
    target.write_text('{"a": 1}\n{"b": 2}\n')
    assert read_document(target) == [{"a": 1}, {"b": 2}]


def test_bad_json_line_names_the_line(tmp_path):
    target = tmp_path / "spans.ndjson"
    target.write_text('{"a": 1}\n{"b": \n')
    with pytest.raises(TraceFormatError, match=r"spans.ndjson: invalid JSON on line 2"):
        read_document(target)


@pytest.mark.parametrize(
    ("content", "error", "message"),
    [
        (None, TraceFileError, "file not found"),
        (b"", TraceFormatError, "file is empty"),
        (b"   \n", TraceFormatError, "file is empty"),
        (b'{"trace_id": ', TraceFormatError, "invalid JSON"),
        (b"\xff\xfe\x00junk", TraceFormatError, "not UTF-8"),
        (b'{"hello": "world"}', UnknownFormatError, "no adapter recognises this document"),
        (b"42", TraceFormatError, "expected a JSON object or array"),
        (b"\x1f\x8bnot-gzip", TraceFormatError, "not a valid gzip file"),
    ],
)
def test_bad_files_raise_the_right_error_naming_the_file(tmp_path, content, error, message):
    target = tmp_path / "bad.json"
    if content is not None:
        target.write_bytes(content)
    with pytest.raises(error, match=message) as caught:
        load_trace(target)
    assert str(target) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_directory_is_a_file_error(tmp_path):
    with pytest.raises(TraceFileError, match="is a directory"):
        load_trace(tmp_path)


def test_unknown_format_lists_formats_tried_and_how_to_force(tmp_path):
    target = tmp_path / "x.json"
    target.write_text('{"vendor": "nobody"}')
    with pytest.raises(UnknownFormatError) as caught:
        load_trace(target)
    assert "tried: generic" in str(caught.value)
    assert "--adapter" in (caught.value.hint or "")


def test_unknown_adapter_lists_available_ones(spec_example):
    with pytest.raises(UnknownAdapterError, match="unknown adapter 'nope'; available: generic"):
        load_trace(spec_example, adapter_name="nope")


def test_auto_and_none_both_detect(spec_example):
    assert load_trace(spec_example, "auto").trace_id == load_trace(spec_example).trace_id


def test_validation_error_names_the_json_path(tmp_path, spec_example):
    data = json.loads(spec_example.read_text())
    data["steps"][1]["step_type"] = "dance"
    target = tmp_path / "bad.json"
    target.write_text(json.dumps(data))
    with pytest.raises(
        TraceValidationError, match=r"bad.json: steps\[1\]\.step_type: Input should be"
    ):
        load_trace(target)


def test_duplicate_ids_and_cycles_are_validation_errors(spec_example):
    data = json.loads(spec_example.read_text())
    data["steps"][1]["step_id"] = "step-1"
    data["steps"][1]["parent_id"] = None
    with pytest.raises(TraceValidationError, match="^duplicate step_id 'step-1'"):
        parse_trace_data(data)
    data = json.loads(spec_example.read_text())
    data["steps"][0]["parent_id"] = "step-2"
    # our own words, without pydantic's "Value error, " before them
    with pytest.raises(TraceValidationError, match="^parent cycle between steps"):
        parse_trace_data(data)


def test_input_file_is_never_modified(tmp_path, spec_example):
    target = tmp_path / "run.json"
    target.write_bytes(spec_example.read_bytes())
    before = target.read_bytes(), target.stat().st_mtime_ns
    load_trace(target)
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before


def test_multiple_traces_need_a_trace_id(fresh_registry):
    from agentdiff import AgentTrace, BaseAdapter, register_adapter

    @register_adapter("bundle")
    class Bundle(BaseAdapter):
        @classmethod
        def detect(cls, data):
            return isinstance(data, dict) and "bundle" in data

        @classmethod
        def trace_ids(cls, data):
            return sorted(data["bundle"])

        @classmethod
        def select_trace(cls, data, trace_id):
            return data["bundle"][trace_id]

        @classmethod
        def from_dict(cls, data):
            return AgentTrace(trace_id=data["id"], agent_name="b")

    doc = {"bundle": {"t1": {"id": "t1"}, "t2": {"id": "t2"}}}
    with pytest.raises(MultipleTracesError, match="holds 2 traces: t1, t2") as caught:
        parse_trace_data(doc)
    assert "--trace-id" in (caught.value.hint or "")
    assert parse_trace_data(doc, trace_id="t2").trace_id == "t2"
    with pytest.raises(MultipleTracesError, match="no trace 'zz'"):
        parse_trace_data(doc, trace_id="zz")


def test_an_adapter_bug_is_not_disguised_as_bad_input(fresh_registry):
    """Adapters raise TraceFormatError naming what is wrong; anything else is a bug (exit 3)."""
    from agentdiff import BaseAdapter, register_adapter

    @register_adapter("fragile")
    class Fragile(BaseAdapter):
        @classmethod
        def from_dict(cls, data):
            return data["missing"]

    with pytest.raises(KeyError, match="missing"):
        parse_trace_data({}, adapter_name="fragile")


def test_read_document_accepts_str_paths(spec_example):
    assert read_document(str(spec_example))["trace_id"] == "run-101"


def test_trace_id_selection_tolerates_hex_case_and_prefix(fresh_registry):
    from agentdiff import AgentTrace, BaseAdapter, register_adapter

    @register_adapter("hexbundle")
    class HexBundle(BaseAdapter):
        @classmethod
        def trace_ids(cls, data):
            return sorted(data)

        @classmethod
        def select_trace(cls, data, trace_id):
            return {"id": trace_id}

        @classmethod
        def from_dict(cls, data):
            return AgentTrace(trace_id=data["id"], agent_name="h")

    doc = {"0af7651916cd43dd": 1, "b7ad6b7169203331": 2}
    trace = parse_trace_data(doc, "hexbundle", trace_id="0x0AF7651916CD43DD")
    assert trace.trace_id == "0af7651916cd43dd"
