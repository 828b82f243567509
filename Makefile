# Biblioteca — the two quick-start commands are `make run` and `make test`.
# Both create .venv with the first Python >= 3.11 they find and install into it.

PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	&& { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8080

.PHONY: install run test lint types unit bench format openapi docs clean

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "Biblioteca needs Python 3.11 or newer on PATH"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	@touch $(STAMP)

install: $(STAMP)

run: install  ## serve the demo wiki and every function on http://127.0.0.1:$(PORT)/
	$(BIN)/biblioteca serve --demo --port $(PORT)

test: lint types  ## lint, types, then every test tier
	$(BIN)/pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: install
	$(BIN)/mypy

unit: install  ## the fast loop: pure cores, no slow tests, small property runs
	HYPOTHESIS_PROFILE=dev $(BIN)/pytest tests/unit -q -m "not slow"

bench: install
	$(BIN)/python bench/answers.py
	$(BIN)/python bench/retrieval.py
	$(BIN)/python bench/latency.py
	$(BIN)/python bench/site.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/cold_start.py
	$(BIN)/python bench/memory.py

openapi: install  ## regenerate openapi.json from shared/api/models.py
	$(BIN)/python -m shared.api.openapi

docs: openapi  ## regenerate docs/api.md (from openapi.json) and docs/cli.md (from the parser)
	$(BIN)/python -m shared.api.reference
	$(BIN)/python -m shared.cli.reference

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .biblioteca .pytest_cache .mypy_cache .ruff_cache .hypothesis
