# Two commands: `make demo` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CAPTURE_SOURCES ?= langchain openai_agents langfuse crewai genai

.PHONY: demo test install install-dev lint typecheck pytest fixtures bench schema clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e .

install-dev: $(BIN)/python
	$(BIN)/pip install -q -e ".[dev]"

demo: install
	$(BIN)/agentdiff inspect examples/baseline.json
	$(BIN)/agentdiff convert examples/candidate.json -o /dev/null

lint: install-dev
	$(BIN)/ruff check src tests benchmarks scripts cookbooks
	$(BIN)/mypy

test: install-dev lint
	$(BIN)/pytest -q

fixtures:
	for s in $(CAPTURE_SOURCES); do scripts/capture/capture.sh $$s || exit 1; done

bench: install-dev
	$(BIN)/python benchmarks/bench_compare.py

schema: install
	$(BIN)/agentdiff schema trace > schema/agent_trace.schema.json
	$(BIN)/agentdiff schema report > schema/diff_report.schema.json

clean:
	rm -rf $(VENV) .venv-capture-* .pytest_cache .mypy_cache .ruff_cache
