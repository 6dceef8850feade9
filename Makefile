# The two commands a newcomer needs: `make dev` and `make test`. Everything else is a helper.
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: install dev test lint typecheck unit stop-db clean

$(STAMP): pyproject.toml layers/common/requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

dev: install
	$(BIN)/spotter dev --port $(PORT)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest -n 2

stop-db: install
	$(BIN)/spotter stop-db

clean:
	rm -rf $(VENV) .spotter .mypy_cache .ruff_cache .pytest_cache
