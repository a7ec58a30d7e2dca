"""Figurative continuation benchmark, printed as JSON (offline profile, warm: models loaded and one run done
before timing; the median of --repeats runs):

- one plain 20-token continuation (target <= 1 s),
- one 12-prompt ensemble continuation, the decoding only, with 12 given inferences (target <= 3 s),
- one judgement of two options (target <= 0.3 s since the cross-encoder judge; it was 0.2 s for the old one),
- what the Continue tab does by default (target <= 4 s, set for 3 samples ranked by the judge): since 2026-11-25 the
  tuned generator draws 16 samples and the best 3 by fluency and the judge are shown (`three_shown_of_pool_s`);
  `three_samples_ranked_s` is the tab before (3 drawn, ranked by the judge: `pool=3`).

    .venv/bin/python bench/continuation.py [--repeats 5] [--profile offline] [--only judgement]
"""
from __future__ import annotations

import argparse
import json

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NARRATIVE = ("Jason was wearing a new suit, and the blue of it was only a bit darker than the blue of his eyes. "
             "He looked great, and he was smiling [to beat the band].")
INFERENCES = [f"beat is {p}" for p in ("loud", "fast", "strong")] + \
    ["The narrator needed to get dressed", "The narrator intended to look good", "The narrator wanted to celebrate",
     "The narrator feels happy", "The narrator is seen as proud", "band is used for music",
     "band can be found in a concert", "to beat the band means to the greatest possible extent",
     "The effect on narrator is they smile"]
OPTION1 = "I wasn't sure if jason was smiling because he was happy or pretending to be."
OPTION2 = "In all of our years together, I don't know if i'd ever seen jason quite so happy."


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 3)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--profile", default="offline")
    p.add_argument("--only", choices=["judgement"], help="time only the judgement (no LM loaded)")
    args = p.parse_args()
    os.environ["STUDIO_PROFILE"] = args.profile
    load_before = round(os.getloadavg()[0], 2)  # the 2 cores are shared: a busy machine explains slow figures
    import torch

    from studio.continuation.decoding import ensemble_sample
    from studio.continuation.generate import prompts_for
    from studio.continuation.judge import judge_pair
    from studio.models import get_registry

    def judgement():
        return judge_pair(NARRATIVE, OPTION1, OPTION2)

    if args.only == "judgement":
        t = time.perf_counter()
        first = judgement()
        warmup = round(time.perf_counter() - t, 1)
        print(json.dumps(with_cpu({
            "profile": get_registry().profile, "warmup_seconds": warmup, "judge": _judge_name(),
            "judgement_s": _median(judgement, args.repeats), "target_judgement_s": 0.3, "p_option2": first["p_option2"],
            "repeats": args.repeats, "cpu_load_1min_before": load_before,
            "cpu_load_1min_after": round(os.getloadavg()[0], 2), "torch_threads": torch.get_num_threads()}), indent=2))
        return
    lm = get_registry().get("lm")

    def plain():
        # no sentence-end cut: always the full 20 new tokens
        return ensemble_sample(lm, prompts_for(NARRATIVE, []), max_new_tokens=20, stop_at_sentence_end=False,
                               shared_text=NARRATIVE)

    def ensemble():
        return ensemble_sample(lm, prompts_for(NARRATIVE, INFERENCES), max_new_tokens=20,
                               stop_at_sentence_end=False, shared_text=NARRATIVE)

    from studio.continuation.generate import Settings, continue_narrative

    def three_ranked():
        return continue_narrative(NARRATIVE, Settings(mode="tuned", n=3, seed=0, pool=3))

    def three_of_pool():
        return continue_narrative(NARRATIVE, Settings(mode="tuned", n=3, seed=0))

    t = time.perf_counter()
    for fn in (plain, ensemble, judgement, three_ranked, three_of_pool):
        fn()  # warm-up: loads the models and the idiom lexicon
    warmup = round(time.perf_counter() - t, 1)
    result = {
        "profile": get_registry().profile,
        "warmup_seconds": warmup,
        "plain_20_tokens_s": _median(plain, args.repeats),
        "ensemble_12_prompts_20_tokens_s": _median(ensemble, args.repeats),
        "judgement_s": _median(judgement, args.repeats),
        "three_samples_ranked_s": _median(three_ranked, args.repeats),
        "three_shown_of_pool_s": _median(three_of_pool, args.repeats),
        "judge": _judge_name(),
        "targets": {"plain_20_tokens_s": 1.0, "ensemble_12_prompts_20_tokens_s": 3.0, "judgement_s": 0.3,
                    "three_samples_ranked_s": 4.0, "three_shown_of_pool_s": 4.0},
        "prompts_in_ensemble": len(INFERENCES),
        "repeats": args.repeats,
        "cpu_load_1min_before": load_before,
        "cpu_load_1min_after": round(os.getloadavg()[0], 2),
        "torch_threads": torch.get_num_threads(),
    }
    print(json.dumps(with_cpu(result), indent=2))


def _judge_name() -> str:
    from studio.continuation.judge import get_judge

    judge = get_judge()
    return judge.name if judge is not None else ""


if __name__ == "__main__":
    main()
