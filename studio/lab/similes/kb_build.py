"""`python -m studio build kb`: derive the studio's simile knowledge base from ../shared/data.

Sources and per-instance confidence c_i (the plausibility of a triplet is the noisy-or 1 - prod(1 - c_i)):
  similes/spgc_triplets.tsv, general_corpus.csv, quizzes.csv — annotated (topic, property, vehicle); c = 0.95.
    The vehicle is the extractor's optimal phrase when its head is the annotated vehicle, else the annotated word.
  similes/detection_train.csv (label 1 only)            — similes found by the extractor; c = 0.9
  figurative/simile_train.jsonl narratives (train part)  — the annotated simile, property from the data set
                                                           when it is one or two words; c = 0.9
  epic narratives (train part), figurative idiom narratives (train part), FLUTE simile hypotheses, SST-2 train
  phrases, MNLI/SNLI premises, the quotations and definitions of Debian's dict-gcide (GNU Collaborative
  International Dictionary of English)
                                                         — mined with the extractor; c = the detector's probability
                                                           (instances below 0.5 are dropped)
  hauser/candidates.jsonl (12,495 generated similes)     — mined with the learned vehicle boundary, a separate source
                                                           whose similes count GENERATED_WEIGHT × (the number of
                                                           literals whose candidates hold them − 1): a model's
                                                           output, not usage, and a candidate never counts its own
                                                           occurrence (a simile the generator wrote for one literal
                                                           only counts 0)
Only the train part of a data set that another capability
evaluates on is read (figurative: studio/lab/continuation/data.py, by expression; ePiC: studio/lab/proverbs/epic.py, 2
narratives per proverb held out), so the KB — whose properties reach the continuation judge and generation — never
holds a test narrative. The HAUSER ratings and the components dev/test sentences are not read either.

Stored (all derived): normalized topic/vehicle/property phrases with n(t,p,v), P(t,p,v), N_v, n(t,v), a
word→lemma table for normalization at lookup time, and per instance the vehicle with the sorted set of content
lemmas around the simile (for BM25 retrieval; not the sentence).
"""
from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import json
import re
import time
from collections import Counter, defaultdict
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

from ...errors import InputError, parse_options
from ...figures.components import _NON_SIMILE_VEHICLES, extract_similes
from ...figures.detector import mining_probability
from .data import detokenize, shared_data_dir
from ...figures.kb import ASSET, GENERATED_SOURCE, SimileKB
from ...models import get_registry

CONF_ANNOTATED, CONF_CURATED, MIN_MINED_CONF = 0.95, 0.9, 0.5
#: what one simile of the HAUSER generator's candidates counts in n(t, p, v), n(t, v) and N_v (a text instance: 1)
GENERATED_WEIGHT = 0.2
GCIDE = Path("/usr/share/dictd/gcide.dict.dz")
CONTEXT_WINDOW = 10
_MAX_PHRASE_WORDS = 6
_STOP_POS = {"DET", "ADP", "PRON", "PUNCT", "CCONJ", "SCONJ", "AUX", "PART", "SPACE", "NUM", "SYM", "X", "INTJ"}


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _read_csv(path: Path, delimiter: str = ",") -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter=delimiter))


def _annotated_items(root: Path) -> list[dict]:
    items = []
    for name in ("general_corpus.csv", "quizzes.csv"):
        for r in _read_csv(root / "similes" / name):
            prop = r.get(f"option{r['ans_idx']}", "")
            items.append({"text": detokenize(r["sentence"]).replace(" _ ", f" {prop} ", 1), "topic": r["topic"],
                          "vehicle": r["vehicle"], "property": prop, "conf": CONF_ANNOTATED, "source": name})
    with open(root / "similes" / "spgc_triplets.tsv", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            sentence, topic, prop, vehicle = parts
            items.append({"text": detokenize(sentence).replace("_", prop, 1), "topic": topic, "vehicle": vehicle,
                          "property": prop, "conf": CONF_ANNOTATED, "source": "spgc_triplets.tsv"})
    return items


def _curated_items(root: Path) -> list[dict]:
    items = []
    for r in _read_csv(root / "similes" / "detection_train.csv"):
        if r["label"] == "1":
            items.append({"text": r["sentence"], "conf": CONF_CURATED, "source": "detection_train.csv"})
    seen = set()
    for r in _train_part(root, "simile"):
        key = (r["narrative"], r.get("property", ""))
        if key in seen:
            continue
        seen.add(key)
        prop = (r.get("property") or "").strip().lower()
        items.append({"text": r["narrative"], "conf": CONF_CURATED, "source": "figurative/simile_train.jsonl",
                      "property": prop if 0 < len(prop.split()) <= 2 else "", "simile_hint": r.get("simile", ""),
                      "last_only": True})
    return items


def _train_part(root: Path, kind: str) -> list[dict]:
    """The rows of figurative/{kind}_train.jsonl outside the continuation capability's test part."""
    from ..continuation.data import Item, is_validation, strip_markup

    out = []
    for r in _read_jsonl(root / "figurative" / f"{kind}_train.jsonl"):
        item = Item(kind, strip_markup(r["narrative"]).strip(), (r.get(kind) or "").strip(), "", "", "", 0)
        if not is_validation(item):
            out.append(r)
    return out


def _epic_train_part(root: Path) -> list[str]:
    from ..proverbs.epic import load_seen_train, split

    train, _ = split(load_seen_train(root / "epic" / "seen_train.jsonl"))
    return [r.text for r in train]


def _mined_texts(root: Path, gcide: bool = True) -> list[dict]:
    texts: dict[str, str] = {}

    def add(text, source):
        if text and (" like " in text or " as " in text.lower() or text.lower().startswith(("like ", "as "))):
            texts.setdefault(text, source)

    for text in _epic_train_part(root):
        add(text, "epic/seen_train.jsonl")
    for r in _train_part(root, "idiom"):
        add(r["narrative"].replace("<b>", "").replace("</b>", ""), "figurative/idiom_train.jsonl")
    for r in _read_jsonl(root / "nli" / "flute_simile_train.jsonl"):
        add(r["hypothesis"], "nli/flute_simile_train.jsonl")
    for name in ("mnli_dev_matched.jsonl", "snli_dev.jsonl"):
        for r in _read_jsonl(root / "nli" / name):
            add(r["premise"], f"nli/{name}")
    for r in _read_csv(root / "sentiment" / "sst2_train.tsv", delimiter="\t"):
        add(r["sentence"], "sentiment/sst2_train.tsv")
    if gcide:
        for text in gcide_sentences():
            add(text, "dict-gcide")
    return [{"text": t, "conf": None, "source": s} for t, s in texts.items()]


_GCIDE_MARKUP = re.compile(r"\[[^\]]*\]|\{|\}|\\[^\\]*\\|--[A-Z][\w.' ]*|\s\?\s")
_GCIDE_SPLIT = re.compile(r"(?<=[.!?;])\s+(?=[\"'A-Z])")
_GCIDE_SIMILE = re.compile(r"\blike (a|an|the|[a-z]+s)\b|\bas [a-z]+ as (a|an|the)\b", re.IGNORECASE)


def gcide_sentences(path: Path = GCIDE) -> list[str]:
    """The sentences of dict-gcide (quotations and definitions) that hold "like a/the …", "like <plural>" or
    "as ADJ as a/the …": entries unwrapped, citations ("--Shak.", "[1913 Webster]") and markup removed."""
    if not path.exists():
        raise InputError(f"{path} is missing: install Debian's dict-gcide (`sudo apt-get install dict-gcide`, "
                         "or `bash scripts/setup.sh --build`) or build with --no-gcide")
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:  # dictzip is gzip-compatible
        text = fh.read()
    out = []
    for para in re.split(r"\n\s*\n", text):
        flat = " ".join(_GCIDE_MARKUP.sub(" ", " ".join(para.split())).split())
        for sent in _GCIDE_SPLIT.split(flat):
            if 20 < len(sent) < 400 and _GCIDE_SIMILE.search(sent):
                out.append(sent)
    return list(dict.fromkeys(out))


def _generated_items(root: Path) -> list[dict]:
    items = []
    with open(root / "hauser" / "candidates.jsonl", encoding="utf-8") as fh:
        for group, line in enumerate(line for line in fh if line.strip()):
            for cand in json.loads(line)["candidates"]:
                items.append({"text": cand, "conf": None, "source": GENERATED_SOURCE,
                              "group": group, "learned": True})
    return items


def _count(n: float) -> int | float:
    """A weighted count as stored: a whole number as an int, else 2 decimals."""
    return int(round(n)) if abs(n - round(n)) < 1e-9 else round(n, 2)


def _phrase_ok(phrase: str | None) -> bool:
    return bool(phrase) and len(phrase.split()) <= _MAX_PHRASE_WORDS


def _context_lemmas(doc, simile) -> list[str]:
    a = simile.spans["comparator"][0]
    v_span = simile.spans.get("vehicle", (-1, -1))
    centre = next((t.i for t in doc if t.idx >= a), 0)
    lo, hi = max(0, centre - CONTEXT_WINDOW), min(len(doc), centre + CONTEXT_WINDOW + 1)
    out = set()
    for t in doc[lo:hi]:
        if t.pos_ in _STOP_POS or t.is_stop or not t.is_alpha or v_span[0] <= t.idx < v_span[1]:
            continue
        out.add(t.lemma_.lower())
    return sorted(out)


def build(argv: list[str]) -> dict:
    ap = argparse.ArgumentParser(prog="python -m studio build kb", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ASSET)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N texts of each group (for a quick try)")
    ap.add_argument("--no-gcide", action="store_true", help="leave Debian's dict-gcide out")
    ap.add_argument("--no-generated", action="store_true", help="leave the HAUSER candidates out")
    args = parse_options(ap, argv)
    started = time.perf_counter()
    root = shared_data_dir()
    groups = [_annotated_items(root), _curated_items(root), _mined_texts(root, gcide=not args.no_gcide)]
    if not args.no_generated:
        groups.append(_generated_items(root))
    if args.limit:
        groups = [g[:args.limit] for g in groups]
    items = [it for g in groups for it in g]
    nlp = get_registry().get("parser")
    normalizer = SimileKB({"meta": {}, "lemmas": {}, "vehicles": {}, "pairs": {}, "triplets": {}, "contexts": []})

    lemmas: dict[str, str] = {}
    instances = []  # (topic, property, vehicle, conf, context, source, generated group or None)
    per_source: Counter = Counter()
    for item, doc in zip(items, nlp.pipe([it["text"] for it in items], batch_size=32)):
        for t in doc:
            if t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB") and t.is_alpha:
                low, lem = t.lower_, t.lemma_.lower()
                if low != lem and low not in lemmas:
                    lemmas[low] = lem
        similes = extract_similes("", doc=doc, learned=item.get("learned", False))
        if item.get("last_only") and similes:
            similes = [similes[-1]]
        if "vehicle" in item:  # the annotated simile first
            gold = item["vehicle"].lower()
            similes.sort(key=lambda s: s.heads.get("vehicle") != gold)
        for s in similes:
            if s.comparator in ("as if", "as though") or not _phrase_ok(s.vehicle):
                continue
            conf = item["conf"]
            if conf is None:
                conf = mining_probability(s, doc)  # the confidences the committed KB was built with
                if conf < MIN_MINED_CONF:
                    continue
            topic, vehicle, prop = s.topic, s.vehicle, s.property
            if "vehicle" in item:  # annotated: trust the annotation, keep the optimal phrase when it agrees
                if s.heads.get("vehicle") != item["vehicle"].lower():
                    vehicle = item["vehicle"]
                topic, prop = item["topic"], item["property"]
            elif item.get("property") and not prop:
                prop = item["property"]
            instances.append((topic or "", (prop or "").lower(), vehicle, round(float(conf), 4),
                              " ".join(_context_lemmas(doc, s)), item["source"], item.get("group")))
            per_source[item["source"]] += 1
            if "vehicle" in item:
                break  # one annotated simile per annotated sentence
        if "vehicle" in item and not similes:
            instances.append((item["topic"], item["property"].lower(), item["vehicle"], item["conf"], "",
                              item["source"], None))
            per_source[item["source"]] += 1

    normalizer._lemmas = lemmas
    vehicles: Counter = Counter()
    pairs: Counter = Counter()
    trip_n: Counter = Counter()
    trip_q: dict = defaultdict(lambda: 1.0)
    contexts = []
    surfaces: dict[str, Counter] = defaultdict(Counter)
    # where each vehicle and each pair was seen (the evidence a score shows): source names as indices
    source_names = sorted(per_source)
    vehicle_sources: dict[str, Counter] = defaultdict(Counter)
    pair_sources: dict[str, Counter] = defaultdict(Counter)
    generated: dict[tuple, set] = defaultdict(set)  # (table, key) → the literal groups whose candidates hold it
    for topic, prop, vehicle, conf, context, source, group in instances:
        t, v = normalizer.normalize(topic), normalizer.normalize(vehicle)
        head = normalizer._head(v)
        if not v or not head.isalpha() or head in STOP_WORDS or head in _NON_SIMILE_VEHICLES:
            continue  # pronoun or quantity "vehicles" ("as good as ever", "as bad as the rest")
        p = " ".join(prop.split()) if prop else ""
        if group is not None:
            generated[("v", v)].add(group)
            if t:
                generated[("p", f"{t}\t{v}")].add(group)
            if t and p:
                generated[("t", (t, p, v))].add(group)
                trip_q[(t, p, v)] *= 1.0 - conf
            continue
        vehicles[v] += 1
        vehicle_sources[v][source_names.index(source)] += 1
        surfaces[v][" ".join(vehicle.split())] += 1
        if t:
            pairs[f"{t}\t{v}"] += 1
            pair_sources[f"{t}\t{v}"][source_names.index(source)] += 1
        if t and p:
            trip_n[(t, p, v)] += 1
            trip_q[(t, p, v)] *= 1.0 - conf
        if context:
            contexts.append([v, context])
    gen_index = source_names.index(GENERATED_SOURCE) if GENERATED_SOURCE in source_names else -1
    for (table, key), groups_with_it in sorted(generated.items(), key=lambda kv: str(kv[0])):
        others = len(groups_with_it) - 1  # a candidate's own literal never counts for it
        if others < 1:
            continue
        if table == "v":
            vehicles[key] += GENERATED_WEIGHT * others
            vehicle_sources[key][gen_index] += others
        elif table == "p":
            pairs[key] += GENERATED_WEIGHT * others
            pair_sources[key][gen_index] += others
        else:
            trip_n[key] += GENERATED_WEIGHT * others
    for key in [k for k in trip_q if k not in trip_n]:
        del trip_q[key]  # seen in one literal's candidates only
    triplets: dict[str, list] = defaultdict(list)
    for (t, p, v), n in trip_n.items():
        triplets[f"{t}\t{v}"].append([p, _count(n), round(1.0 - trip_q[(t, p, v)], 4)])
    used_words = {w for key in list(vehicles) + list(pairs) for w in key.replace("\t", " ").split()}
    data = {
        "meta": {"built_with": "python -m studio build kb", "instances": len(instances),
                 "triplets": len(trip_n), "pairs": len(pairs), "vehicles": len(vehicles),
                 "per_source": dict(per_source), "plausibility": "noisy-or of per-instance confidences",
                 "confidences": {"annotated": CONF_ANNOTATED, "curated": CONF_CURATED,
                                 "mined": f"detector probability >= {MIN_MINED_CONF}"},
                 "count_weights": {GENERATED_SOURCE: f"{GENERATED_WEIGHT} per other literal",
                                   "other sources": 1}},
        "lemmas": {w: l for w, l in sorted(lemmas.items()) if w in used_words or l in used_words},
        "vehicles": {k: _count(n) for k, n in sorted(vehicles.items())},
        "pairs": {k: _count(n) for k, n in sorted(pairs.items())},
        "triplets": dict(sorted(triplets.items())),
        "contexts": contexts,
        "sources": {"names": source_names,
                    "vehicles": {v: sorted(c.items()) for v, c in sorted(vehicle_sources.items())},
                    "pairs": {k: sorted(c.items()) for k, c in sorted(pair_sources.items())}},
        # the most common surface form of each vehicle (with its article), for inserting it into a sentence
        "surfaces": {v: c.most_common(1)[0][0] for v, c in sorted(surfaces.items())
                     if c.most_common(1)[0][0].lower() != v},
    }
    blob = json.dumps(data, separators=(",", ":"), ensure_ascii=False, sort_keys=False)
    data["meta"]["digest"] = hashlib.sha256(blob.encode()).hexdigest()
    blob = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(args.out, "wb", mtime=0) as fh:  # mtime=0: the same data gives the same bytes
        fh.write(blob.encode("utf-8"))
    from ...figures.kb import load_kb

    load_kb.cache_clear()
    return {"out": str(args.out), "bytes": args.out.stat().st_size, "instances": len(instances),
            "vehicles": len(vehicles), "pairs": len(pairs), "triplets": len(trip_n), "contexts": len(contexts),
            "per_source": dict(per_source), "seconds": round(time.perf_counter() - started, 1)}
