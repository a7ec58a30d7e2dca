"""The Proverbs tab end to end through gradio_client (tiny profile)."""
from __future__ import annotations

import pytest

NARRATIVE = ("Maya kept promising herself she would start her thesis next weekend. Every weekend she found "
             "something else to do, and when the deadline came she had to write day and night.")


def test_proverbs_align_and_similar_endpoints(client):
    table, chart, dropdown, status, files = client.predict(NARRATIVE, 4, api_name="/proverbs")
    rows = table["data"]
    assert len(rows) == 4 and [r[0] for r in rows] == [1, 2, 3, 4]
    assert "untrained" in status  # the tiny embedder is not the one the adapter was trained with
    proverb = rows[0][1]
    proverb_hl, narrative_hl, pairs, pair_files = client.predict(NARRATIVE, proverb, api_name="/align")
    assert "".join(part["token"] for part in narrative_hl) == NARRATIVE
    assert "".join(part["token"] for part in proverb_hl) == proverb
    labels = [part["class_or_confidence"] for part in narrative_hl if part["class_or_confidence"]]
    assert len(labels) == len(set(labels)) == len(pairs["data"])  # one colour per pair, no overlap
    # the pairs' downloads hold each span with its offsets in the texts
    import csv
    import json

    with open(pair_files[1], encoding="utf-8") as fh:
        saved = json.load(fh)
    assert saved["about"] == {"narrative": NARRATIVE, "proverb": proverb} and len(saved["rows"]) == len(pairs["data"])
    for row in saved["rows"]:
        assert NARRATIVE[row["narrative_start"]:row["narrative_end"]] == row["narrative_span"]
        assert proverb[row["proverb_start"]:row["proverb_end"]] == row["proverb_span"]
    result, similar_files = client.predict(NARRATIVE, "He lost his savings.\nThe roses bloomed.", "embedding-cosine",
                                           api_name="/similar")
    assert sorted(r[2] for r in result["data"]) == ["He lost his savings.", "The roses bloomed."]
    with open(similar_files[0], encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["narrative"] for r in rows] == [r[2] for r in result["data"]]
    assert {r["compared with"] for r in rows} == {"the narratives typed"}


def test_bad_input_is_a_clear_error(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="narrative"):
        client.predict("   ", 5, api_name="/proverbs")
