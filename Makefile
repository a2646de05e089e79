# uvlab: `make run` opens the default scene, `make test` runs the test suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run demo test test-all test-gpu bench lint clean bundle bundle-gpu test-packaging

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]" ruff
	touch $(STAMP)

# Opens the desktop lab on the default scene; with no display, runs the headless demo.
run: $(STAMP)
	$(BIN)/uvlab

demo: $(STAMP)
	$(BIN)/uvlab demo --out uvlab-demo

# The import-linter contracts of pyproject.toml (the layers) first, then the tests, spread
# over one pytest-xdist worker per CPU core (worksteal: each worker starts on its own half
# of the modules, so a module-scoped fixture is built about once, and an idle worker takes
# tests from the other's queue). test-all adds the tests marked slow. Bytecode is written
# even where the environment says not to (PYTHONDONTWRITEBYTECODE): the suite starts a few
# hundred `uvlab` and Dask worker processes, which then reuse the compiled modules.
PYTEST := QT_QPA_PLATFORM=offscreen PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n auto --dist worksteal --durations=25

test: $(STAMP)
	$(BIN)/lint-imports
	$(PYTEST)

test-all: $(STAMP)
	$(BIN)/lint-imports
	$(PYTEST) -m "not packaging and not casa"

test-gpu: $(STAMP)
	$(BIN)/python -m pytest -q -m gpu

bench: $(STAMP)
	$(BIN)/uvlab bench predict

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bundle:
	PYTHON=$(PYTHON) bash packaging/build_bundle.sh

bundle-gpu:
	PYTHON=$(PYTHON) UVLAB_BUNDLE_GPU=1 bash packaging/build_bundle.sh

test-packaging: $(STAMP)
	$(BIN)/python -m pip install -q build
	$(BIN)/python -m pytest -q -m packaging tests/test_packaging.py

clean:
	rm -rf $(VENV) build dist *.egg-info uvlab-demo
