# Every target sets itself up from a fresh clone: a .venv with the pinned dev dependencies.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Test processes (pytest-xdist): the suite is CPU-bound and these machines have two cores.
PYTEST_JOBS ?= 2

.PHONY: setup demo test unit lint typecheck coverage codegen codegen-check fuzz bench clean lab lab-install lab-latest lab-check shell-lab

$(STAMP): pyproject.toml constraints.txt
	@echo "setup: creating $(VENV) and installing the package with its pinned dev tools (pytest, mypy, ruff, hypothesis, jsonschema, datamodel-code-generator, ...); about 2-3 minutes the first time"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	touch $(STAMP)
	@echo "setup: done ($(VENV))"

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py
	$(BIN)/python examples/policy_demo.py

test: codegen-check lint typecheck coverage lab-check

unit: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

coverage: $(STAMP)
	rm -f .coverage .coverage.*
	$(BIN)/coverage run -m pytest -n $(PYTEST_JOBS)
	$(BIN)/coverage combine -q
	$(BIN)/coverage json -q -o coverage.json
	$(BIN)/python tools/coverage_floor.py coverage.json 90

# Property tests at 10,000 examples per property and adapter (in parallel processes), then a
# 100,000-line bridge soak; about 20 minutes on two cores.
fuzz: $(STAMP)
	@echo "fuzz step 1/3: property tests at 10,000 examples each"
	$(BIN)/python tools/fuzz.py
	@echo "fuzz step 2/3: acp bridge soak, 100,000 lines"
	$(BIN)/python tools/soak.py 100000
	@echo "fuzz step 3/3: shell lab, the splitter against bash, dash and zsh on 40,000 generated lines"
	$(BIN)/python -W ignore -m lab.shell --generated 40000 --seed $${SEED:-1}

# The shell lab (issue 27): zsh from the package registry into ~/.cache, unprivileged; the corpus
# run in the sandbox against bash, dash and zsh. make test runs it through tests/test_shell_lab.py.
shell-lab: $(STAMP)
	$(BIN)/python -W ignore -m lab.shell --generated 3000

codegen: $(STAMP)
	$(BIN)/python -m codegen

codegen-check: $(STAMP)
	$(BIN)/python -m codegen --check

# Hook latency against the floor, in-process throughput, acp bridge; writes bench/latest.md
# (untracked). BENCH_WRITE=1 writes the tracked docs/performance.md instead.
bench: $(STAMP)
	$(BIN)/python bench/run.py $(if $(BENCH_WRITE),--output docs/performance.md)

# The real-host lab: pinned host CLIs from the npm registry (cached in ~/.cache/agent-control-plane-core/lab,
# about 2.7 GB on first use), each run offline against the scripted model server; rewrites docs/hosts.md.
lab-install: $(STAMP)
	$(BIN)/python -m lab.install --older

lab: lab-install
	$(BIN)/python -m lab.run --older --write --jobs 3

# What make test runs: the pinned lab must match every declaration and docs/hosts.md.
lab-check: lab-install
	$(BIN)/python -m lab.run --older --check --jobs 3

# Drift: the same lab on the newest registry releases; prints where the matrix differs.
lab-latest: $(STAMP)
	$(BIN)/python -m lab.run --latest --diff

clean:
	rm -rf $(VENV) coverage.json .coverage .coverage.* .pytest_cache .mypy_cache .ruff_cache
