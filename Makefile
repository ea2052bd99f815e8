# foresci — two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
TORCH_VERSION ?= 2.13.0
BIN := $(VENV)/bin
STAMP := $(VENV)/.foresci-installed

.PHONY: demo test lint typecheck unit browser install clean

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# CPU torch first, so sentence-transformers does not pull the CUDA build.
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install --quiet torch==$(TORCH_VERSION)
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/foresci demo

lint: $(STAMP)
	$(BIN)/ruff check foresci tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy foresci

# Headless Chromium (Debian package) for the HTML report's browser test.
browser: $(STAMP)
	PYTHON=$(BIN)/python sh tests/support/ensure_chromium.sh

unit: $(STAMP)
	$(BIN)/python -m pytest

test: lint typecheck browser unit

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build *.egg-info
