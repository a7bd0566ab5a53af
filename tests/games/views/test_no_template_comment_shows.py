"""A Django template's {# comment #} ends on its own line: one that runs on is printed on the
page as text. No page of the site shows one."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3] / "templates"


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(ROOT.rglob("*.html")) if "jinja2" not in p.parts],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_comment_of_a_django_template_ends_on_its_line(path):
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        opened = line.count("{#")
        assert opened == line.count("#}"), f"{path.name}:{number}: a comment runs on: {line}"
