# The two commands: `make run` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install migrate bench clean

# The Bot API's client package (clients/python) is installed beside the site, editable: the
# tests import it and run examples/random_bot.py on it as a subprocess, which a sys.path
# insert in a conftest would not reach. It is not in the `test` extra because an extra
# cannot name a package by a relative path (PEP 508 takes only absolute file:// URLs).
$(STAMP): pyproject.toml clients/python/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet -e ./clients/python
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

# `make run PORT=9000 HOST=0.0.0.0` as well as the environment's PORT and HOST.
run: migrate
	$(BIN)/python manage.py ensure_demo
	$(BIN)/python manage.py runsite $(if $(HOST),--host $(HOST)) $(if $(PORT),--port $(PORT))

# The import rules first (pyproject.toml, [tool.importlinter]), then ruff over the whole tree
# (lint, import order, the complexity limit, the format) and mypy over the whole site
# ([tool.mypy]: strict on the engine and the seat door, every function annotated in the
# actions, presenters and store). Then pytest twice: every test but the fault tests on
# TEST_WORKERS processes (pytest-xdist; `auto` is one a core), then the fault tests (marked
# `alone` by tests/conftest.py) one at a time, since they judge recoveries against windows
# of seconds. Both always run; pytest exits 5 when it collected no tests, which fails only
# when neither run collected any (PYTEST_ARGS="tests/lobby" leaves no fault test to run).
TEST_WORKERS ?= auto

test: install
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --maxprocesses 8 --dist loadfile -m "not alone" \
		$(PYTEST_ARGS); rest=$$?; \
	$(BIN)/python -m pytest -m alone $(PYTEST_ARGS); alone=$$?; \
	if [ $$rest -eq 5 ] && [ $$alone -eq 5 ]; then echo "make test: no tests were collected" >&2; exit 1; fi; \
	for rc in $$rest $$alone; do [ $$rc -eq 0 ] || [ $$rc -eq 5 ] || exit $$rc; done

bench: migrate
	$(BIN)/python manage.py bench_decisions

clean:
	rm -rf var staticfiles .pytest_cache
