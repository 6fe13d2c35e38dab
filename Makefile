# Two entry points, each creating its own virtual environment:
#   make run   - set up and run the table in simulation
#   make test  - set up and run the whole test suite (lint, types, tests)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HANDS  ?= 5

.PHONY: run test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/pokertable run --hands $(HANDS)

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict firmware drivers/shoe.py drivers/trays.py drivers/serial_device.py drivers/pcsc.py drivers/gpio.py drivers/debounce.py

pytest: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
