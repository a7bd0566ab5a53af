"""The repository stands on its own: its README and docs point at nothing outside it, and
its copies of the rule book and the engine's contract are the project's shared ones."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
COPIES = {
    "docs/rules/wild-cards-teams.txt": "rules/wild-cards-teams.txt",
    "docs/rules/clarifications.md": "rules/CLARIFICATIONS.md",
    "docs/engine-contract.md": "ENGINE_CONTRACT.md",
}


def documents():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_no_document_points_outside_the_repository():
    outside = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in documents()
        for line in path.read_text().splitlines()
        if "../shared" in line or "shared/rules" in line or "shared/ENGINE" in line
    ]
    assert not outside


@pytest.mark.parametrize("copy,original", sorted(COPIES.items()))
def test_the_repositorys_copy_is_there_and_matches_the_shared_one(copy, original):
    text = (ROOT / copy).read_text()
    assert len(text) > 1000
    if not (SHARED / original).exists():
        pytest.skip(f"no shared/{original} beside this clone to compare with")
    assert text == (SHARED / original).read_text()
