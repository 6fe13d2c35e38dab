# Two entry points, each creating its own virtual environment:
#   make run   - set up and run the table in simulation
#   make test  - set up and run the whole test suite (lint, types, tests)
#   make floor-demo - a simulated card room: NATS, PostgreSQL, tables, a tournament, the web pages
# Optional compiled engine (mypyc; needs gcc and the Python headers):
#   make compiled       - compile the engine's hot modules in place (see setup.py)
#   make test-compiled  - build them, check compiled == pure, run the suite on them
#   make pure           - remove the compiled modules (back to pure Python)
# Mutation testing (not part of make test; docs/testing.md):
#   make mutate                                  - every target module (long)
#   make mutate MODULE=firmware.engine.pots      - one module
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HANDS  ?= 5

.PHONY: run floor-demo test lint typecheck pytest soak bench clean compiled pure test-compiled tables mutate

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77,<81'
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/pokertable run --hands $(HANDS)

floor-demo: $(STAMP)
	$(BIN)/pokertable floor --demo $(if $(DATA),--data $(DATA))

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy --strict firmware ui hal_sim drivers/shoe.py drivers/trays.py drivers/serial_device.py drivers/pcsc.py drivers/gpio.py drivers/mcp23017.py drivers/pin_buttons.py drivers/debounce.py drivers/virtual.py

pytest: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "not soak"

# The long soaks and exhaustive sweeps (marked `soak`): CI runs them after `make test`.
soak: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m soak

test: lint typecheck pytest

MODULE ?=
mutate: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,mutation]'
	$(BIN)/mutmut run $(if $(MODULE),"$(MODULE).*")
	$(BIN)/mutmut results

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

# Rebuild the stored evaluator tables and the heads-up preflop equity table (minutes).
tables: $(STAMP)
	$(BIN)/python -c "from firmware.engine.evaluator import write_tables_file as w; w()"
	$(BIN)/python -m firmware.odds.headsup --build

compiled: $(STAMP)
	POKERTABLE_MYPYC=1 $(BIN)/python setup.py build_ext --inplace
	$(BIN)/python -c "import firmware.engine.hand as h; assert h.__file__.endswith('.so'), h.__file__"

test-compiled: compiled
	$(BIN)/python -m pytest -q tests/test_compiled.py
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

pure:
	find firmware -name "*.so" -delete
	rm -rf build

clean: pure
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache mutants
