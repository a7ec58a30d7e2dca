"""Simile components: topic / vehicle exact match on MAPS-KB's labelled sentences
(../shared/data/similes/component_extraction_dev.csv, mostly encyclopaedic prose the extractor's rules were not
written against), and the simile detector's F1 on MAPS-KB's detection test split.

Split of the components file: `hash_half(sentence, "components")` — even SHA-1: dev (for choices), odd: test
(reported). The detector is fitted (weights, C and threshold by 5-fold CV) on detection_train.csv and the "like"
similes of FLUTE's simile train file; its tests are detection_test.csv and the "like" similes of FLUTE's simile test
file (its recall of similes people wrote, beside the KB's mining weights, fitted on MAPS-KB alone), and a writer's
"like" sentences (blind_reads/like_sentences_{dev,test}.tsv: similes and the literal uses a careless detector takes
for them, written blind by two helper sessions; dev made the detector's choices). The corpora general_corpus.csv /
quizzes.csv, against which the rules were written, are reported only as `train`: the extractor's figures in the
details, and the detector's recall on their "as … as" similes (a form the detection files lack) as a figure.

Matching: lowercased, whitespace-normalised, leading article dropped, surrounding quotes and punctuation dropped.
The vehicle is also scored with the learned boundary (`learned=True`, the one HAUSER's scorer uses), and against
the gold `components` of hauser/human_ratings_dev.csv (rows with a gold simile).

The annotated simile of a sentence is the extracted simile whose vehicle span is nearest to the gold vehicle's first
occurrence in the sentence (the first simile when the gold vehicle is not found verbatim); a sentence where the
extractor finds no simile counts as wrong.
"""
from __future__ import annotations

import csv
import re

from ...figures.components import extract_similes_batch, strip_articles
from ...paths import PROJECT_ROOT
from ...shared_data import shared_data_dir
from ..similes.data import similes_dir
from .base import Evaluation, Figure, hash_half, share_interval

FILE = "component_extraction_dev.csv"


def norm(phrase: str | None) -> str:
    text = " ".join((phrase or "").lower().split()).strip(" \"'.,;:!?()[]`")
    return strip_articles(text).strip(" \"'")


def load_rows() -> list[dict]:
    with open(similes_dir() / FILE, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r["split"] = hash_half(r["sentence"], "components")
    return rows


def pick(similes, sentence: str, gold_vehicle: str):
    if not similes:
        return None
    at = sentence.lower().find(gold_vehicle.lower().strip()) if gold_vehicle.strip() else -1
    if at < 0:
        return similes[0]
    return min(similes, key=lambda s: abs(s.spans.get("vehicle", s.spans["comparator"])[0] - at))


def component_scores(rows: list[dict], learned: bool = False) -> dict:
    extracted = extract_similes_batch([r["sentence"] for r in rows], learned=learned)
    hits = {"topic": 0, "vehicle": 0, "vehicle_head_in_gold": 0}
    found = 0
    for r, sims in zip(rows, extracted):
        s = pick(sims, r["sentence"], r["vehicle"])
        found += s is not None
        if s is None:
            continue
        hits["topic"] += norm(s.topic) == norm(r["topic"]) != ""
        hits["vehicle"] += norm(s.vehicle) == norm(r["vehicle"]) != ""
        head = (s.heads.get("vehicle") or "").lower()
        hits["vehicle_head_in_gold"] += bool(head) and head in re.findall(r"[\w'-]+", r["vehicle"].lower())
    n = len(rows)
    return {"n": n, "simile_found": found / n if n else None,
            **{k: (v / n if n else None) for k, v in hits.items()}}


def rated_vehicle_agreement(limit: int | None = None, learned: bool = False) -> dict:
    """HAUSER's human-rated candidates (hauser/human_ratings_dev.csv): how often one of a candidate's extracted
    vehicles equals the gold vehicle of its `components` (rows whose gold lists no simile are left out)."""
    import ast

    path = shared_data_dir(must_exist=True) / "hauser" / "human_ratings_dev.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if ast.literal_eval(r["components"])][:limit or None]
    extracted = extract_similes_batch([r["similes"] for r in rows], learned=learned)
    hits = sum(any(norm(s.vehicle) == norm(ast.literal_eval(r["components"])[0][1]) for s in sims)
               for r, sims in zip(rows, extracted))
    return {"n": len(rows), "vehicle_agreement": hits / len(rows) if rows else None}


class ComponentsEvaluation(Evaluation):
    name = "components"
    title = "Simile components (MAPS-KB labelled sentences) and simile detection"
    splits = {"train": "similes/general_corpus.csv, quizzes.csv (rules written against them); detection_train.csv",
              "dev": f"{FILE}, sentences with even sha1('components|sentence'); detection_dev.csv; "
                     "blind_reads/like_sentences_dev.tsv",
              "test": f"{FILE}, sentences with odd sha1('components|sentence'); detection_test.csv; the distinct "
                      "\"like\" hypotheses of nli/flute_simile_test.jsonl; blind_reads/like_sentences_test.tsv"}

    def _compute(self, limit):
        from ..similes.data import read_csv
        from ..similes.evaluate import detection_scores

        rows = load_rows()
        figures, details = [], {}
        for split in ("dev", "test"):
            part = [r for r in rows if r["split"] == split][:limit or None]
            sc = component_scores(part)
            details[split] = sc
            figures += [Figure("vehicle exact", sc["vehicle"], split, sc["n"], headline=split == "test",
                               interval=share_interval(sc["vehicle"], sc["n"])),
                        Figure("topic exact", sc["topic"], split, sc["n"], headline=split == "test",
                               interval=share_interval(sc["topic"], sc["n"]))]
            learned = component_scores(part, learned=True)  # the vehicle boundary HAUSER's scorer uses
            details[f"{split}_learned_boundary"] = learned
            figures.append(Figure("vehicle exact, learned boundary", learned["vehicle"], split, learned["n"],
                                  headline=False))
        for name, learned in (("rules", False), ("learned boundary", True)):
            agree = rated_vehicle_agreement(limit, learned=learned)
            details[f"hauser_ratings_{name.replace(' ', '_')}"] = agree
            figures.append(Figure(f"HAUSER ratings vehicle agreement, {name}", agree["vehicle_agreement"], "dev",
                                  agree["n"], headline=False))
        for split, name in (("dev", "detection_dev.csv"), ("test", "detection_test.csv")):
            rows = read_csv(name)[:limit or None]
            det, before = detection_scores(rows), detection_scores(rows, predict=mining_predict)
            details[f"detection_{split}"] = {**det, "mining_weights": before}
            figures.append(Figure("detector F1", det["f1"], split, det["n"],
                                  {"value": before["f1"], "source": MINING_ANCHOR}, headline=split == "test"))
        for split in ("dev", "test"):
            rows = writers_like_sentences(split)[:limit or None]
            det, before = detection_scores(rows), detection_scores(rows, predict=mining_predict)
            details[f"writers_like_sentences_{split}"] = {**det, "mining_weights": before}
            figures.append(Figure("detector F1, a writer's \"like\" sentences", det["f1"], split, det["n"],
                                  {"value": before["f1"], "source": MINING_ANCHOR}, headline=split == "test"))
        written = written_recall(limit)
        details["detector_written_recall"] = written
        figures.append(Figure("detector recall, similes people wrote (FLUTE)", written["recall"], "test",
                              written["n"], {"value": written["recall_mining_weights"], "source": MINING_ANCHOR},
                              headline=False, interval=share_interval(written["recall"], written["n"])))
        asas = as_as_recall(limit)
        details["detector_as_as_recall"] = asas
        figures.append(Figure("detector recall, attested \"as … as\" similes", asas["recall"], "train", asas["n"],
                              {"value": asas["recall_learned_weights_alone"],
                               "source": "the learned weights alone (fitted on \"like\" sentences only)"},
                              headline=False, interval=share_interval(asas["recall"], asas["n"])))
        return figures, details


#: the anchor of the detector's figures on written similes
MINING_ANCHOR = "fitted on MAPS-KB alone, as served before; the KB's mining weights"


def mining_predict(sentences: list[str]) -> list[bool]:
    """The KB's mining weights as a detector (every comparison a sentence holds, its most simile-like one)."""
    from ...figures import detector as D

    cut = D.threshold("mining")
    return [p >= cut for p in D.score_batch(sentences, D.mining_probability)]


def writers_like_sentences(split: str) -> list[dict]:
    """`{label, sentence}` rows of blind_reads/like_sentences_SPLIT.tsv (60 similes, 60 literal uses of "like"); the
    test file without the 7 sentences its writer also wrote into dev ("He ran like the wind."), where choices were
    made."""
    def read(name: str) -> list[list[str]]:
        lines = (PROJECT_ROOT / "blind_reads" / f"like_sentences_{name}.tsv").read_text(encoding="utf-8").splitlines()
        return [line.split("\t", 1) for line in lines if line and not line.startswith("#")]

    seen = {sentence for _, sentence in read("dev")} if split == "test" else set()
    return [{"label": label, "sentence": sentence} for label, sentence in read(split) if sentence not in seen]


def written_recall(limit: int | None = None) -> dict:
    """The detector on the distinct "like" hypotheses of FLUTE's simile test file: similes people wrote (every one a
    simile, whatever its NLI label), the kind a writer types; beside it, the KB's mining weights."""
    from ...figures.detector import predict_batch
    from ..similes.train_detector import flute_like_similes

    sentences = flute_like_similes("test")[:limit or None]
    n = len(sentences)
    return {"n": n, "recall": round(sum(predict_batch(sentences)) / n, 4),
            "recall_mining_weights": round(sum(mining_predict(sentences)) / n, 4)}


def as_as_recall(limit: int | None = None) -> dict:
    """The detector on the "as ADJ as NOUN" similes of general_corpus.csv and quizzes.csv (every row a simile, its
    masked property filled in with the right option): the form MAPS-KB's detection set, on which the weights were
    fitted, does not hold. Beside it, the learned weights alone (detector.learned_probability)."""
    from ...figures import components as C
    from ...figures import detector as D

    sentences = []
    for name in ("general_corpus.csv", "quizzes.csv"):
        with open(similes_dir() / name, newline="", encoding="utf-8") as fh:
            sentences += [r["sentence"].replace(" _ ", f" {r['option' + r['ans_idx']]} ", 1)
                          for r in csv.DictReader(fh)]
    sentences = sentences[:limit or None]
    docs = list(C._parser().pipe(sentences))
    similes = [C.extract_similes("", doc=doc) for doc in docs]
    thr = D.threshold()

    def found(prob) -> int:
        return sum(max((prob(s, doc) for s in ss), default=0.0) >= thr for ss, doc in zip(similes, docs))

    n = len(sentences)
    return {"n": n, "extracted": sum(bool(ss) for ss in similes), "recall": round(found(D.simile_probability) / n, 4),
            "recall_learned_weights_alone": round(found(D.learned_probability) / n, 4)}
