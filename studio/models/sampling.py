"""Token choice shared by every language-model backend (torch or llama.cpp): top-k sampling with temperature from
a seeded generator, the n-gram ban of transformers' `no_repeat_ngram_size`, and where a one-sentence reply stops.
Pure functions on logits and text."""
from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*(?=\s|$)")


def cut_at_sentence_end(text: str) -> str:
    """`text` up to its first sentence end (with a closing quote or bracket), or whole."""
    m = _SENTENCE_END.search(text)
    return text[: m.end()] if m else text


def banned_tokens(history: list[int], n: int) -> set[int]:
    """Tokens that would repeat an n-gram of `history` (like transformers' no_repeat_ngram_size)."""
    if n <= 0 or len(history) < n - 1:
        return set()
    prefix = tuple(history[len(history) - n + 1:]) if n > 1 else ()
    banned = set()
    for i in range(len(history) - n + 1):
        if tuple(history[i:i + n - 1]) == prefix:
            banned.add(history[i + n - 1])
    return banned


def draw(row, top_k: int, temperature: float, generator) -> int:
    """One token from a 1-D logits tensor: argmax at temperature 0, else top-k sampling with temperature."""
    import torch

    if not temperature or temperature <= 0:
        return int(row.argmax())
    k = min(int(top_k), row.numel()) if top_k and top_k > 0 else row.numel()
    values, indices = torch.topk(row / float(temperature), k)
    probs = torch.softmax(values, dim=-1)
    if not torch.isfinite(probs).all():
        return int(indices[0])
    return int(indices[torch.multinomial(probs, 1, generator=generator)])


def draw_rows(logits, top_k: int, temperature: float, generator):
    """One token per row of (n, vocab) logits, all rows drawn at once (so a row's draw does not depend on whether
    the others are still alive): the `sample_shared` sampler of both backends."""
    import torch

    scaled = logits / max(float(temperature), 1e-5)
    if top_k:
        kth = torch.topk(scaled, int(top_k), dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    return torch.multinomial(torch.softmax(scaled, dim=-1).cpu(), 1, generator=generator).squeeze(-1)


def extend_samples(drawn, out: list[list[int]], alive, eos: int | None, stop: str, decode,
                   until: tuple[str, ...] = ()) -> None:
    """`sample_shared`'s bookkeeping after a draw: each live row keeps its token, and ends at end of text, at a
    token whose text contains `stop`, or once its whole text contains one of `until` (kept: the caller cuts)
    (`alive` is updated in place: a list or a bool tensor)."""
    for i in range(len(out)):
        if alive[i]:
            tok = int(drawn[i])
            if tok == eos:
                alive[i] = False
            else:
                out[i].append(tok)
                if stop and stop in decode([tok]):
                    alive[i] = False
                elif until and any(u in decode(out[i]) for u in until):
                    alive[i] = False
