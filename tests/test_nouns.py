"""The English noun list Polish tells an image from a non-word by (assets/similes/nouns.json, `build nouns`)."""
import pytest

from studio.figures import nouns


def test_the_list_is_built_and_what_its_rule_says():
    import json

    data = json.loads(nouns.ASSET.read_text(encoding="utf-8"))
    assert len(data["nouns"]) > 100_000 and data["rebuild"] == "python -m studio build nouns"
    assert all("_" not in w and w == w.lower() for w in data["nouns"]) and "Princeton" in data["licence"]
    assert data["plurals"]["mice"] == "mouse"


@pytest.mark.parametrize("word, known", [
    ("tortoise", True), ("Snail", True), ("rats", True), ("mice", True), ("berries", True), ("boxes", True),
    ("firemen", True), ("thunderclap", True), ("hucklehead", False), ("wot", False), ("leaden", False),
    ("givin", False), ("rollercoaster", True), ("snowflake", True)])
def test_known_noun(word, known):
    assert nouns.known_noun(word) is known


def test_assets_from_wordnet_carry_its_licence(tmp_path):
    import json

    from studio.figures.antonyms import ASSET as ANTONYMS
    from studio.figures.nouns import ASSET as NOUNS
    from studio.lab.similes.wordnet import LICENCE_NOTE, licence

    for asset in (NOUNS, ANTONYMS):
        assert "Princeton University" in json.loads(asset.read_text(encoding="utf-8"))["licence"], asset
    data = tmp_path / "share" / "wordnet"
    data.mkdir(parents=True)
    assert licence(data) == LICENCE_NOTE  # no copyright file beside it: the note
    (tmp_path / "share" / "doc" / "wordnet-base").mkdir(parents=True)
    (tmp_path / "share" / "doc" / "wordnet-base" / "copyright").write_text("WordNet Release 3.0 licence")
    assert licence(data) == "WordNet Release 3.0 licence"
