# foresci — two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
TORCH_VERSION ?= 2.13.0
BIN := $(VENV)/bin
STAMP := $(VENV)/.foresci-installed
LLM_STAMP := $(VENV)/.foresci-llm-installed
RAY_STAMP := $(VENV)/.foresci-ray-installed
DOCS_STAMP := $(VENV)/.foresci-docs-installed
EXAMPLES_STAMP := $(VENV)/.foresci-examples-installed
INSPECT_STAMP := $(VENV)/.foresci-inspect-installed
# llama-cpp-python from source without the AMX path (a native build dies on the first request on CPUs that
# report amx_tile) and without AVX-512; a prebuilt wheel in $(WHEELS) is used when that folder exists, and
# pip caches the wheel it builds (a wheel cached from a native build would have to be removed by hand).
# Only the libraries its Python server loads are built (libllama, libggml*): LLAVA_BUILD=OFF drops the
# multimodal library (mtmd, loaded only by the image chat handlers), and $(LLAMA_SKIP_COMMON), included by
# llama.cpp's own CMake project, turns off llama.cpp's `common` library and its HTTP client, which
# llama-cpp-python forces on but never installs or loads. The tools, examples, tests and C++ server are
# off already when llama.cpp is built as a subproject.
LLAMA_SKIP_COMMON := $(abspath $(VENV))/llama-skip-common.cmake
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
	-DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=$(LLAMA_SKIP_COMMON)
WHEELS ?= /root/wheels
LLM_WHEELS := $(if $(wildcard $(WHEELS)),--find-links $(WHEELS),)
# `make demo LLM=local` adds the five LLM methods and name-only on the packaged local model.
LLM ?=

.PHONY: print-llama-cmake-args demo test lint typecheck unit unit-fast unit-slow browser sandbox system install clean \
	llm examples ray docs inspect

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
	echo 'set(LLAMA_BUILD_COMMON OFF)  # a normal variable shadows the cache entry the parent forces' \
		> $(LLAMA_SKIP_COMMON)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install $(LLM_WHEELS) -e ".[dev,local-llm]"
	touch $(LLM_STAMP)

llm: $(LLM_STAMP)

# The flags above, for benchmarks/llama_build.sh.
print-llama-cmake-args:
	@echo '$(LLAMA_CMAKE_ARGS)'

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
# left out of the nav fails the build. The reference pages are generated from the code by docs/hooks, from
# this checkout's code (PYTHONPATH), whichever checkout the venv's foresci was installed from. A venv that
# already has mkdocs (`make docs VENV=../other/.venv` from a fresh clone) is used as it is: nothing is
# installed into it (its install stamps are older than a fresh clone's pyproject.toml).
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,docs]"
	touch $(DOCS_STAMP)

docs: $(if $(wildcard $(BIN)/mkdocs),,$(DOCS_STAMP))
	NO_MKDOCS_2_WARNING=1 PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(BIN)/mkdocs build --strict

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

# The Debian packages the tests need, one after the other (apt holds one lock): `make test` fetches them
# while the local model builds.
system: browser sandbox

# The example plug-in (examples/foresci-example-agent) registers through its entry point; tests/methods
# runs it through `foresci run` and `foresci eval`.
$(EXAMPLES_STAMP): $(STAMP) examples/foresci-example-agent/pyproject.toml
	$(BIN)/python -m pip install --quiet --no-deps -e examples/foresci-example-agent
	touch $(EXAMPLES_STAMP)

examples: $(EXAMPLES_STAMP)

# pytest-xdist workers for both test stages (0: run in this process). Each test module runs whole on one
# worker (tests/conftest.py groups the tests; the Ray engine tests share one group, so one cluster), so a
# module or session fixture is built at most once per worker.
PYTEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=15

# Two stages: the fast tests first (a failure there stops before the long end-to-end ones), then the
# tests marked slow (real CLI processes, sandboxes, Ray clusters, kill -9, browsers, the docs' code blocks,
# the real model).
unit-fast: $(STAMP) examples
	$(PYTEST) -m "not slow"

unit-slow: $(STAMP) examples
	$(PYTEST) -m slow

unit: $(STAMP) examples
	$(PYTEST) -m "not slow"
	$(PYTEST) -m slow

# The real-model stage (tests/realllm) needs the local model: install it first (under CI=true a missing
# extra fails that stage rather than skipping it). `docs` builds the site; tests/docs renders it in Chromium
# and runs the README's and tutorials' marked code blocks. Four timed stages (tests/support/stages.py prints
# their wall times at the end): every install (the local model builds while apt fetches the Debian
# packages), then ruff + mypy + the docs build side by side, then the fast tests, then the slow ones.
SUBMAKE := $(MAKE) --no-print-directory
test:
	$(PYTHON) tests/support/stages.py \
		"install=$(SUBMAKE) install && $(SUBMAKE) -j2 --output-sync=target llm system \
			&& $(SUBMAKE) ray inspect $(DOCS_STAMP) examples" \
		"lint + typecheck + docs=$(SUBMAKE) -j3 --output-sync=target lint typecheck docs" \
		"fast tests=$(SUBMAKE) unit-fast" \
		"slow tests=$(SUBMAKE) unit-slow"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build site *.egg-info
