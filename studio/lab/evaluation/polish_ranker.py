"""Polish's ranker (`polish_ranker` role) on the blind reads' labels: does ordering a list by P(keep) put more
candidates a writer keeps into its top 3 than the order they were shown in?

The lists and labels are the committed reads' (blind_reads/polish_blind_read_*.json); each read candidate is scored as
today's Polish scores it, as `python -m studio train polish-ranker` does (studio/lab/similes/aptness_train.py: splits by
literal set, train 1–3, dev 4–5, test every later set). Only the served weights are measured here. "As shown" is
each read's own order, what Polish served when it was read: the polisher's fluency before the ranker, then keep,
and from read 20 on keep and the writer's reread (with the image table's lines first from read 17): for the later
sets (polish_literals_dev_N.txt and _report_N.txt) the anchor is mostly the served order, of which keep is one
part. The details hold sets 6-10 and the later sets apart. A
fresh blind read of the served lists (`eval polish-read`) is the figure that counts: this one reorders lists made
before.
"""
from __future__ import annotations

from ...models import get_registry
from .base import Evaluation, Figure, share_interval


class PolishRankerEvaluation(Evaluation):
    name = "polish-ranker"
    title = "Polish: the top 3 of labelled lists, ordered by the ranker's P(keep) vs as shown"
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
        labels, lists, sets, rows, _embedder = at.prepare(progress=None)
        figures, details = [], {}
        for split in ("dev", "test"):
            _, x, y = at.dataset(labels, rows, sets, split)
            t = at.top3(lists, rows, sets, split, ranker.weights)
            details[split] = {**t, "auc": at.auc_of_keep(ranker.weights, x, y),
                              "auc_score_alone": at.auc_of_score(x, y), "candidates": int(len(y)),
                              "usable": int(y.sum())}
            if split == "test":
                later = {n for n in sets.values() if n > max(self.FIRST_TEST_SETS)}
                for part, only in (("sets 6-10", set(self.FIRST_TEST_SETS)), ("the later sets", later)):
                    details[split][part] = at.top3(lists, rows, sets, split, ranker.weights, only)
            shown = round(t["shown"] / t["slots"], 4) if t["slots"] else None
            # the order shown is the figure's anchor (the README's table has no row of its own for it)
            ranked = t["ranked"] / t["slots"] if t["slots"] else None
            figures.append(Figure("top 3 usable, ordered by keep", ranked,
                                  split, t["slots"], anchor={"value": shown, "source": "the same lists in the order "
                                                                                        "they were shown" + (
                                      " (each read's own: fluency, keep, or the served "
                                      "order with the writer's reread)" if split == "test" else "")},
                                  headline=split == "test", interval=share_interval(ranked, t["slots"])))
            figures.append(Figure("top 3 usable, as shown (the same candidates)", shown, split, t["slots"],
                                  headline=False))
        return figures, details
