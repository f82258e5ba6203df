# Two commands: `make demo` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CAPTURE_SOURCES ?= openai_agents langfuse crewai crewai_legacy genai runs_pool claude_code codex

COMPILED := build/compiled
ENGINE ?= compiled
# the tests spread over up to 4 cores (WORKERS=1: one process), each file whole in one worker
# (its module fixtures, servers and clusters stay with it)
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)
PARALLEL := $(if $(filter 1,$(WORKERS)),,-n $(WORKERS) --dist loadfile)

.PHONY: demo test install install-dev lint typecheck pytest fixtures bench schema clean compiled

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e ".[html]"

install-dev: $(BIN)/python
	$(BIN)/pip install -q -e ".[dev]"

demo: install
	@echo "== 1. The step tree of a real OpenAI Agents SDK run (examples/detour/baseline.json)"
	$(BIN)/agentdiff inspect examples/detour/baseline.json
	@echo
	@echo "== 2. A candidate that took a detour: one extra tool call"
	$(BIN)/agentdiff compare examples/detour/baseline.json examples/detour/candidate.json \
	  || echo "(exit code $$?: the gate blocked this candidate)"
	@echo
	@echo "== 3. A candidate stuck in a tool loop"
	$(BIN)/agentdiff compare examples/loop/baseline.json examples/loop/candidate.json \
	  || echo "(exit code $$?: the gate blocked this candidate)"
	@echo
	@echo "== 4. Mixed formats: a Langfuse API export against a Langfuse OTLP export"
	$(BIN)/agentdiff compare examples/mixed/baseline.langfuse-api.json \
	  examples/mixed/candidate.langfuse-otlp.json \
	  || echo "(exit code $$?: the gate blocked this candidate)"
	@echo
	@echo "== 5. The loop as a self-contained HTML report"
	$(BIN)/agentdiff compare examples/loop/baseline.json examples/loop/candidate.json \
	  --format html -o report.html || true
	@echo "wrote report.html: open it in a browser (it works offline)"

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# the engine's hot modules compiled with mypyc (hatch_build.py), as the wheel ships them,
# installed into build/compiled: on PYTHONPATH it comes before the editable (pure) sources.
# Rebuilt only when a file of the package or of its build changed (the build holds every
# module, compiled or not, so any source change makes it stale)
PACKAGE_FILES := $(shell find src/agentdiff -type f -not -path '*/__pycache__/*' -not -name '*.pyc')

compiled: install-dev $(COMPILED)/.built

$(COMPILED)/.built: $(PACKAGE_FILES) hatch_build.py pyproject.toml
	rm -rf build/wheel $(COMPILED)
	AGENTDIFF_MYPYC=1 $(BIN)/pip wheel -q --no-build-isolation --no-deps -w build/wheel .
	$(BIN)/pip install -q --no-deps --target $(COMPILED) build/wheel/agentdiff-*.whl
	touch $@

# the tests run against both builds: the pure sources and the compiled engine
test: install-dev lint compiled
	$(BIN)/pytest -q $(PARALLEL)
	AGENTDIFF_EXPECT_COMPILED=1 PYTHONPATH=$(CURDIR)/$(COMPILED) $(BIN)/pytest -q $(PARALLEL)

fixtures:
	scripts/capture/phoenix.sh
	for s in $(CAPTURE_SOURCES); do scripts/capture/capture.sh $$s || exit 1; done
	cd scripts/capture/js && npm ci --no-audit --no-fund && node capture.mjs ../../../tests/fixtures/real

# ENGINE=compiled (default: the compiled engine, as the wheel ships it) or ENGINE=pure
bench: install-dev $(if $(filter compiled,$(ENGINE)),compiled)
	$(if $(filter compiled,$(ENGINE)),PYTHONPATH=$(CURDIR)/$(COMPILED)) $(BIN)/python benchmarks/bench_compare.py

schema: install
	$(BIN)/agentdiff schema trace > schema/agent_trace.schema.json
	$(BIN)/agentdiff schema report > schema/diff_report.schema.json
	$(BIN)/agentdiff schema suite > schema/suite_report.schema.json
	$(BIN)/agentdiff schema runs > schema/runs_report.schema.json

clean:
	rm -rf $(VENV) .venv-capture-* build .pytest_cache .mypy_cache .ruff_cache
