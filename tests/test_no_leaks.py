"""No shipped asset is built from a test part (that serving code never imports the evaluation package:
tests/test_serving_imports.py)."""
from __future__ import annotations

import json

import pytest

from studio.lab.continuation.data import data_dir

needs_figurative = pytest.mark.skipif(not (data_dir() / "idiom_train.jsonl").is_file(),
                                      reason="the figurative narratives (../shared/data/figurative) are not available")


@needs_figurative
def test_committed_idiom_lexicon_holds_no_test_idiom():
    from studio.lab.continuation import data
    from studio.figures.idioms import LEXICON_PATH

    shipped = {row["idiom"].strip().lower() for row in json.loads(LEXICON_PATH.read_text(encoding="utf-8"))}
    train, test = data.split("idiom")
    test_idioms = {it.expression.strip().lower() for it in test}
    assert test_idioms and not shipped & test_idioms
    assert shipped == {it.expression.strip().lower() for it in train if it.expression and it.knowledge}


@needs_figurative
def test_kb_sources_hold_no_test_narrative():
    from studio.lab.continuation import data
    from studio.lab.proverbs.epic import load_seen_train, split
    from studio.lab.similes.data import shared_data_dir
    from studio.lab.similes.kb_build import _curated_items, _epic_train_part, _train_part

    root = shared_data_dir()
    test_similes = {it.narrative for it in data.split("simile")[1]}
    curated = {it["text"].strip() for it in _curated_items(root) if it["source"] == "figurative/simile_train.jsonl"}
    assert curated and not curated & test_similes
    test_idiom_narratives = {it.narrative for it in data.split("idiom")[1]}
    idioms = {r["narrative"].replace("<b>", "").replace("</b>", "").strip() for r in _train_part(root, "idiom")}
    assert idioms and not idioms & test_idiom_narratives
    _, validation = split(load_seen_train())
    assert not set(_epic_train_part(root)) & {r.text for r in validation}


@needs_figurative
def test_polisher_trains_on_no_dev_or_test_literal():
    from studio.lab.similes.polish_data import all_pairs, norm, rated_literals
    from studio.lab.similes.polish_train import build_examples

    parts = all_pairs()
    train = {norm(r["literal"]) for r in build_examples(parts["train"], 3200, 0)}
    held = {norm(r["literal"]) for part in ("dev", "test") for r in parts[part]}
    assert train and held and not train & held
    assert not train & rated_literals()  # the HAUSER evaluation's rated literals never train it
    narratives = {r["simile"] for r in parts["train"] if r["source"] == "figurative"}
    from studio.lab.continuation import data

    assert not any(s in it.narrative for it in data.split("simile")[1] for s in list(narratives)[:50])


@needs_figurative
def test_image_table_words_come_from_train_texts_only():
    """The image table's adjectives are counted on Polish's train literals and Continue's train narratives."""
    from studio.lab.continuation import data
    from studio.lab.similes.image_table import _texts
    from studio.lab.similes.polish_data import split_of

    texts = set(_texts())
    held_out = {it.narrative for kind in data.KINDS for part in ("dev", "test") for it in data.split3(kind)[part]}
    assert texts and not texts & held_out
    from studio.shared_data import shared_file

    literals = [json.loads(line)["literal"].strip()
                for line in shared_file("hauser", "candidates.jsonl").read_text().splitlines() if line.strip()]
    held_out_literals = {lit for lit in literals if split_of(lit) != "train"}
    assert held_out_literals and not texts & held_out_literals
