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


def _banned_tokens(history: list[int], n: int) -> set[int]:
    """Tokens that would repeat an n-gram of `history` (like transformers' no_repeat_ngram_size)."""
    if n <= 0 or len(history) < n - 1:
        return set()
    prefix = tuple(history[len(history) - n + 1:]) if n > 1 else ()
    banned = set()
    for i in range(len(history) - n + 1):
        if tuple(history[i:i + n - 1]) == prefix:
            banned.add(history[i + n - 1])
    return banned


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
    tok, model = lm.tokenizer, lm.model
    m, n = len(prompts), max(1, int(n_samples))
    tok.padding_side = "left"
    enc = tok(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False)
    history0 = tok(shared_text, add_special_tokens=False)["input_ids"] if shared_text else []
    generated: list[list[int]] = [[] for _ in range(n)]
    done = [False] * n
    texts = [""] * n
    generator = torch.Generator().manual_seed(int(seed) % (2**63))
    eos = tok.eos_token_id
    step_logits = _combined_logits(model, m, n, combine)
    with torch.inference_mode():
        # the prompts are read once; their cache is then copied for every sample (rows: prompt-major)
        mask = enc["attention_mask"]
        combined, past = step_logits(enc["input_ids"], mask, (mask.cumsum(-1) - 1).clamp_min(0), None, n)
        if n > 1:
            past.batch_repeat_interleave(n)
            mask = mask.repeat_interleave(n, dim=0)
        for step in range(int(max_new_tokens)):
            check_stop(should_stop, "Decoding")
            if step:
                combined, past = step_logits(step_ids, mask, (mask.cumsum(-1) - 1)[:, -1:], past, 1)
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
                         f"decoding token {step + 1}/{int(max_new_tokens)} of {n} sample(s)")
            if all(done):
                break
            step_ids = torch.tensor(next_ids, dtype=enc["input_ids"].dtype).repeat(m).unsqueeze(-1)
            mask = torch.cat([mask, torch.ones_like(step_ids)], dim=-1)
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


#: decoder-only architectures whose logits are exactly lm_head(final hidden state), with no scaling or capping
_LINEAR_HEAD_TYPES = ("llama", "mistral", "qwen2", "qwen3", "gpt2", "smollm3")


def _combined_logits(model, m: int, n: int, combine: str):
    """A function (ids, mask, positions, past, repeat) -> (combined logits (n, vocab), past) for m prompts × n
    samples, rows prompt-major; `repeat` copies each prompt's result for the n samples (the prefill).

    The output projection is linear, so the sum (or mean) of the prompts' logits is the projection of the sum
    (or mean) of their last hidden states: the vocabulary projection then runs on n rows instead of m·n, where
    it was a third of each decoding step."""
    import torch

    def reduce(rows, repeat):
        per_sample = rows.repeat_interleave(repeat, dim=0).view(m, n, -1)
        return per_sample.sum(0) if combine == "sum" else per_sample.mean(0)

    head = model.get_output_embeddings()
    linear_head = (getattr(model.config, "model_type", None) in _LINEAR_HEAD_TYPES
                   and type(head) is torch.nn.Linear and head.bias is None
                   and not getattr(model.config, "final_logit_softcapping", None))
    if not linear_head:
        def full(ids, mask, positions, past, repeat):
            # logits_to_keep=1: only the last position's logits are used
            out = model(input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=past,
                        use_cache=True, logits_to_keep=1)
            return reduce(out.logits[:, -1, :].float(), repeat), out.past_key_values
        return full

    body = model.base_model

    def projected(ids, mask, positions, past, repeat):
        out = body(input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=past, use_cache=True)
        hidden = reduce(out.last_hidden_state[:, -1, :], repeat)
        return head(hidden.to(head.weight.dtype)).float(), out.past_key_values
    return projected


def _draw(row, top_k: int, temperature: float, generator) -> int:
    import torch

    if not temperature or temperature <= 0:
        return int(row.argmax())
    k = min(int(top_k), row.numel()) if top_k and top_k > 0 else row.numel()
    values, indices = torch.topk(row / float(temperature), k)
    probs = torch.softmax(values, dim=-1)
    if not torch.isfinite(probs).all():
        return int(indices[0])
    return int(indices[torch.multinomial(probs, 1, generator=generator)])
