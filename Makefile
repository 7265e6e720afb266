# make demo  : create .venv if missing, install kexplain with its extras, run the main job
# make test  : same set-up, then the whole test suite
# make bench : same set-up, then every benchmark script in benchmarks/
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp-install
OUT ?= kexplain-demo

.PHONY: demo test bench bench-quick install clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev,plots,io]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/kexplain demo --out $(OUT)

test: $(STAMP)
	$(PY) -m pytest -q -n 2 --durations=15 tests

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache build src/*.egg-info

bench-quick: $(STAMP)
	$(PY) benchmarks/run_all.py --quick
