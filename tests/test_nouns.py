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


@pytest.mark.parametrize("word, only", [("jelly", True), ("Jelly", True), ("glue", True), ("crazy", False),
                                        ("blue", False), ("upright", False), ("mad", False), ("wot", False)])
def test_only_a_noun(word, only):
    """A noun WordNet never lists as an adjective or an adverb (what the simile extractor reads after "like")."""
    assert nouns.only_a_noun(word) is only


def test_assets_from_wordnet_carry_its_licence(tmp_path):
    import json

    from studio.figures.antonyms import ASSET as ANTONYMS
    from studio.figures.nouns import ASSET as NOUNS
    from studio.lab.similes.wordnet import LICENCE_NOTE, licence

    for asset in (NOUNS, ANTONYMS):  # the licence itself, not the note written when it was not found
        text = json.loads(asset.read_text(encoding="utf-8"))["licence"]
        assert "Princeton University" in text and text != LICENCE_NOTE, asset
    data = tmp_path / "share" / "wordnet"
    data.mkdir(parents=True)
    assert licence(data) == LICENCE_NOTE  # no copyright file beside it: the note
    (tmp_path / "share" / "doc" / "wordnet-base").mkdir(parents=True)
    (tmp_path / "share" / "doc" / "wordnet-base" / "copyright").write_text("WordNet Release 3.0 licence")
    assert licence(data) == "WordNet Release 3.0 licence"


def test_the_nouns_build_copies_the_licence_beside_its_wordnet(tmp_path):
    import json

    from studio.lab.similes.nouns_build import build

    data = tmp_path / "share" / "wordnet"
    data.mkdir(parents=True)
    (data / "noun.exc").write_text("mice mouse\n")
    (data / "index.adj").write_text("blue a 1 0 1 0 00370869\n")
    (data / "index.adv").write_text("upright r 1 0 1 0 00000001\n")
    (data / "index.noun").write_text("blue n 1 0 1 0 04577769\ndog n 1 0 1 0 02084071\nice_cream n 1 0 1 0 07614500\n"
                                     "upright n 1 0 1 0 04516354\n")
    (tmp_path / "share" / "doc" / "wordnet-base").mkdir(parents=True)
    (tmp_path / "share" / "doc" / "wordnet-base" / "copyright").write_text("WordNet Release 3.0 licence")
    build(["--wordnet", str(data), "--out", str(tmp_path / "nouns.json")])
    made = json.loads((tmp_path / "nouns.json").read_text())
    assert made["licence"] == "WordNet Release 3.0 licence" and "icecream" in made["nouns"]
    assert made["also_adjective_or_adverb"] == ["blue", "upright"]
