"""Serving code says what a thing does and points to why with one line id (issue #40, item 5).

The run history (which read, which figures, what was tried) lives only in docs/experiments.md; serving modules
(everything under studio/ except studio/lab/) refer to it as `docs/experiments.md#<id>`, and every such id is an
explicit `<a id="<id>"></a>` anchor there. PROVENANCE_CHECK_ROOT points the checks at another checkout.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(os.environ.get("PROVENANCE_CHECK_ROOT") or Path(__file__).resolve().parents[1])
EXPERIMENTS = ROOT / "docs" / "experiments.md"
REFERENCE = re.compile(r"docs/experiments\.md#([A-Za-z0-9_-]+)")
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
#: a read's history in serving code ("on dev read 15 …", "Chosen on dev (read 6 of blind_reads/…")
FORBIDDEN = (re.compile(r"(?i)\b(dev|report) read \d+"), re.compile(r"(?i)read \d+ of blind_reads"))


def _serving_modules() -> list[Path]:
    studio = ROOT / "studio"
    return sorted(p for p in studio.rglob("*.py") if p.relative_to(studio).parts[0] != "lab")


def _referring_files() -> list[Path]:
    return _serving_modules() + sorted((ROOT / "docs").glob("*.md"))


def _anchors() -> list[str]:
    return ANCHOR.findall(EXPERIMENTS.read_text(encoding="utf-8"))


def test_serving_code_points_to_experiments():
    refs = [m for p in _serving_modules() for m in REFERENCE.findall(p.read_text(encoding="utf-8"))]
    assert refs, "no serving module points to docs/experiments.md#<id>"


def test_every_referenced_id_is_an_anchor():
    anchors = set(_anchors())
    missing = [f"{p.relative_to(ROOT)}: {ref}" for p in _referring_files()
               for ref in REFERENCE.findall(p.read_text(encoding="utf-8")) if ref not in anchors]
    assert not missing, "ids without an <a id> in docs/experiments.md:\n" + "\n".join(missing)


def test_anchors_are_unique():
    anchors = _anchors()
    assert len(anchors) == len(set(anchors)), sorted(a for a in set(anchors) if anchors.count(a) > 1)


def test_no_read_history_in_serving_code():
    hits = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}" for p in _serving_modules()
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if any(rx.search(line) for rx in FORBIDDEN)]
    assert not hits, "run history belongs in docs/experiments.md (point to it with one id):\n" + "\n".join(hits)
