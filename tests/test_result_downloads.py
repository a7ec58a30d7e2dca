"""Polish, Proverbs and Continue results download as CSV and JSON (like Rerank's table): the same rows as the
table on screen, plus what produced them."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from studio.ui.session_files import result_downloads

NARRATIVE = ("Maya kept promising herself she would start her thesis next weekend. Every weekend she found "
             "something else to do, and when the deadline came she had to write day and night.")


def _files(files) -> tuple[list[dict], dict]:
    paths = sorted((Path(f["path"] if isinstance(f, dict) else f) for f in files), key=lambda p: p.suffix)
    assert [p.suffix for p in paths] == [".csv", ".json"]
    with open(paths[0], newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return rows, json.loads(paths[1].read_text(encoding="utf-8"))


def test_polish_downloads(client):
    table, files, status = client.predict("He yelps and howls.", ["insertion", "retrieval"], 5, 0, api_name="/polish")
    assert "of the 5 candidates asked" in status
    rows, doc = _files(files)
    assert len(rows) == len(table["data"]) == len(doc["rows"]) >= 1
    assert rows[0]["literal"] == "He yelps and howls." and "**" not in rows[0]["candidate"]  # plain text, no markup
    from studio.ui.polish_tab import COLUMNS

    score, kb = COLUMNS.index("score"), COLUMNS.index("KB")
    assert [float(r["score"]) for r in rows] == [row[score] for row in table["data"]]
    assert [r["KB attests"] in ("True", True) for r in rows] == [row[kb] == "✓" for row in table["data"]]
    assert doc["about"]["strategies"] == ["insertion", "retrieval"] and "per-token probabilities" in doc["about"]["score"]


def test_proverbs_downloads(client):
    table, _chart, _dropdown, _status, files = client.predict(NARRATIVE, 3, api_name="/proverbs")
    rows, doc = _files(files)
    assert [r["proverb"] for r in rows] == [row[1] for row in table["data"]] == [r["proverb"] for r in doc["rows"]]
    assert rows[0]["narrative"] == NARRATIVE and "probability" in rows[0] and "score" in rows[0]
    assert isinstance(doc["rows"][0]["themes"], list) and doc["about"]["k"] == 3


def test_continue_downloads(client):
    result = client.predict("Nora dropped her notes, so she had to [wing it].", "plain", 2, 0, 5, 0.7, 8,
                            api_name="/continue")
    table, files = result[2], result[4]
    rows, doc = _files(files)
    assert [r["text"] for r in rows] == [row[1] for row in table["data"]]
    assert doc["about"]["settings"]["max_new_tokens"] == 8 and doc["about"]["narrative"]
    assert {"rank", "text", "p_plausible", "tokens", "samples"} <= set(rows[0])


def test_downloads_keep_hostile_text_as_text(tmp_path):
    text = '<img src=x onerror=alert(1)>, "quoted"; line\nbreak'
    csv_path, json_path = result_downloads(None, "t", [{"text": text, "tags": ["a", "b"]}], {"input": text})
    with open(csv_path, newline="", encoding="utf-8") as fh:
        row = next(csv.DictReader(fh))
    assert row == {"input": text, "text": text, "tags": "a; b"}
    assert json.loads(Path(json_path).read_text(encoding="utf-8"))["rows"][0]["tags"] == ["a", "b"]
    Path(csv_path).unlink()
    Path(json_path).unlink()


def test_download_numbers_read_to_four_decimals_on_every_tab():
    """A visitor's sweep: Continue's download said 0.39282965660095215 where Proverbs' and Rerank's say 0.2742."""
    csv_path, json_path = result_downloads(None, "t", [{"p": 0.39282965660095215, "n": 3, "x": None}], {"k": 1.5})
    with open(csv_path, newline="", encoding="utf-8") as fh:
        assert next(csv.DictReader(fh)) == {"k": "1.5", "p": "0.3928", "n": "3", "x": ""}
    assert json.loads(Path(json_path).read_text(encoding="utf-8"))["rows"] == [{"p": 0.3928, "n": 3, "x": None}]
    Path(csv_path).unlink()
    Path(json_path).unlink()
