"""Polish's ranker (`polish_ranker` role) on the blind reads' labels: does ordering a list by P(keep) put more
candidates a writer keeps into its top 3 than the order they were shown in?

The lists and labels are the committed reads' (blind_reads/polish_blind_read_*.json); each read candidate is scored as
today's Polish scores it, as `python -m studio train polish-ranker` does (studio/lab/similes/aptness_train.py: splits by
literal set, train 1–3, dev 4–5, test every later set). Only the served weights are measured here: keep's, and the
writer's reread (keep computed again with the writer's fit, the order Polish serves for its first 20; each labelled
list is shorter, so it is the whole order; the fit's z-score is taken over the literal's pooled candidates, as fitted,
where Polish takes it over the 20 it reads: on dev the two give 226 and 226 top-3 places). "As shown" is
each read's own order, what Polish served when it was read: the polisher's fluency before the ranker, then keep,
and from read 20 on keep and the writer's reread (with the image table's lines first from read 17): for the later
sets (polish_literals_dev_N.txt and _report_N.txt) the anchor is mostly the served order, of which keep is one
part. The details hold sets 6-10 and the later sets apart. A
fresh blind read of the served lists (`eval polish-read`) is the figure that counts: this one reorders lists made
before.
"""
from __future__ import annotations

from ...models import get_registry
from ...similes import aptness
from .base import Evaluation, Figure, share_interval


class PolishRankerEvaluation(Evaluation):
    name = "polish-ranker"
    title = "Polish: the top 3 of labelled lists, ordered by the ranker's P(keep) and the writer's reread vs as shown"
    splits = {"train": "literal sets 1-3 (blind_reads/polish_literals.txt, _2, _3): the weights are fitted here",
              "dev": "literal sets 4-5: C chosen here",
              "test": "every later literal set (6-10, and the dev and report reads' sets): reported; neither keep's "
                      "fit nor its C saw them (sets 10 and the dev reads' were read for Polish's other choices)"}
    #: the test's first sets, blind_reads/polish_literals_6.txt … _10.txt (the later sets' lists were served with
    #: more than keep)
    FIRST_TEST_SETS = range(6, 11)

    def _compute(self, limit):
        from ..similes import aptness_train as at

        ranker = get_registry().get("polish_ranker")
        # the writer reads the pool (about five minutes) only for reread weights this profile serves
        labels, lists, sets, rows, _embedder, reread = at.prepare(progress=None, writer=ranker.reread is not None)
        figures, details = [], {}
        for split in ("dev", "test"):
            _, x, y = at.dataset(labels, rows, sets, split)
            t = at.top3(lists, rows, sets, split, ranker.weights)
            details[split] = {**t, "auc": at.auc_of_keep(ranker.weights, x, y),
                              "auc_score_alone": at.auc_of_score(x, y), "candidates": int(len(y)),
                              "usable": int(y.sum())}
            if reread is not None:
                _, x2, y2 = at.dataset(labels, reread, sets, split)
                t2 = at.top3(lists, reread, sets, split, ranker.reread, features=aptness.REREAD_FEATURES)
                details[split]["reread"] = {**t2, "auc": at.auc_of_keep(ranker.reread, x2, y2,
                                                                         aptness.REREAD_FEATURES)}
            later = {n for n in sets.values() if n > max(self.FIRST_TEST_SETS)}
            # sets 6-9 and the report reads' (polish_literals_report_N.txt) were never read for a Polish choice
            # (set 10 and the dev reads' sets were)
            clean = set(self.FIRST_TEST_SETS[:-1]) | {int(f.stem.rsplit("_", 1)[1]) for f in
                                                      at.BLIND_READS_DIR.glob("polish_literals_report_*.txt")}
            parts = (("sets 6-10", set(self.FIRST_TEST_SETS)), ("the later sets", later),
                     ("sets never read for a choice", clean)) if split == "test" else ()
            for part, only in parts:
                details[split][part] = at.top3(lists, rows, sets, split, ranker.weights, only)
                if reread is not None:
                    details[split][part]["reread"] = at.top3(lists, reread, sets, split, ranker.reread, only,
                                                             aptness.REREAD_FEATURES)
            shown = round(t["shown"] / t["slots"], 4) if t["slots"] else None
            # the order shown is the figure's anchor (the README's table has no row of its own for it)
            ranked = t["ranked"] / t["slots"] if t["slots"] else None
            figures.append(Figure("top 3 usable, ordered by keep", ranked,
                                  split, t["slots"], anchor={"value": shown, "source": "the same lists in the order "
                                                                                        "they were shown" + (
                                      " (each read's own: fluency, keep, or the served "
                                      "order with the writer's reread)" if split == "test" else "")},
                                  headline=split == "test" and reread is None,
                                  interval=share_interval(ranked, t["slots"])))
            figures.append(Figure("top 3 usable, as shown (the same candidates)", shown, split, t["slots"],
                                  headline=False))
            if reread is not None:
                t2 = details[split]["reread"]
                served = t2["ranked"] / t2["slots"] if t2["slots"] else None
                figures.append(Figure("top 3 usable, keep and the writer's reread (as Polish serves)", served, split,
                                      t2["slots"], anchor={"value": round(ranked, 4) if ranked is not None else None,
                                                           "source": "the same lists ordered by keep alone"},
                                      headline=split == "test", interval=share_interval(served, t2["slots"])))
        return figures, details
