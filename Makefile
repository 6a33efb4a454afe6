# The two commands of the README: `make run` and `make test`. Both create the virtual environment
# and install what is missing; running them again changes nothing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: install run test test-fast lint demo clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, pinned: the CPU wheel, never the multi-GB CUDA build
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	# the embedding model exported for ONNX Runtime, once (inside the venv's copy of the model)
	HF_HUB_OFFLINE=1 $(BIN)/assess model export || echo "the embedding model will run on torch"
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/assess serve

lint: install
	$(BIN)/ruff check foundation assessment_engine orchestration knowledge_base chat_app benchmarks command_line tests
	$(BIN)/mypy
	$(BIN)/lint-imports

test: install
	bash scripts/ensure_chromium.sh
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest tests/browser tests/integration
	# the unit tier in process, a pytest process per core: a third of the suite's time on one
	$(BIN)/python -m pytest tests/unit -n 2

# the edit loop: the unit tier alone (in process, no server, subprocess, PostgreSQL or browser), one pytest
# process per core (pytest-xdist): about a minute here
test-fast: install
	$(BIN)/python -m pytest tests/unit -q -n auto

clean:
	rm -rf $(VENV) data .pytest_cache test-output
