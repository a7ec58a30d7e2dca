"""Logit-ensemble sampling, the paper's knowledge-enhanced decoding: every prompt ("inference ⟨sep⟩ narrative")
runs in one batch; at each step the next-token logits of all prompts of a sample are combined (summed, as the
paper does) and one token is drawn by top-k sampling with temperature, then appended to every prompt of that
sample. With one prompt this is plain top-k sampling, so all modes share one decoder.

Summing logits equals summing log-probabilities up to a per-row constant, so it is a product of experts: the
token must be likely under every inference. "mean" divides by the number of prompts, which keeps the meaning of
the temperature when many prompts are combined."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import check_stop
from ..models.sampling import banned_tokens as _banned_tokens
from ..models.sampling import draw as _draw
from ..wording import counted

_SENTENCE_END = re.compile(r"\w[^.!?]*?[.!?]+[\"')\]]*(?=\s|$)")


@dataclass
class Sample:
    text: str
    tokens: int
    ids: tuple[int, ...] = ()
    complete: bool = True  # False: the token limit came before the sentence ended


def first_sentence(text: str) -> str | None:
    """The text up to its first sentence end, or None while no sentence has ended."""
    m = _SENTENCE_END.search(text)
    return text[: m.end()] if m else None


def ensemble_sample(lm, prompts: list[str], *, n_samples: int = 1, max_new_tokens: int = 20, top_k: int = 5,
                    temperature: float = 0.7, no_repeat_ngram_size: int = 3, seed: int = 0,
                    stop_at_sentence_end: bool = True, combine: str = "sum", shared_text: str = "", progress=None,
                    should_stop=None) -> list[Sample]:
    """Draw `n_samples` continuations whose every token is sampled from the combined logits of all `prompts`.

    `progress(fraction, what)` is called after each decoding step, `should_stop()` polled before it (ending in
    `Stopped`): plain callables. A sample that reaches `max_new_tokens` before its sentence ends is returned with
    `complete=False` (its text as drawn; the caller says so).

    `shared_text` (the narrative) seeds the n-gram history, so the continuation does not copy the narrative's
    3-grams, as generate(no_repeat_ngram_size=3) would not."""
    import torch

    if not prompts:
        raise ValueError("no prompts to decode")
    if combine not in ("sum", "mean"):
        raise ValueError("combine must be 'sum' or 'mean'")
    tok = lm.tokenizer
    n = max(1, int(n_samples))
    prompt_ids = [tok(p, add_special_tokens=False)["input_ids"] for p in prompts]
    if not all(prompt_ids):
        raise ValueError("an empty prompt")
    history0 = tok(shared_text, add_special_tokens=False)["input_ids"] if shared_text else []
    generated: list[list[int]] = [[] for _ in range(n)]
    done = [False] * n
    texts = [""] * n
    generator = torch.Generator().manual_seed(int(seed) % (2**63))
    eos = tok.eos_token_id
    # the prompts are read once; each prompt's state then serves its n samples (rows: prompt-major)
    with lm.ensemble(prompt_ids, n, combine, int(max_new_tokens)) as (combined, advance):
        for step in range(int(max_new_tokens)):
            check_stop(should_stop, "Decoding")
            if step:
                combined = advance(next_ids)
            next_ids = []
            for s in range(n):
                if done[s]:
                    next_ids.append(eos if eos is not None else 0)
                    continue
                row = combined[s]
                banned = _banned_tokens(history0 + generated[s], no_repeat_ngram_size)
                if banned:
                    row = row.clone()
                    row[list(banned)] = float("-inf")
                next_ids.append(_draw(row, top_k, temperature, generator))
            for s, t in enumerate(next_ids):
                if done[s]:
                    continue
                if eos is not None and t == eos:
                    done[s] = True
                    continue
                generated[s].append(t)
                texts[s] = tok.decode(generated[s], skip_special_tokens=True)
                if "\n" in texts[s].strip() or (stop_at_sentence_end and first_sentence(texts[s].strip())):
                    done[s] = True
            if progress is not None:
                progress((step + 1) / int(max_new_tokens),
                         f"decoding token {step + 1}/{int(max_new_tokens)} of {counted(n, 'sample')}")
            if all(done):
                break
    samples = []
    for s in range(n):
        raw = texts[s].strip()
        text = raw.split("\n")[0].strip()
        ended = "\n" in raw or (eos is not None and done[s] and len(generated[s]) < int(max_new_tokens))
        if stop_at_sentence_end:
            sentence = first_sentence(text)
            ended = sentence is not None
            text = sentence or text
        samples.append(Sample(text=text, tokens=len(generated[s]), ids=tuple(generated[s]), complete=ended))
    return samples
