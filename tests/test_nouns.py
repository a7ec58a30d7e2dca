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
                                     "upright n 1 0 1 0 04516354\ngrave n 2 0 2 0 00000010 00000020\n"
                                     "tomb n 1 0 1 0 00000020\nstar n 2 0 2 0 00000030 00000040\n"
                                     "wizard n 2 0 2 0 00000050 00000040\n")
    # data.noun: offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt | gloss
    (data / "data.noun").write_text("00000010 03 n 01 grave 0 000 | death\n"
                                    "00000020 06 n 02 grave 0 tomb 0 000 | a place\n"
                                    "00000040 18 n 02 star 0 wizard 0 000 | someone dazzlingly skilled\n"
                                    "00000060 18 n 02 Solomon 0 wise_man 0 000 | a king\n"
                                    "00000070 06 n 02 China 0 Cathay 0 000 | a country\n"
                                    "00000080 06 n 01 china 0 000 | porcelain\n"
                                    "00000090 06 n 01 AN 0 000 | a stop word\n"
                                    "00000100 06 n 01 FBI 0 000 | a bureau\n"
                                    "00000110 06 n 01 New_York 0 000 | a city\n"
                                    "00000120 06 n 01 Nice 0 000 | a city in France\n"
                                    "00000130 06 n 01 Queens 0 000 | a borough\n"
                                    "00000140 06 n 01 queen 0 000 | a female monarch\n"
                                    "00000150 06 n 01 Fed 0 000 | the Federal Reserve\n"
                                    "00000160 06 n 01 Velcro 0 000 | a trademark for a fastener\n")
    (data / "data.adj").write_text("00000200 00 a 01 nice 0 000 | pleasant\n")
    (data / "data.adv").write_text("")
    (data / "data.verb").write_text("00000300 29 v 01 feed 0 000 | give food\n")
    (data / "verb.exc").write_text("fed feed\n")
    (data / "adj.exc").write_text("")
    (data / "adv.exc").write_text("")
    (tmp_path / "share" / "doc" / "wordnet-base").mkdir(parents=True)
    (tmp_path / "share" / "doc" / "wordnet-base" / "copyright").write_text("WordNet Release 3.0 licence")
    build(["--wordnet", str(data), "--out", str(tmp_path / "nouns.json")])
    made = json.loads((tmp_path / "nouns.json").read_text())
    assert made["licence"] == "WordNet Release 3.0 licence" and "icecream" in made["nouns"]
    assert made["also_adjective_or_adverb"] == ["blue", "upright"]
    # "tomb"'s first sense is "grave"'s second: one image; the sense "star" and "wizard" share is neither's first
    assert made["same_image"] == [[["tomb"], ["grave"]]]
    assert len(made["first_sense"]) == len(made["nouns"]) and made["hypernyms"]
    # written only with capitals, as WordNet writes them, two-word names too; not "china" (also porcelain), "nice"
    # (also an adjective), an inflected form ("queens", "fed"), a trademark by its gloss or a stop word ("an")
    assert made["capitalised"] == {"cathay": "Cathay", "fbi": "FBI", "new york": "New York", "solomon": "Solomon"}


@pytest.mark.parametrize("words, written", [("solomon", "Solomon"), ("Methuselah", "Methuselah"), ("fbi", "FBI"),
                                            ("new  york", "New York"), ("china", None), ("fox", None), ("an", None),
                                            ("nice", None), ("queens", None), ("fed", None)])
def test_a_name_as_wordnet_writes_it(words, written):
    assert nouns.name_written(words) == written


def test_the_nouns_build_numbers_each_first_sense_and_its_hypernyms(tmp_path):
    from studio.lab.similes.nouns_build import kinds

    (tmp_path / "index.noun").write_text("dog n 1 0 1 0 00000030\nhusky n 1 0 1 0 00000040\n"
                                         "animal n 1 0 1 0 00000010\npluto n 2 0 2 0 00000050 00000060\n")
    (tmp_path / "data.noun").write_text("00000010 03 n 01 animal 0 000 | a living organism\n"
                                        "00000030 05 n 01 dog 0 001 @ 00000020 n 0000 | a dog\n"
                                        "00000020 05 n 01 canine 0 001 @ 00000010 n 0000 | a canine\n"
                                        "00000040 05 n 01 husky 0 001 @ 00000030 n 0000 | a sled dog\n"
                                        "00000050 15 n 01 pluto 0 001 @i 00000060 n 0000 | a planet once\n")
    first, hypernyms = kinds(["animal", "cat", "dog", "husky", "pluto"], tmp_path)
    assert first[1] == -1  # a noun not in the index
    animal, dog, husky, pluto = first[0], first[2], first[3], first[4]
    canine = hypernyms[dog][0]
    assert hypernyms[husky] == [dog] and hypernyms[canine] == [animal] and len(hypernyms[pluto]) == 1  # "@i" too


@pytest.mark.parametrize("a, b, one", [
    ("dogs", "huskies", True), ("huskies", "dogs", True), ("fruits", "apples", True), ("puppy", "dog", True),
    ("stone", "rock", True), ("accent", "accent", True), ("cities", "Paris", True),
    ("man", "bull", False),  # a bull is "a heavyset man" only in its fourth sense
    ("horse", "cheetah", False), ("eyes", "stars", False), ("voice", "thunder", False), ("man", "child", False),
    ("events", "orgies", False), ("group", "committee", False),  # too broad a category to be one kind
    ("hucklehead", "hucklehead", False)])
def test_of_one_kind(a, b, one):
    """Two nouns of one lineage by their first senses compare like with like ("Dogs like huskies need exercise.");
    docs/experiments.md#detector-like-with-like."""
    assert nouns.of_one_kind(a, b) is one


def test_kind_of_says_which_way_and_knows_no_pronoun():
    assert nouns.kind_of("dogs", "huskies") == "broader" and nouns.kind_of("huskies", "dogs") == "narrower"
    assert nouns.kind_of("stone", "rock") == "same" and nouns.kind_of("house", "palace") == "broader"
    # WordNet's first senses of "he", "I" and "us" are helium, iodine and the United States
    assert nouns.kind_of("he", "helium") is None and nouns.kind_of("us", "America") is None
    assert nouns.lemma("He") is None and nouns.lemma("huskies") == "husky" and nouns.known_noun("he")


@pytest.mark.parametrize("a, b, same", [
    ("grave", "tomb", True), ("tomb", "Grave", True), ("graveyard", "cemetery", True), ("rock", "stone", True),
    ("madman", "lunatic", True), ("grave", "graveyard", False), ("dog", "cat", False), ("lion", "tiger", False),
    ("sea", "ocean", False), ("hucklehead", "hucklehead", False)])
def test_same_image(a, b, same):
    """Two nouns name one image when WordNet gives them a sense that is the first of at least one of them (Polish
    shows one line per image: docs/experiments.md#polish-same-image)."""
    assert nouns.same_image(a, b) is same
