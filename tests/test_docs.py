"""The front door: a short README whose every link resolves, the pages it points to, a licence and a changelog."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "CHANGELOG.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_a_front_door_not_a_lab_notebook():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert not re.search(r"(^|[\s(])I (measured|tried|see|chose|added|mark|did)\b", text), "first-person notes go to docs/"
    for needed in ("make demo", "make test", "<!-- results:start -->", "## Layout", "Hugging Face Space"):
        assert needed in text


def test_licence_and_changelog_are_there():
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").startswith("# Changelog")


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert not broken, broken
