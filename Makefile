# Biblioteca — the two quick-start commands are `make run` and `make test`.
# Both create .venv with the first Python >= 3.11 they find. `make run` installs the
# runtime only (requirements.txt and the package); `make test` and `make install-dev`
# add the test and tool dependencies (requirements-dev.txt).

# The probe runs each candidate quietly: a pyenv shim for a version that is not installed
# exists on PATH but prints "command not found" when run. Probed once (:=), not per use.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 \
	&& $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 \
	&& { echo $$p; break; }; done)
endif
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
PORT ?= 8080
# `make test` runs pytest on TEST_WORKERS processes (pytest-xdist; the suite mostly waits on
# emulators, servers, subprocesses and the browser, so more workers than cores pay: README,
# "Tests"); each test module runs whole on one worker. `make test PYTEST_ARGS=-n0` is serial.
TEST_WORKERS ?= 4
PYTEST_ARGS ?= -n $(TEST_WORKERS) --dist loadgroup

PROJECT ?=
REGION ?=
DOMAIN ?=

.PHONY: install install-dev run deploy test lint types unit bench format openapi docs clean

$(STAMP): requirements.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "Biblioteca needs Python 3.11 or newer on PATH"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	@touch $(STAMP)

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	@touch $(DEV_STAMP)

install: $(STAMP)  ## the runtime: what `make run` and `biblioteca` need

install-dev: $(DEV_STAMP)  ## the runtime plus the test and tool dependencies

run: install  ## serve the demo wiki and every function on http://127.0.0.1:$(PORT)/
	$(BIN)/biblioteca serve --demo --port $(PORT)

deploy:  ## create or update everything docs/deploy.md lists (DRY_RUN=1 prints the gcloud commands)
	PROJECT="$(PROJECT)" REGION="$(REGION)" DOMAIN="$(DOMAIN)" deploy/deploy.sh

test: lint types  ## lint, types, then every test tier (in parallel: PYTEST_ARGS=-n0 is serial)
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

types: install-dev
	$(BIN)/mypy

unit: install-dev  ## the fast loop: pure cores, no slow tests, small property runs
	HYPOTHESIS_PROFILE=dev $(BIN)/pytest tests/unit -q -m "not slow"

bench: install-dev
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

format: install-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .biblioteca .pytest_cache .mypy_cache .ruff_cache .hypothesis
