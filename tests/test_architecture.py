"""The import rules (docs/architecture.md) hold, inside the games app and between the apps,
and their check would catch a break of them: import-linter's contracts (pyproject.toml) are
run on the tree as it is and on copies with one import against the rule added.
"""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")


def lint(root):
    return subprocess.run(
        [str(LINT), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


@pytest.fixture
def copy(tmp_path):
    for name in ("games", "lobby", "accounts", "config", "bench"):
        shutil.copytree(
            ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "migrations")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def add_line(path, line):
    text = path.read_text()
    path.write_text(f"{line}  # noqa\n{text}")


def test_the_tree_keeps_every_contract():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    "module, line, broken",
    [
        # The store reaching up to the actions: the circle this layering undid.
        (
            "games/store/__init__.py",
            "from games.actions import decisions",
            "games.store is not allowed to import games.actions",
        ),
        # A presenter pushing, or the engine rendering.
        (
            "games/presenters/describe.py",
            "from games import effects",
            "games.presenters is not allowed to import games.effects",
        ),
        (
            "games/engine/cards.py",
            "from games.presenters import cards",
            "games.engine is not allowed to import games.presenters",
        ),
        # An action importing the task module that calls it (tasks are sent by name).
        (
            "games/actions/clock.py",
            "from games import tasks",
            "games.actions is not allowed to import games.tasks",
        ),
        # Inside the actions: the decision door calling what is built on it.
        (
            "games/actions/decisions.py",
            "from games.actions import timeouts",
            "games.actions.decisions is not allowed to import games.actions.timeouts",
        ),
        # The engine is pure.
        (
            "games/engine/game.py",
            "import django.db",
            "games.engine is not allowed to import django",
        ),
        # Between the apps: the accounts reaching up to the games app's moderation, or the games
        # app to the lobby.
        (
            "accounts/admin.py",
            "from games.moderation import actions",
            "accounts is not allowed to import games",
        ),
        ("games/models.py", "from lobby import models", "games is not allowed to import lobby"),
        # The lobby using moderation (it is the games app's, reached through its admin only).
        (
            "lobby/views.py",
            "from games.moderation import staff",
            "lobby is not allowed to import games.moderation",
        ),
        # The games' own actions calling moderation, which is built on them.
        (
            "games/actions/decisions.py",
            "from games.moderation import staff",
            "games.actions is not allowed to import games.moderation.staff",
        ),
        # The site importing a research tool (bench/ imports the site, never the other way).
        (
            "games/presenters/replay.py",
            "from bench.research import ladder",
            "games is not allowed to import bench",
        ),
        # Moderation's report model reaching up to the tables' models that register it.
        (
            "games/moderation/models.py",
            "from games import models",
            "games.moderation.models is not allowed to import games.models",
        ),
    ],
)
def test_an_import_against_the_rule_fails_the_check(copy, module, line, broken):
    add_line(copy / module, line)
    result = lint(copy)
    assert result.returncode != 0
    assert broken in " ".join(result.stdout.split()), result.stdout


def function_local_imports(path):
    """(line, name) of each import inside a function or method of `path`."""
    found = []

    def visit(node, in_function, in_ready):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function and not in_ready:
                found.append((child.lineno, ast.unparse(child)))
            is_function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            visit(
                child,
                in_function or is_function,
                in_ready or (is_function and child.name == "ready" and path.name == "apps.py"),
            )

    visit(ast.parse(path.read_text()), False, False)
    return found


def test_no_import_inside_a_function_but_the_apps_ready():
    """An import hidden in a function is how the old circle kept from failing at import
    time; only AppConfig.ready, which runs once the apps are loaded, may have one."""
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in (ROOT / "games").rglob("*.py")
        if "migrations" not in path.parts and (found := function_local_imports(path))
    }
    assert offenders == {}


def test_the_local_import_check_sees_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from games import store\n    return store\n")
    assert function_local_imports(sample) == [(2, "from games import store")]
