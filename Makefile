# Mnemolis: the commands the README shows.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: venv test lint typecheck check bench demo clean

$(BIN)/mnemolis: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/mnemolis

venv: $(BIN)/mnemolis

test: venv
	$(BIN)/ruff check mnemolis tests bench
	$(BIN)/mypy
	$(BIN)/mnemolis check
	$(BIN)/pytest

lint: venv
	$(BIN)/ruff check mnemolis tests bench

typecheck: venv
	$(BIN)/mypy

check: venv
	$(BIN)/mnemolis check

bench: venv
	$(BIN)/python bench/parse.py

demo: venv
	$(BIN)/mnemolis demo

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
