"""Bench: the writer model where a writer meets it, offline profile, warm (models loaded, one run done before timing),
printed as JSON:

- Continue's default (writer mode: its pool drawn together, the best 3 shown; `--pool N` another pool), median
  over 5 stories, and when its first token is on screen (the progress callback's first "writing" call); target
  <= 6 s, first <= 2 s;
- Polish, `--n 10` with the default sources (`--strategies writer,property` for the writer source), median over 6
  sentences, and the writer's first token when the writer is a source; target <= 6 s, first <= 2 s;
- the process's resident memory after both with every role they use loaded (target for the whole app <= 4 GB).

    .venv/bin/python bench/writer.py [--repeats 1] [--pool N] [--strategies writer,property]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STUDIO_PROFILE", "offline")

STORIES = [
    "Ana had trained for the race all spring, but on the morning of the final she woke with a fever and felt as "
    "weak as a kitten.",
    "The interns stayed up all night to finish the slides, and by the time the client arrived they were running on "
    "fumes.",
    "When Omar saw the size of the bill at the fancy restaurant, he went as white as chalk.",
    "Kim had promised to keep the plans for the party secret, but at dinner she spilled the beans.",
    "The new coach shouted at the players for an hour, and the team listened as quiet as mice.",
]
SENTENCES = ["He yelps and howls.", "She ran down the stairs.", "The old house creaked in the wind.",
             "The lake was calm.", "He stared at the letter for a long time.", "Her voice was very loud."]


def _timed(fn):
    """(seconds, seconds until the writer's first token: the first progress call it makes per token) of fn(progress)."""
    first = []
    started = time.perf_counter()

    def progress(fraction, what):
        if not first and (what.startswith("writing ") or "proposes images" in what):
            first.append(time.perf_counter() - started)

    fn(progress)
    return time.perf_counter() - started, (first[0] if first else None)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--pool", type=int, default=None, help="Continue's pool (default: the served one)")
    p.add_argument("--strategies", default=None, help="Polish's sources (default: the served ones)")
    args = p.parse_args()
    strategies = args.strategies.split(",") if args.strategies else None
    load_before = round(os.getloadavg()[0], 2)
    import psutil

    from studio.continuation.generate import Settings, continue_narrative
    from studio.models import get_registry
    from studio.similes.polish import polish

    t = time.perf_counter()
    writer = get_registry().get("writer")
    load = time.perf_counter() - t
    continue_narrative(STORIES[0], Settings(seed=0, pool=args.pool))  # warm-up: judge, lexicon, parser, the prefix
    polish(SENTENCES[0], n=10, seed=0, strategies=strategies)
    cont, cont_first = [], []
    for _ in range(args.repeats):
        for i, story in enumerate(STORIES):
            total, first = _timed(lambda progress: continue_narrative(story, Settings(seed=i, pool=args.pool),
                                                                         progress=progress))
            cont.append(total)
            cont_first.append(first)
    pol, pol_first = [], []
    for _ in range(args.repeats):
        for i, sentence in enumerate(SENTENCES):
            total, first = _timed(lambda progress: polish(sentence, n=10, seed=i, progress=progress,
                                                          strategies=strategies))
            pol.append(total)
            pol_first.append(first)
    rss = psutil.Process().memory_info().rss / 2**30
    print(json.dumps(with_cpu({
        "profile": get_registry().profile, "writer": writer.backend, "writer_load_s": round(load, 2),
        "continue_three_shown_median_s": round(statistics.median(cont), 2), "continue_max_s": round(max(cont), 2),
        "continue_first_token_median_s": round(statistics.median(f for f in cont_first if f is not None), 2),
        "polish_ten_median_s": round(statistics.median(pol), 2), "polish_max_s": round(max(pol), 2),
        "continue_pool": Settings(pool=args.pool).check().pool, "polish_sources": strategies or "default",
        "polish_first_writer_token_median_s": round(statistics.median(f for f in pol_first if f is not None), 2)
        if any(f is not None for f in pol_first) else None,
        "rss_gb_after_both": round(rss, 2), "targets": {"continue_s": 6, "polish_s": 6, "first_s": 2, "app_rss_gb": 4},
        "cpu_load_1min_before": load_before, "cpu_load_1min_after": round(os.getloadavg()[0], 2)}), indent=2))


if __name__ == "__main__":
    main()
