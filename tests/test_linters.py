"""ruff, import-linter and mypy pass on the code they hold to their rules, and would catch
a break of them: each is run on a copy of the tree as it is, then on the copy with one
break added (a function over the complexity limit, an upward import, a wrong type).

ruff runs over the whole tree, as `make test` runs it; mypy here over the engine alone, which
needs no Django settings (`make test` runs it over the whole site).
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# What ruff checks ([tool.ruff] in pyproject.toml): everything the copy holds.
LINTED = ["."]

# Thirteen branches: one over the limit of [tool.ruff.lint.mccabe] (12).
TANGLED = (
    "\n\ndef tangled(x: int) -> int:\n"
    + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(13))
    + "    return -1\n"
)


def run(copy, *command):
    return subprocess.run(
        [str(BIN / command[0]), *command[1:]],
        cwd=copy,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin", "HOME": str(copy)},
        timeout=300,
    )


def mypy(copy):
    # The engine alone: strict, and with no Django, so no settings are loaded.
    return run(
        copy, "mypy", "--follow-imports=silent", "--cache-dir", str(copy / ".mypy"), "games/engine"
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of the apps and pyproject.toml; each test works on its own copy of it."""
    base = tmp_path_factory.mktemp("tree")
    for name in ("games", "lobby", "accounts", "config", "bench", "tests", "examples"):
        shutil.copytree(
            ROOT / name, base / name, ignore=shutil.ignore_patterns("__pycache__", "migrations")
        )
    for name in ("pyproject.toml", "manage.py", "conftest.py"):
        shutil.copy(ROOT / name, base)
    return base


@pytest.fixture
def copy(tree, tmp_path):
    target = tmp_path / "tree"
    shutil.copytree(tree, target)
    return target


def append(path, text):
    path.write_text(path.read_text() + text)


def test_ruff_passes_on_the_linted_code_and_fails_on_a_tangled_function(copy):
    clean = run(copy, "ruff", "check", "--no-cache", *LINTED)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    formatted = run(copy, "ruff", "format", "--check", "--no-cache", *LINTED)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr

    append(copy / "games/engine/cards.py", TANGLED)
    result = run(copy, "ruff", "check", "--no-cache", *LINTED)
    assert result.returncode != 0
    assert "C901 `tangled` is too complex (14 > 12)" in result.stdout, result.stdout


def test_import_linter_passes_on_the_tree_and_fails_on_an_upward_import(copy):
    clean = run(copy, "lint-imports", "--no-cache")
    assert clean.returncode == 0, clean.stdout + clean.stderr

    path = copy / "games/engine/cards.py"
    path.write_text("from games.presenters import cards  # noqa\n" + path.read_text())
    result = run(copy, "lint-imports", "--no-cache")
    assert result.returncode != 0
    assert "games.engine is not allowed to import games.presenters" in " ".join(
        result.stdout.split()
    ), result.stdout


def test_mypy_is_strict_on_the_engine_and_fails_on_a_wrong_type(copy):
    clean = mypy(copy)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    # A wrong type, and a function without annotations (an error only in strict mode).
    append(
        copy / "games/engine/cards.py",
        '\n\nWRONG: str = card_points("R7")\n\n\ndef bare(code):\n    return code\n',
    )
    result = mypy(copy)
    assert result.returncode != 0
    out = result.stdout
    assert (
        'Incompatible types in assignment (expression has type "int", variable has type '
        '"str")' in out
    ), out
    assert "Function is missing a type annotation  [no-untyped-def]" in out, out
