# forumbot — every target installs what it needs into .venv first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help install test lint typecheck pytest demo bench clean

help:
	@echo "make demo   - set up and run the main job on the bundled demo forum"
	@echo "make test   - set up and run ruff, mypy and the whole test suite"
	@echo "make bench  - benchmarks (not part of make test)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check forumbot tests bench

typecheck: $(STAMP)
	$(BIN)/mypy forumbot

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: lint typecheck pytest

demo: $(STAMP)
	$(BIN)/forumbot scenario check scenarios/

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
