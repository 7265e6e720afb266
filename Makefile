# make demo  : create .venv if missing, install kexplain with what the demo needs, run the main job
# make test  : create .venv, install kexplain with every extra, then lint, format check, type check,
#              doctests, the docs build and the suite; then the GPflow adapter in .venv-gpflow
# make dist  : build the wheel and the sdist into dist/ and check them with twine
# make bench : same set-up, then every benchmark script in benchmarks/
# make reproduce : same set-up, then every paper experiment at full size, records and docs/reproduction.rst
# make docs  : the documentation site, into docs/_build/html (warnings are errors)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp-install
DEMO_STAMP := $(VENV)/.stamp-demo
# the repository tests with the CPU build of torch; the [torch] extra itself takes a range
CONSTRAINTS := .ci/constraints.txt
OUT ?= kexplain-demo
SPHINXOPTS ?= -W --keep-going -q

.PHONY: reproduce test-gpflow demo test lint typecheck doctest unit docs docs-quick bench bench-quick install dist clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# the demo needs the core and the report's extras only (a first run installs a few packages, not all)
$(DEMO_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -c $(CONSTRAINTS) -e ".[report,skops]"
	touch $(DEMO_STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS) | $(PY)
	$(PY) -m pip install --quiet -c $(CONSTRAINTS) -e ".[dev,plots,io,docs,torch,dask,report,skops,preference,gpytorch,botorch,reproduce]"
	touch $(STAMP) $(DEMO_STAMP)

install: $(STAMP)

demo: $(DEMO_STAMP)
	$(VENV)/bin/kexplain demo --out $(OUT)

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks examples docs reproduce
	$(VENV)/bin/ruff format --check src tests benchmarks examples docs reproduce

typecheck: $(STAMP)
	$(VENV)/bin/mypy

doctest: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider --doctest-modules src/kexplain
	$(PY) -m pytest -q -p no:cacheprovider --doctest-glob="*.rst" docs/*.rst docs/capabilities/*.rst

unit: $(STAMP)
	$(PY) -m pytest -q -n 2 --durations=15 tests

test: lint typecheck doctest docs-quick unit test-gpflow

# GPflow 2 requires numpy < 2, so its adapter is tested in an environment of its own: kexplain's
# core, GPflow (with TensorFlow's CPU build) and pytest; the import check fails loudly rather than
# letting a broken install skip the tests
GPFLOW_VENV := .venv-gpflow
$(GPFLOW_VENV)/.stamp-gpflow: pyproject.toml
	$(PYTHON) -m venv $(GPFLOW_VENV)
	$(GPFLOW_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(GPFLOW_VENV)/bin/python -m pip install --quiet -e ".[gpflow]" "pytest>=7" "matplotlib>=3.7"
	touch $@

test-gpflow: $(GPFLOW_VENV)/.stamp-gpflow
	$(GPFLOW_VENV)/bin/python -c "import gpflow, kexplain"
	$(GPFLOW_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_gpflow.py
	$(GPFLOW_VENV)/bin/python -m pytest -q -p no:cacheprovider --doctest-modules src/kexplain/kernels/gpflow.py src/kexplain/models/gpflow.py

# docs-quick (CI) runs every gallery example at its quick size (KEXPLAIN_QUICK=1); docs at its default size
docs-quick: $(STAMP)
	KEXPLAIN_QUICK=1 $(VENV)/bin/sphinx-build -b html $(SPHINXOPTS) docs docs/_build/html

docs: $(STAMP)
	$(VENV)/bin/sphinx-build -b html $(SPHINXOPTS) docs docs/_build/html

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

reproduce: $(STAMP)
	$(PY) -m reproduce --size full

bench-quick: $(STAMP)
	$(PY) benchmarks/run_all.py --quick

dist: $(STAMP)
	rm -rf dist
	$(PY) -m build --no-isolation --outdir dist .
	$(VENV)/bin/twine check --strict dist/*

clean:
	rm -rf $(VENV) $(GPFLOW_VENV) $(OUT) .pytest_cache build dist src/*.egg-info docs/_build docs/auto_examples docs/api docs/sg_execution_times.rst
