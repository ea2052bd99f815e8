# foresci — two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
TORCH_VERSION ?= 2.13.0
BIN := $(VENV)/bin
STAMP := $(VENV)/.foresci-installed
LLM_STAMP := $(VENV)/.foresci-llm-installed
RAY_STAMP := $(VENV)/.foresci-ray-installed
DOCS_STAMP := $(VENV)/.foresci-docs-installed
INSPECT_STAMP := $(VENV)/.foresci-inspect-installed
# llama-cpp-python from source without the AMX path (a native build dies on the first request on CPUs that
# report amx_tile) and without AVX-512; a prebuilt wheel in $(WHEELS) is used when that folder exists, and
# pip caches the wheel it builds (a wheel cached from a native build would have to be removed by hand).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
WHEELS ?= /root/wheels
LLM_WHEELS := $(if $(wildcard $(WHEELS)),--find-links $(WHEELS),)
# `make demo LLM=local` adds the five LLM methods and name-only on the packaged local model.
LLM ?=

.PHONY: demo test lint typecheck unit browser sandbox install clean llm examples ray docs inspect

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# CPU torch first, so sentence-transformers does not pull the CUDA build.
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install --quiet torch==$(TORCH_VERSION)
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

# The optional local model: llama-cpp-python[server] + SmolLM2-135M-Instruct (`foresci llm serve`).
$(LLM_STAMP): $(STAMP)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install $(LLM_WHEELS) -e ".[dev,local-llm]"
	touch $(LLM_STAMP)

llm: $(LLM_STAMP)

# The optional Ray engine (`--engine ray`); its tests start a 2-CPU local cluster (under CI=true a missing
# ray fails them rather than skipping).
$(RAY_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,ray]"
	touch $(RAY_STAMP)

ray: $(RAY_STAMP)

# The optional inspect_ai bridge (`foresci inspect`); tests/inspect runs a release under inspect's mockllm
# model (under CI=true a missing inspect_ai fails them rather than skipping).
$(INSPECT_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,inspect]"
	touch $(INSPECT_STAMP)

inspect: $(INSPECT_STAMP)

# The documentation site (mkdocs-material) into site/; --strict: a broken link, a missing anchor or a page
# left out of the nav fails the build. The reference pages are generated from the code by docs/hooks.
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

demo: $(STAMP) $(if $(filter local,$(LLM)),$(LLM_STAMP))
	$(BIN)/foresci demo $(if $(LLM),--llm $(LLM))

lint: $(STAMP)
	$(BIN)/ruff check foresci tests benchmarks docs/hooks

typecheck: $(STAMP)
	$(BIN)/mypy foresci

# Headless Chromium (Debian package) for the HTML report's browser test.
browser: $(STAMP)
	PYTHON=$(BIN)/python sh tests/support/ensure_chromium.sh

# bubblewrap (Debian package) for the plug-in sandbox: plug-in methods run each task in a bwrap-confined
# process, and tests/methods runs real ones (under CI=true a missing bwrap fails them rather than skipping).
sandbox:
	sh tests/support/ensure_bwrap.sh

# The example plug-in (examples/foresci-example-agent) registers through its entry point; tests/methods
# runs it through `foresci run` and `foresci eval`.
examples: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps -e examples/foresci-example-agent

# Two stages: the fast tests first (a failure there stops before the long end-to-end ones), then the
# tests marked slow (real CLI processes, sandboxes, Ray clusters, kill -9, browsers, the docs' code blocks).
unit: $(STAMP) examples
	$(BIN)/python -m pytest -m "not slow" --durations=15
	$(BIN)/python -m pytest -m slow --durations=15

# The real-model stage (tests/realllm) needs the local model: install it first (under CI=true a missing
# extra fails that stage rather than skipping it). `docs` builds the site; tests/docs renders it in Chromium
# and runs the README's and tutorials' marked code blocks.
test: inspect lint typecheck browser sandbox llm ray docs unit

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build site *.egg-info
