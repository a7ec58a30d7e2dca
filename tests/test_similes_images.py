"""The image table (studio/similes/images.py, built by studio/lab/similes/image_table.py) and Polish's `images`
source: images typical of an adjective, first in the list, for an adjective slot and for a verb's manner adverb."""
import json

import pytest

from studio.lab.similes import image_table
from studio.similes import images as images_mod
from studio.similes.images import images, normal
from studio.similes.polish import DEFAULT_STRATEGIES, polish
from studio.similes.sources import _manner_adjectives


def test_the_shipped_table_holds_the_common_qualities():
    meta = json.loads(images_mod.ASSET.read_text())["meta"]
    assert meta["adjectives"] >= 150 and meta["built_with"] == "python -m studio build images"
    slow = [image for image, *_ in images("slow")]
    assert {"a snail", "a tortoise", "a turtle"} & set(slow)
    assert images("Slow ") == images("slow") and images("no-such-quality") == []
    for rows in json.loads(images_mod.ASSET.read_text())["adjective"].values():
        for image, votes, specificity, attested in rows:
            assert attested or (votes >= image_table.MIN_VOTES and specificity >= image_table.MIN_SPECIFICITY)


def test_the_table_also_samples_the_qualities_the_kb_compares(tiny_registry):
    """Beyond the training texts' frequent adjectives, every KB property that reads as an adjective is sampled
    ("sour", "brittle": qualities people compare that the texts seldom name); nouns and blocked words are not."""
    frequent = {"good", "cold"}
    extra = dict(image_table.kb_adjectives(frequent))
    assert {"sour", "brittle", "murky"} <= set(extra) and not frequent & set(extra)
    assert not set(extra) & image_table._BLOCK and all(w >= 1 for w in extra.values())
    assert "quickly" not in extra and "were" not in extra  # an adverb and a verb among the KB's properties


def test_the_table_also_samples_the_commonest_english_qualities(tmp_path, tiny_registry):
    """After those, the commonest words WordNet holds mainly as a descriptive adjective: not a relational one
    ("national"), a noun first ("tart"), an inflected form ("worse"), a stop word, a word WordNet lacks, or one
    already sampled."""
    (tmp_path / "data.adj").write_text(
        "  1 a header line\n"
        "00000001 00 s 01 plush 0 001 & 00000002 a 0000 | rich and superior in quality\n"
        "00000002 00 a 01 rich 0 001 ! 00000003 a 0101 | possessing material wealth\n"
        "00000004 00 a 01 national 0 002 \\ 00000009 n 0101 ! 00000005 a 0101 | of or relating to a nation\n"
        "00000006 00 s 01 grumpy 0 001 & 00000002 a 0000 | annoyed and irritable\n"
        "00000007 00 s 02 tart 0 worse 0 001 & 00000002 a 0000 | sharp or sour\n")
    (tmp_path / "index.adj").write_text("".join(f"{w} a 1 1 & 1 0 0000000{i}\n" for i, w in enumerate(
        ["grumpy", "national", "plush", "rich", "tart", "worse"])))
    (tmp_path / "index.noun").write_text("tart n 2 1 @ 2 0 00000011 00000012\n")
    (tmp_path / "index.verb").write_text("")
    (tmp_path / "verb.exc").write_text("went go\n")
    (tmp_path / "adj.exc").write_text("worse bad\n")
    ranked = ["the", "national", "worse", "tart", "plush", "grumpy", "sluggish", "rich"]
    common = image_table.common_adjectives({"rich"}, limit=5, folder=tmp_path, ranked=ranked)
    assert common == [("plush", 1), ("grumpy", 1)]
    assert image_table.common_adjectives(set(), limit=1, folder=tmp_path, ranked=ranked) == [("plush", 1)]


def test_normal_drops_the_article():
    assert normal("A mouse") == "mouse" and normal("the sky") == "sky" and normal("an owl") == "owl"
    assert normal("grain of sand") == "grain of sand"


class ArticleLM:
    """A language model that finds "a"/"an" before the `counted` images likelier, and no article before the rest."""

    def __init__(self, counted: set[str]):
        self.counted, self.asked = counted, []

    def loglik(self, contexts, continuations):
        self.asked += list(continuations)
        out = []
        for text in continuations:
            words = text.strip(" .\n").split()
            article = words[0] in ("a", "an")
            counted = " ".join(words[1:] if article else words) in self.counted
            out.append((-1.0 if article == counted else -5.0, len(words)))
        return out


def test_bare_images_take_the_article_the_writer_prefers(tiny_registry):
    """Singular nouns only: "the sea" keeps its article, "stars" (a plural) is not asked about, nor are names."""
    result = {"calm": [["river", 4, 40.0, 0], ["the sea", 5, 60.0, 0]],
              "cold": [["ice", 6, 9.0, 1], ["owl", 3, 5.0, 0]], "easy": [["pie", 5, 9.0, 1]],
              "bright": [["stars", 5, 9.0, 1]]}
    lm = ArticleLM({"river", "owl", "stars"})
    assert image_table.with_articles(result, lm, tiny_registry.get("parser")) == 2
    assert [row[0] for rows in result.values() for row in rows] == ["a river", "the sea", "ice", "an owl", "pie",
                                                                     "stars"]
    assert not any("the sea" in text or "stars" in text for text in lm.asked)


def test_the_table_keeps_specific_or_attested_images(tmp_path, tiny_registry):
    """'a dog' named for every quality is dropped; 'ice' for cold is kept (votes, specific); one vote stays only
    when the KB attests the pair; 'a sun' and 'the sun' are one image."""
    samples = tmp_path / "samples.jsonl"
    rows = [{"word": "cold", "kind": "adjective", "count": 9,
             "samples": [" ice\n"] * 6 + [" a dog\n"] * 3 + [" stone\n"] + [" a teapot\n"] + [" 12345"]},
            {"word": "warm", "kind": "adjective", "count": 8,
             "samples": [" a sun\n"] * 2 + [" the sun\n"] * 2 + [" a dog\n"] * 4},
            {"word": "brown", "kind": "adjective", "count": 7, "samples": [" a dog\n"] * 5}]
    samples.write_text("\n".join(json.dumps(r) for r in rows) + "\n" + '{"word": "half-writ')  # a killed run
    out = tmp_path / "images.json"
    table = image_table.table(samples, out, allowed={"cold", "warm", "brown"}, lm=ArticleLM(set()),
                              parser=tiny_registry.get("parser"))["adjective"]
    cold = {image: (votes, attested) for image, votes, _spec, attested in table["cold"]}
    assert cold["ice"][0] == 6 and "a dog" not in cold and "a teapot" not in cold
    assert "stone" in cold and cold["stone"] == (1, 1)  # one vote, but the KB knows "as cold as stone"
    assert [image for image, *_ in table["warm"]] == ["the sun"]  # merged (4 votes), the KB's surface
    assert "brown" not in table  # only an image offered for everything
    assert json.loads(out.read_text())["adjective"] == table


def test_no_image_points_at_something_unnamed():
    """"as boxy as this car": a sample that points is no image, and a KB surface that points ("this car" is how the
    KB writes "car") gives way to the writer's own."""
    assert image_table.clean(" this car\n") is None and image_table.clean(" your mother.") is None
    assert image_table.clean(" a car\n") == "a car"

    class PointingKB:
        def normalize(self, image):
            return normal(image)

        def has_vehicle(self, key):
            return key in {"car", "sun"}

        def surface(self, key):
            return {"car": "this car", "sun": "the sun"}[key]

    assert image_table._surface(PointingKB(), "car", {"a car": 3, "the car": 1}) == "a car"
    assert image_table._surface(PointingKB(), "sun", {"a sun": 3}) == "the sun"
    pointing = [image for rows in json.loads(images_mod.ASSET.read_text())["adjective"].values()
                for image, *_ in rows if image_table.points(image)]
    assert pointing == []


def test_manner_adverbs_give_their_adjectives(tiny_registry):
    doc = tiny_registry.get("parser")("The train moved slowly and the girl laughed happily.")
    verbs = {t.text: t for t in doc if t.pos_ == "VERB"}
    assert "slow" in _manner_adjectives(verbs["moved"])
    assert "happy" in _manner_adjectives(verbs["laughed"])


def test_polish_puts_the_table_images_first(tiny_registry):
    assert DEFAULT_STRATEGIES[0] == "images"
    report = polish("The train moved slowly through the valley.", n=6, seed=0, reread=False)
    cands = report.candidates
    table = [image for image, *_ in images("slow")]
    first = [c for c in cands if c.strategy == "images"]
    assert first and cands[:len(first)] == first  # first, in the table's order
    assert [c.rank for c in first] == sorted(c.rank for c in first)
    assert all(c.keep is None and c.phrase.startswith("like ") and c.kind == "verb" for c in first)
    assert all(any(image.split()[-1] in c.vehicle for image in table) for c in first)
    assert report.ranked_by.startswith("images, then") and report.proposed["images"] >= 1
    cands = polish("The bread was very hard.", n=4, seed=0, reread=False).candidates
    assert cands[0].strategy == "images" and cands[0].phrase.startswith("as hard as ")
    # without the source the list has none of its candidates
    report = polish("The bread was very hard.", n=4, seed=0, strategies=["lm", "retrieval"])
    cands = report.candidates
    assert all(c.strategy != "images" for c in cands) and not report.ranked_by.startswith("images")


def test_the_table_leaves_the_other_sources_draws_alone(tiny_registry):
    """Its few images come on top: the other sources propose what they proposed without it."""
    without = polish("The train moved slowly through the valley.", n=10, seed=0,
                     strategies=["lm", "retrieval", "property"])
    with_images = polish("The train moved slowly through the valley.", n=10, seed=0,
                         strategies=["images", "lm", "retrieval", "property"])
    assert with_images.proposed["images"] >= 1
    assert {k: v for k, v in with_images.proposed.items() if k != "images"} == without.proposed


def test_the_order_names_the_image_table_only_when_its_images_are_listed(tiny_registry):
    """The status line said "the images typical of the quality … first" for a sentence the table has nothing for."""
    from studio.ui.polish_tab import _status

    hard = polish("The bread was very hard.", n=4, seed=0, reread=False)
    assert any(c.strategy == "images" for c in hard.candidates) and hard.ranked_by.startswith("images, then")
    assert "(source images) first" in _status(hard, True, list(DEFAULT_STRATEGIES))
    assert images("drab") == []
    bland = polish("The curtains were very drab.", n=4, seed=0, reread=False)
    assert bland.candidates and all(c.strategy != "images" for c in bland.candidates)
    assert not bland.ranked_by.startswith("images") and "image table" not in bland.score_meaning
    status = _status(bland, True, list(DEFAULT_STRATEGIES))
    assert "source images" not in status and "best first by" in status


def test_polish_keeps_the_table_s_article(tiny_registry):
    """"a river" as the table writes it, not the KB's bare "river" ("The lake was as calm as river.")."""
    assert "a river" in [image for image, *_ in images("calm")]
    sentences = [c.sentence for c in polish("The lake was calm.", n=6, strategies=["images"], seed=0,
                                            reread=False).candidates]
    assert "The lake was as calm as a river." in sentences and "The lake was as calm as river." not in sentences


def test_polish_says_no_count_of_keepers_but_what_a_fresh_reader_kept(tiny_registry):
    """A visitor read "By the keep model, a writer would keep about 6 of them" beside "a strict blind reader of new
    sentences kept 13 %": keep's sum runs high on new sentences, so no count is said; keep ranks, the blind read says
    how many are kept, and a list whose keeps sum to under a quarter of four or more scored lines gets the advice to
    reword (the image table's lines have no keep and are not counted)."""
    import dataclasses

    from studio.results import BLIND_READ_KEPT, BLIND_READ_KEPT_TOP3, measured
    from studio.ui.polish_tab import _status

    hard = polish("The bread was very hard.", n=4, seed=0, reread=False)
    assert hard.delivered == 4 and any(c.strategy == "images" for c in hard.candidates)
    every, top = measured(*BLIND_READ_KEPT), measured(*BLIND_READ_KEPT_TOP3)
    read = (f"Keep ranks the lines by earlier readers' verdicts; a strict blind reader of new sentences kept "
            f"{100 * every:.0f} % of Polish's lines and {100 * top:.0f} % of its first three.")
    few = _status(dataclasses.replace(hard, expected_keepers=0.8, keep_counted=4), True, list(DEFAULT_STRATEGIES))
    assert "Few apt images were found for this sentence, by the keep model: try rewording it." in few
    assert read in few and "would keep" not in few and "summed" not in few
    fair = _status(dataclasses.replace(hard, expected_keepers=1.4, keep_counted=4), True, list(DEFAULT_STRATEGIES))
    assert "apt images" not in fair and read in fair
    mixed = _status(dataclasses.replace(hard, expected_keepers=0.4, keep_counted=2), True, list(DEFAULT_STRATEGIES))
    assert "apt images" not in mixed  # two scored lines are too few to say so
    assert read not in _status(hard, True, list(DEFAULT_STRATEGIES))  # no keep model in the tiny profile


def test_the_command_line_says_no_count_of_keepers():
    """The command line as the tab: the blind read, and the advice to reword where keep finds few apt images."""
    from studio.cli.polish_cmd import render

    line = {"keep": 0.48, "score": 0.3, "attested": False, "strategy": "lm", "sentence": "It was as dark as coal."}
    one = render({"candidates": [line], "expected_keepers": 0.5, "keep_counted": 1})
    assert "would keep" not in one and "rewording" not in one
    assert "\nkeep ranks the lines by earlier readers' verdicts; a strict blind reader of new sentences kept" in one
    many = render({"candidates": [line] * 5, "expected_keepers": 0.9, "keep_counted": 5})
    assert "few apt images were found for this sentence, by the keep model: try rewording it" in many
