"""Build the image table (assets/similes/images.json): for a quality (an adjective) the images English compares it
to ("as cold as" → ice, snow, …), distilled from the registry's `writer` (the largest offline LM) and checked
against the simile KB.

How. For each adjective the writer completes a few-shot list of well-known similes ("as cold as ice", … "as <adj>
as") SAMPLES times (seeded); an image's *votes* are the samples that name it. Its *specificity* is its votes for
this adjective against its mean votes over all adjectives (images offered for everything, "a dog", "a tree", get
little), and the KB says whether the pair is attested in a corpus. An image is kept when it has at least MIN_VOTES
votes and a specificity of at least MIN_SPECIFICITY, or the KB attests it.

Adjectives: those of the training texts (the HAUSER generator's literals of Polish's train part, except the 23 rated
ones; the narratives of the figurative-narrative train part, not Continue's dev or test), counted with their weight
as KB properties; the most frequent LIMIT. Then every other quality the simile KB holds that is an adjective ("sour",
"brittle", "murky": the qualities people compare, which the training texts seldom name). Then the COMMON commonest
English words WordNet holds mainly as a descriptive adjective ("grumpy", "eerie", "greasy": what writers type; the
frequencies are wordfreq's, `requirements-build.txt`, WordNet Debian's, `bash scripts/setup.sh --build`).
Nothing of a blind read's inputs. (Verbs were tried the same way, "slept like a log", … "<past> like": the lists
restated the verb, "read like a book", "closed like a door"; docs/experiments.md.)

    python -m studio build images [--limit 600] [--samples FILE] [--out assets/similes/images.json]

It samples (resumable: one JSON line per adjective in the cache, FILE; ~4 s an adjective on 2 idle cores), then
writes the table, where the writer also chooses whether a bare image takes "a" / "an" (`with_articles`: "as calm as
a river", "as cold as ice"). The steps apart: `python -m studio.lab.similes.image_table sample --out FILE`, `…
table --samples FILE`, and `… articles [--table FILE]` for the article step alone on a written table.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
from collections import Counter
from pathlib import Path

from ...atomic import atomic_write
from ...errors import parse_options
from ...figures.articles import points, with_indefinite_article
from ...models import get_registry
from ...models.config import cache_dir
from ...shared_data import shared_file
from ...similes.images import ASSET, normal
from .wordnet import WORDNET, synsets, wordnet_file
from .wordnet import index as wordnet_index

LIMIT = 600
SAMPLES = 16
MAX_NEW_TOKENS = 7
TOP_K = 40
TEMPERATURE = 0.8
MIN_VOTES = 3
MIN_SPECIFICITY = 3.0
MAX_IMAGES = 12
#: the commonest English quality adjectives sampled after the training texts' and the KB's (`common_adjectives`)
COMMON = 1000

CONTEXT = ("English similes, the best-known image for each quality:\n"
           "as cold as ice\nas quiet as a mouse\nas busy as a bee\nas light as a feather\n"
           "as stubborn as a mule\nas sharp as a razor\nas dark as night\nas proud as a peacock\n")
_IMAGE = re.compile(r"^(?:(?:a|an|the)\s)?[a-z][a-z' -]{1,40}$")
#: adjectives that name no quality an image could have
_BLOCK = {"other", "own", "last", "first", "few", "many", "same", "much", "only", "next", "such", "several", "sure",
          "whole", "certain", "various", "able", "main", "possible", "different", "second", "third", "previous",
          "entire", "former", "latter", "less", "more", "most", "least", "enough", "final", "particular", "total",
          "usual", "actual", "likely", "unable", "overall", "additional", "local"}


def _texts() -> list[str]:
    """The training texts: the HAUSER generator's literals of Polish's train part (polish_data.split_of), except the
    23 rated ones, and the narratives of the figurative-narrative train part (not Continue's dev or test)."""
    from .kb_build import _train_part
    from .polish_data import split_of

    with shared_file("hauser", "human_ratings_dev.csv").open(newline="") as f:
        rated = {r["literal_sentences"].strip() for r in csv.DictReader(f)}
    texts = []
    for line in shared_file("hauser", "candidates.jsonl").read_text().splitlines():
        if line.strip() and (literal := json.loads(line)["literal"].strip()) not in rated \
                and split_of(literal) == "train":
            texts.append(literal)
    root = shared_file("figurative", "idiom_train.jsonl").parent.parent
    for kind in ("idiom", "simile"):
        texts += [re.sub(r"</?b>", "", r["narrative"]) for r in _train_part(root, kind)]
    return texts


def adjectives(limit: int = LIMIT) -> list[tuple[str, int]]:
    """[(adjective, count)] of the training texts, with the KB's weight for those that are KB properties, most
    frequent first."""
    from ...figures.kb import load_kb

    nlp = get_registry().get("parser").nlp
    counts = Counter()
    for doc in nlp.pipe(_texts(), batch_size=256, disable=["ner"]):
        for tok in doc:
            lemma = tok.lemma_.lower()
            if tok.pos_ == "ADJ" and tok.tag_ == "JJ" and lemma.isalpha() and len(lemma) > 2 and lemma not in _BLOCK:
                counts[lemma] += 1
    for prop, weight in load_kb().property_counts().items():
        if prop in counts:
            counts[prop] += int(weight)
    ranked = sorted(((a, c) for a, c in counts.items() if c >= 3), key=lambda x: (-x[1], x[0]))
    return ranked[:limit]


def kb_adjectives(exclude: set[str] = frozenset()) -> list[tuple[str, int]]:
    """[(adjective, weight)] of the simile KB's properties that read as an adjective ("It was very sour."), heaviest
    first, but those in `exclude`."""
    from ...figures.kb import load_kb

    nlp = get_registry().get("parser").nlp
    props = sorted(((p, w) for p, w in load_kb().property_counts().items()
                    if p.isalpha() and len(p) > 2 and p not in _BLOCK and p not in exclude),
                   key=lambda x: (-x[1], x[0]))
    docs = nlp.pipe((f"It was very {p}." for p, _ in props), batch_size=256, disable=["ner"])
    return [(p, max(1, round(w))) for (p, w), doc in zip(props, docs) if doc[3].pos_ == "ADJ" and doc[3].tag_ == "JJ"]


def _wordnet_senses(folder: Path, pos: str) -> dict[str, int]:
    """{lemma: its number of senses} of WordNet's index for a part of speech."""
    return {lemma: len(offsets) for lemma, offsets in wordnet_index(folder / f"index.{pos}")}


def _quality_adjectives(folder: Path) -> set[str]:
    """WordNet's descriptive adjectives: the words of a satellite sense ("plush", of "rich") that is no pertainym. A
    relational adjective names no quality ("national" is of a nation); heads ("cold", "hot") are mostly in the table
    by then, and taking them let in relational words with an antonym ("national" / "international")."""
    return {word for _, ss_type, words, ptrs in synsets(folder / "data.adj")
            if ss_type == "s" and all(symbol != "\\" for symbol, _, _ in ptrs) for word in words}


def common_adjectives(exclude: set[str] = frozenset(), limit: int = COMMON, folder: Path = WORDNET,
                      ranked: list[str] | None = None) -> list[tuple[str, int]]:
    """[(adjective, 1)]: the commonest English words (wordfreq's list, its first 40,000) that WordNet holds mainly as a
    quality adjective (`_quality_adjectives`; at least as many adjective senses as noun or verb senses), not an
    inflected form (-ed, -ing, WordNet's irregular forms: "sent", "worse") nor a stop word, but those in `exclude`;
    the first `limit`. The writer's inputs name qualities neither the training texts nor the KB hold ("plush",
    "grumpy", "sluggish": report read 27). `ranked`: the words, commonest first (default wordfreq's)."""
    if ranked is None:
        import wordfreq  # requirements-build.txt (`bash scripts/setup.sh --build`)

        ranked = wordfreq.top_n_list("en", 40_000)

    adj, noun, verb = (_wordnet_senses(folder, pos) for pos in ("adj", "noun", "verb"))
    quality = _quality_adjectives(folder)
    inflected = {line.split()[0] for name in ("verb.exc", "adj.exc")
                 for line in wordnet_file(folder / name).read_text(encoding="utf-8").splitlines() if line.strip()}
    stop = get_registry().get("parser").nlp.Defaults.stop_words
    out = []
    for word in ranked:
        if (word.isalpha() and word.islower() and len(word) > 2 and word in quality and word not in _BLOCK
                and word not in exclude and word not in inflected and word not in stop
                and not word.endswith(("ed", "ing")) and adj.get(word, 0) >= max(noun.get(word, 0), verb.get(word, 0))):
            out.append((word, 1))
            if len(out) == limit:
                break
    return out


def word_groups(limit: int = LIMIT, common: int = COMMON) -> dict[str, list[tuple[str, int]]]:
    """What the table samples, in order: the `limit` most frequent adjectives of the training texts ("frequent":
    `adjectives`), then the KB's other adjectives ("kb": `kb_adjectives`), then the `common` commonest English
    quality adjectives not yet in ("common": `common_adjectives`)."""
    frequent = adjectives(limit)
    kb = kb_adjectives({a for a, _ in frequent})
    return {"frequent": frequent, "kb": kb,
            "common": common_adjectives({a for a, _ in frequent + kb}, common) if common else []}


def words(limit: int = LIMIT, common: int = COMMON) -> list[tuple[str, int]]:
    """`word_groups`, one list."""
    return [w for group in word_groups(limit, common).values() for w in group]


def clean(text: str) -> str | None:
    """The image of one sample ("a rope", "the sky"), or None; none that points at something the sentence has not
    named ("this car", "your mother": `figures.articles.points`)."""
    image = re.split(r"\n|\.|,|;| as | A\. ", " " + text.strip() + " ")[0].strip().lower().strip(" \"'")
    if not _IMAGE.match(image) or len(image.split()) > 5 or points(image):
        return None
    return image


def sample(out: Path, limit: int = LIMIT, seed: int = 0) -> None:
    done = {r["word"] for r in _rows(out)} if out.is_file() else set()
    todo = [(a, c) for a, c in words(limit) if a not in done]
    print(f"{len(done)} adjectives done, {len(todo)} to sample", flush=True)
    writer = get_registry().get("writer")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as f:
        for i, (word, count) in enumerate(todo):
            texts = writer.sample_shared(CONTEXT + f"as {word} as", n=SAMPLES, max_new_tokens=MAX_NEW_TOKENS,
                                         top_k=TOP_K, temperature=TEMPERATURE, seed=seed, stop="")
            f.write(json.dumps({"word": word, "kind": "adjective", "count": count, "samples": texts}) + "\n")
            f.flush()
            if i % 25 == 0:
                print(f"{i + 1}/{len(todo)} {word}: {Counter(filter(None, map(clean, texts))).most_common(4)}",
                      flush=True)


def _rows(samples: Path) -> list[dict]:
    """The adjectives' sample rows; a line a killed run left half-written is skipped (and sampled again)."""
    rows = []
    for line in samples.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if row.get("kind") == "adjective":
            rows.append(row)
    return rows


def _surface(kb, image: str, found: Counter) -> str:
    """The KB's usual surface of an image ("the sun"), else the writer's likeliest one; never one that points
    (`figures.articles.points`: the KB writes "car" as "this car", "room" as "any room")."""
    key = kb.normalize(image)
    if kb.has_vehicle(key) and not points(kb.surface(key)):
        return kb.surface(key)
    return max((s for s in found if normal(s) == image), key=lambda s: (found[s], s))


_DETERMINER = re.compile(r"^(?:a|an|the|this|that|these|those|my|your|his|her|its|our|their|some)\s", re.I)


def with_articles(result: dict[str, list], lm, parser=None) -> int:
    """A bare singular noun ("river", as the KB writes its vehicles; tagged NN in "It was as calm as river.") gets
    "a" or "an" where the writer finds "as calm as a river." likelier than "as calm as river." as a well-known English
    simile; a mass noun keeps none where English takes none ("as cold as ice", "as easy as pie"), and plurals and names
    are left as they are ("as bright as stars", "as wise as Solomon"). Edits `result` in place; returns how many images
    took an article. Why: docs/experiments.md#image-table-articles"""
    parser = parser if parser is not None else get_registry().get("parser")
    asks = [(word, k, image) for word, kept in result.items() for k, (image, *_) in enumerate(kept)
            if not _DETERMINER.match(image) and parser(f"It was as {word} as {image}.")[-2].tag_ == "NN"]
    if not asks:
        return 0
    # a short context: `sample`'s few-shot list, read twice per image, took a quarter of an hour on 2 cores
    contexts = [f"A well-known English simile: as {word} as" for word, _, _ in asks for _ in range(2)]
    continuations = [f" {form}." for _, _, image in asks for form in (image, with_indefinite_article(image))]
    scores = [total for total, _ in lm.loglik(contexts, continuations)]
    changed = 0
    for i, (word, k, image) in enumerate(asks):
        if scores[2 * i + 1] > scores[2 * i]:
            result[word][k][0] = with_indefinite_article(image)
            changed += 1
    return changed


def table(samples: Path, out: Path, limit: int = LIMIT, allowed: set[str] | None = None, lm=None,
          parser=None) -> dict:
    """The table from the samples of `word_groups(limit)` (the `limit` most frequent adjectives of the training texts,
    the KB's other adjectives, the commonest English ones), or of `allowed` (samples of other words are left out); `lm`
    chooses the articles (`with_articles`; default the writer, and the registry's parser)."""
    from ...figures.kb import load_kb

    kb = load_kb()
    groups = word_groups(limit) if allowed is None else {"given": [(w, 1) for w in sorted(allowed)]}
    allowed = {word for group in groups.values() for word, _ in group}
    rows = [r for r in _rows(samples) if r["word"] in allowed]
    votes = {}
    for r in rows:  # "a sun", "the sun" and "sun" are one image, written as the KB writes it ("the sun")
        found = Counter(filter(None, map(clean, r["samples"])))
        merged = Counter()
        for image, n in found.items():
            merged[normal(image)] += n
        votes[r["word"]] = Counter()
        for image, n in merged.items():  # two spellings of one KB vehicle ("mice", "a mouse") add up
            votes[r["word"]][_surface(kb, image, found)] += n
    mean = Counter()
    for v in votes.values():
        for image, n in v.items():
            mean[normal(image)] += n / len(votes)
    result = {}
    for word, v in sorted(votes.items()):
        kept = []
        for image, n in v.most_common():
            specificity = n / mean[normal(image)]
            attested = kb.property_triplets(word, image).level == "exact"
            if (n >= MIN_VOTES and specificity >= MIN_SPECIFICITY) or attested:
                kept.append([image, n, round(specificity, 2), int(attested)])
        if kept:
            result[word] = kept[:MAX_IMAGES]
    articles = with_articles(result, lm if lm is not None else get_registry().get("writer"), parser)
    data = {"meta": {"built_with": "python -m studio build images", "model": "writer",
                     "samples": SAMPLES, "min_votes": MIN_VOTES, "min_specificity": MIN_SPECIFICITY,
                     "limit": limit, **{f"{name}_adjectives": len(group) for name, group in groups.items()},
                     "columns": ["image", "votes", "specificity", "attested in the KB"],
                     "adjectives_sampled": len(votes), "adjectives": len(result),
                     "images": sum(map(len, result.values())), "articles_added": articles},
            "adjective": result}
    atomic_write(out, json.dumps(data, indent=0, sort_keys=True))
    return data


def default_samples() -> Path:
    return cache_dir() / "lab" / "image_samples.jsonl"


def build(argv: list[str]) -> dict:
    """`python -m studio build images`: sample what is missing, then write the table; returns its meta."""
    ap = argparse.ArgumentParser(prog="python -m studio build images", description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=LIMIT,
                    help="the most frequent adjectives of the training texts (the KB's others come after)")
    ap.add_argument("--samples", type=Path, default=None, help="the samples file (default: in the cache)")
    ap.add_argument("--out", type=Path, default=ASSET)
    args = parse_options(ap, argv)
    samples = args.samples or default_samples()
    sample(samples, args.limit)
    return table(samples, args.out, args.limit)["meta"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    s = sub.add_parser("sample", help="the writer's samples for each adjective (resumable)")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--limit", type=int, default=LIMIT, help="the most frequent adjectives only")
    t = sub.add_parser("table", help="the table from the samples")
    t.add_argument("--samples", type=Path, required=True)
    t.add_argument("--out", type=Path, default=ASSET)
    t.add_argument("--limit", type=int, default=LIMIT, help="the most frequent adjectives only")
    a = sub.add_parser("articles", help="give the bare images of an existing table their article (with_articles)")
    a.add_argument("--table", type=Path, default=ASSET)
    args = ap.parse_args(argv)
    if args.step == "sample":
        sample(args.out, args.limit)
    elif args.step == "articles":
        data = json.loads(args.table.read_text())
        data["meta"]["articles_added"] = with_articles(data["adjective"], get_registry().get("writer"))
        atomic_write(args.table, json.dumps(data, indent=0, sort_keys=True))
        print(json.dumps(data["meta"], indent=1))
    else:
        print(json.dumps(table(args.samples, args.out, args.limit)["meta"], indent=1))


if __name__ == "__main__":
    main()
