"""`python -m studio build proverbs`: assets/proverbs/catalog.json of catalog.py, from ePiC's proverbs.json (the texts
and ids) and the studio's own files `meanings_epic.tsv` and `additions.tsv`."""
from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from ...atomic import atomic_write
from ...errors import InputError
from ...paths import PROJECT_ROOT
from ...proverbs.catalog import CATALOG_PATH, EPIC_DIR, PROVERB_ASSETS, Catalog, Proverb, load_catalog, normalize

# ePiC's source text carries a misspelling and a scraping leftover; the catalog shows the proverbs as they are
# said, and `source_text` keeps ePiC's original so that its rows can still be matched.
TEXT_FIXES = {
    "Procastination is thief of time": "Procrastination is the thief of time",
    "Build a better mousetrap and the world will beat a path to your doorLink to proverb":
        "Build a better mousetrap and the world will beat a path to your door",
}


def _read_tsv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _themes(cell: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in (cell or "").split(";") if t.strip())


def build_catalog(argv: list[str] | None = None) -> dict:
    """`python -m studio build proverbs [--epic DIR]`: write assets/proverbs/catalog.json."""
    parser = argparse.ArgumentParser(prog="python -m studio build proverbs")
    parser.add_argument("--epic", default=str(EPIC_DIR), help="folder with ePiC's proverbs.json")
    args = parser.parse_args(argv or [])
    source = Path(args.epic) / "proverbs.json"
    if not source.is_file():
        raise InputError(f"{source} not found; pass --epic with the folder of ePiC's proverbs.json")
    epic = sorted(json.loads(source.read_text(encoding="utf-8")), key=lambda r: int(r["quote_id"][1:]))
    meanings = {r["quote_id"]: r for r in _read_tsv(PROVERB_ASSETS / "meanings_epic.tsv")}
    missing = [r["quote_id"] for r in epic if r["quote_id"] not in meanings]
    if missing:
        raise InputError(f"meanings_epic.tsv has no meaning for {', '.join(missing[:10])}")
    proverbs = [Proverb(id=r["quote_id"], text=TEXT_FIXES.get(r["quote"], r["quote"]).strip(),
                        meaning=meanings[r["quote_id"]]["meaning"].strip(), themes=_themes(meanings[r["quote_id"]]["themes"]),
                        quote_id=r["quote_id"], source_text=r["quote"]) for r in epic]
    proverbs += [Proverb(id=r["id"], text=r["proverb"].strip(), meaning=r["meaning"].strip(), themes=_themes(r["themes"]))
                 for r in _read_tsv(PROVERB_ASSETS / "additions.tsv")]
    catalog = Catalog(proverbs)  # validates
    seen: dict[str, str] = {}
    for p in proverbs:
        key = normalize(p.text)
        if key in seen:
            raise InputError(f"{p.id} repeats the proverb of {seen[key]}: {p.text!r}")
        seen[key] = p.id
    atomic_write(CATALOG_PATH, json.dumps([p.to_json() for p in proverbs], indent=1, ensure_ascii=False) + "\n")
    load_catalog.cache_clear()
    return {"path": str(CATALOG_PATH.relative_to(PROJECT_ROOT)), "proverbs": len(catalog),
            "epic": len(catalog.epic_indices), "additions": len(catalog) - len(catalog.epic_indices),
            "digest": catalog.digest}
