# The two commands: `make run` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install migrate bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

# `make run PORT=9000 HOST=0.0.0.0` as well as the environment's PORT and HOST.
run: migrate
	$(BIN)/python manage.py ensure_demo
	$(BIN)/python manage.py runsite $(if $(HOST),--host $(HOST)) $(if $(PORT),--port $(PORT))

# The import rules first (pyproject.toml, [tool.importlinter]), then ruff (lint, import
# order, the complexity limit, the format) and mypy over what is typed so far: the rules
# engine, the seat door, a seat's state and its deadlines, strict ([tool.mypy]); pytest exits 5 when it collected no
# tests: that is a failure too.
TYPED := games/engine games/actions/access.py games/store/seats.py games/deadlines.py
test: install
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff check $(TYPED) tests/test_linters.py
	$(BIN)/ruff format --check $(TYPED) tests/test_linters.py
	$(BIN)/mypy --follow-imports=silent $(TYPED)
	$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: no tests were collected" >&2; exit 1; fi; exit $$rc

bench: migrate
	$(BIN)/python manage.py bench_decisions

clean:
	rm -rf var staticfiles .pytest_cache
