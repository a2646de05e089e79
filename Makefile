# uvlab: `make run` opens the default scene, `make test` runs the test suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run demo test test-gpu bench lint clean

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

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

test-gpu: $(STAMP)
	$(BIN)/python -m pytest -q -m gpu

bench: $(STAMP)
	$(BIN)/uvlab bench predict

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) build dist *.egg-info uvlab-demo
