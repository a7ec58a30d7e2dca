"""`python -m studio train continuation-writer`: fine-tune a LoRA delta of the `writer` (the largest offline LM) to
write the next sentence of a narrative that ends in an idiom or a simile, as Continue asks it: the chat turn of
continuation/writing.py (TUNED_SYSTEM, then the story's end and what the figure means) answered by the benchmark's
plausible continuation (the `option` marked by `correctanswer`).

Data: the train part of ../shared/data/figurative (data.split3: by expression, so no dev or test idiom or simile is
seen; dev picks the epoch by its loss; test is never read here). The expression is the benchmark's marked one; its
meaning is the benchmark's (the idiom's sense, the simile's property), dropped from a share of the rows
(`--no-meaning-share`) so that the writer also continues a figure the lexicon does not know. Rows whose gold a strict
reader would not keep are dropped (`examples`: many of the benchmark's plausible options restate the meaning, "She
was known as the most beautiful person in town." for `like a pure white lily`). The loss covers the continuation
only. The loop is studio/lab/training/lm_finetune.py; writes assets/continuation/writer_lora.*.
"""
from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import replace
from pathlib import Path

from ...atomic import atomic_write
from ...errors import InputError
from ...continuation.expression import find_expression
from ...continuation.writing import TUNED_SYSTEM, slips, user_message
from ...models.roles import split_chat_prompt
from ...models.specs import CONTINUATION_WRITER as DELTA_PATH

RUN_PATH = DELTA_PATH.with_suffix(".json")


def chat_prompt(narrative: str, expr):
    """The writer's chat turn for a row as the served writer renders it (roles.split_chat_prompt: the tokenizer's
    own template), a callable of the tokenizer."""
    user = user_message(narrative, expr)

    def render(tokenizer) -> str:
        return "".join(split_chat_prompt(tokenizer, TUNED_SYSTEM, user))
    render.user = user  # shown in the run's log
    return render


_WORD = re.compile(r"[a-z']+")
_SENTENCE = re.compile(r'^[A-Z"].*[.!?]["\')]*$')
_STOP = {"that", "this", "with", "from", "into", "over", "very", "been", "being", "have", "what", "when", "where",
         "them", "they", "their", "than", "then", "some", "something", "someone", "one's", "someone's", "about"}
#: a gold continuation as close as this to the figure's meaning (cosine of the embedder's vectors) restates it
RESTATES = 0.35


def restates(gold: str, meaning: str, cosine: float, threshold: float = RESTATES) -> bool:
    """The blind reader's "restating" pattern in a gold continuation: it repeats a content word of the meaning
    ("The fourth floor was cold" for `cold`) or says nearly the same thing."""
    said = {w[:5] for w in _WORD.findall(gold.lower())}
    meant = {w[:5] for w in _WORD.findall(meaning.lower()) if len(w) > 3 and w not in _STOP}
    return bool(said & meant) or cosine >= threshold


def examples(items, seed: int, no_meaning_share: float, threshold: float = RESTATES) -> tuple[list[dict], dict]:
    """The chat rows of the items whose gold continuation a strict reader would keep (a whole sentence of 6-30
    words that does not reuse the figure's words, stack a simile or restate the meaning), and the counts dropped."""
    import numpy as np

    from ...models import get_registry

    embedder = get_registry().get("embedder")
    gold = embedder.encode([it.gold for it in items])
    meant = embedder.encode([it.knowledge for it in items])
    cosine = (gold * meant).sum(1) / (np.linalg.norm(gold, axis=1) * np.linalg.norm(meant, axis=1) + 1e-9)
    rng = random.Random(seed)
    out, dropped = [], {"not a whole sentence of 6-30 words": 0, "a slip (the figure's words, a new simile)": 0,
                        "restates the meaning": 0}
    for it, cos in zip(items, cosine):
        text, expr = find_expression(it.raw or it.narrative)
        answer = " ".join(it.gold.split())
        if not _SENTENCE.match(answer) or not 6 <= len(answer.split()) <= 30:
            dropped["not a whole sentence of 6-30 words"] += 1
            continue
        if slips(answer, text, expr):
            dropped["a slip (the figure's words, a new simile)"] += 1
            continue
        if restates(answer, it.knowledge, float(cos), threshold):
            dropped["restates the meaning"] += 1
            continue
        if expr is not None:
            keep = rng.random() >= no_meaning_share
            expr = replace(expr, meaning=it.knowledge if keep else "")
        out.append({"prompt": chat_prompt(text, expr), "completion": answer})
    rng.shuffle(out)
    return out, dropped


def train(argv: list[str]) -> dict:
    from ..training.lm_finetune import add_arguments, train_delta
    from .data import KINDS, split3

    ap = argparse.ArgumentParser(prog="python -m studio train continuation-writer")
    add_arguments(ap, examples=1200, dev_examples=120, batch_size=4, out=DELTA_PATH)
    ap.set_defaults(rank=8, alpha=16.0, lr=3e-4, threads=2, max_minutes=90.0)
    ap.add_argument("--no-meaning-share", type=float, default=0.2,
                    help="share of training examples whose prompt gives no meaning")
    ap.add_argument("--restates", type=float, default=RESTATES,
                    help="drop a gold continuation this close (embedder cosine) to the figure's meaning")
    args = ap.parse_args(argv)
    parts = {p: [it for kind in KINDS for it in split3(kind)[p]] for p in ("train", "dev")}
    # about 40 % of the rows are dropped (`examples`): draw enough to keep --examples
    drawn = {p: random.Random(args.seed + i).sample(items, min(len(items), int(n * 1.8)))
             for i, (p, items, n) in enumerate((("train", parts["train"], args.examples),
                                                ("dev", parts["dev"], args.dev_examples)))}
    train_rows, dropped = examples(drawn["train"], args.seed, args.no_meaning_share, args.restates)
    dev_rows, _ = examples(drawn["dev"], args.seed + 1, args.no_meaning_share, args.restates)
    if not train_rows or not dev_rows:
        raise InputError(f"no training rows are left once {dropped} are dropped: loosen --restates")
    print(json.dumps({"kept": len(train_rows), "dropped": dropped, "example": train_rows[0]["prompt"].user,
                      "completion": train_rows[0]["completion"]}), flush=True)
    train_rows, dev_rows = train_rows[:args.examples], dev_rows[:args.dev_examples]
    run = train_delta(args, train_rows, dev_rows, "python -m studio train continuation-writer " + " ".join(argv),
                      role="writer", lead="")
    run["dropped_from_train"] = dropped
    if Path(args.out).resolve() == DELTA_PATH.resolve():
        atomic_write(RUN_PATH, json.dumps(run, indent=1) + "\n")
    return run
