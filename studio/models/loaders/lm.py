"""Causal language models: transformers checkpoints, and GGUF files (converted once to safetensors, the float32
reference and torch fallback; served on llama.cpp where it passes its check, studio/models/loaders/llamacpp.py)."""
from __future__ import annotations

import contextlib
import hashlib
import threading
from pathlib import Path
from typing import Sequence

from ...atomic import build_dir_atomically
from ..config import cache_dir
from ..roles import Generation, LanguageModel, scored_tails
from ..sampling import cut_at_sentence_end
from .common import LoadError, device, file_fingerprint, quiet_transformers, refuse_pickled_weights
from .split_package import resolve_model_path


class TransformersLM(LanguageModel):
    def __init__(self, model, tokenizer, model_id: str, backend: str):
        import torch

        self._torch = torch
        self.model, self.tokenizer, self.model_id, self.backend = model, tokenizer, model_id, backend
        self.device = str(next(model.parameters()).device)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        # sampling draws from torch's global generator: one generation at a time keeps seeds meaningful
        self._lock = threading.Lock()

    def _encode(self, prompts: Sequence[str]):
        self.tokenizer.padding_side = "left"
        return self.tokenizer(list(prompts), return_tensors="pt", padding=True).to(self.device)

    def generate(self, prompts, *, max_new_tokens=20, top_k=5, temperature=0.7, no_repeat_ngram_size=3,
                 num_return_sequences=1, seed=0, logits_processor=None, stop_at_sentence_end=False):
        torch = self._torch
        if not len(prompts):
            return []
        enc = self._encode(prompts)
        kwargs = dict(max_new_tokens=int(max_new_tokens), pad_token_id=self.tokenizer.pad_token_id,
                      num_return_sequences=int(num_return_sequences))
        if temperature and temperature > 0:
            kwargs.update(do_sample=True, top_k=int(top_k) if top_k else None, temperature=float(temperature), top_p=1.0)
        else:
            kwargs.update(do_sample=False)
        if no_repeat_ngram_size:
            kwargs["no_repeat_ngram_size"] = int(no_repeat_ngram_size)
        if logits_processor is not None:
            kwargs["logits_processor"] = logits_processor
        with self._lock, torch.inference_mode():
            torch.manual_seed(int(seed) % (2**63))
            out = self.model.generate(**enc, **kwargs)
        width = enc["input_ids"].shape[1]
        results: list[list[Generation]] = []
        for i, prompt in enumerate(prompts):
            row = []
            for j in range(num_return_sequences):
                ids = out[i * num_return_sequences + j, width:]
                text = self.tokenizer.decode(ids, skip_special_tokens=True)
                if stop_at_sentence_end:
                    text = cut_at_sentence_end(text.strip())
                n_new = int((ids != self.tokenizer.pad_token_id).sum())
                row.append(Generation(text=text, prompt=prompt, new_tokens=n_new))
            results.append(row)
        return results

    def loglik(self, contexts, continuations, batch_size: int = 16):
        torch = self._torch
        if len(contexts) != len(continuations):
            raise ValueError("contexts and continuations differ in length")
        results = []
        for start in range(0, len(contexts), batch_size):
            seqs, spans = [], []
            for ctx, cont in zip(contexts[start:start + batch_size], continuations[start:start + batch_size]):
                c_ids = self.tokenizer(ctx, add_special_tokens=False)["input_ids"]
                x_ids = self.tokenizer(cont, add_special_tokens=False)["input_ids"]
                if not c_ids:
                    c_ids = [self.tokenizer.eos_token_id]
                seqs.append(c_ids + x_ids)
                spans.append((len(c_ids), len(c_ids) + len(x_ids)))
            width = max(len(s) for s in seqs)
            pad = self.tokenizer.pad_token_id
            ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs], device=self.device)
            mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs], device=self.device)
            with torch.inference_mode():
                logp = torch.log_softmax(self.model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
            for row, (a, b) in enumerate(spans):
                if b == a:
                    results.append((0.0, 0))
                    continue
                targets = ids[row, a:b]
                picked = logp[row, a - 1:b - 1].gather(-1, targets.unsqueeze(-1)).squeeze(-1)
                results.append((float(picked.sum()), b - a))
        return results

    def _prefill(self, context: str, rows: int):
        """The context run once; its cache repeated for `rows` continuations, and its last next-token log-probs."""
        torch = self._torch
        c_ids = self.tokenizer(context, add_special_tokens=False)["input_ids"] or [self.tokenizer.eos_token_id]
        ids = torch.tensor([c_ids], device=self.device)
        out = self.model(input_ids=ids, use_cache=True)
        cache = out.past_key_values
        cache.batch_repeat_interleave(rows)
        return cache, torch.log_softmax(out.logits[0, -1].float(), dim=-1), len(c_ids)

    def loglik_many(self, asks):
        """`loglik_shared` of several (context, continuations, score_last) asks, one after the other (the llama.cpp
        form packs them into fewer decodes; the numbers are the same)."""
        return [self.loglik_shared(context, continuations, last) for context, continuations, last in asks]

    def loglik_shared(self, context: str, continuations, score_last=None):
        """loglik for one context and many continuations: the context runs once and its cache serves them all
        (the same numbers as `loglik`, computed on a fraction of the tokens). `score_last[i]`: sum the log-probs of
        only the last that many tokens of continuation i (the rest is context too); the count returned is theirs."""
        torch = self._torch
        conts = [self.tokenizer(c, add_special_tokens=False)["input_ids"] for c in continuations]
        if not conts:
            return []
        last = scored_tails(conts, score_last)
        results = [(0.0, 0)] * len(conts)
        todo = [i for i, c in enumerate(conts) if c and last[i]]
        if not todo:
            return results
        with torch.inference_mode():
            cache, first, n_ctx = self._prefill(context, len(todo))
            width = max(len(conts[i]) for i in todo)
            pad = self.tokenizer.pad_token_id
            ids = torch.tensor([conts[i] + [pad] * (width - len(conts[i])) for i in todo], device=self.device)
            mask = torch.tensor([[1] * (n_ctx + len(conts[i])) + [0] * (width - len(conts[i])) for i in todo],
                                device=self.device)
            logits = self.model(input_ids=ids, attention_mask=mask, past_key_values=cache).logits.float()
            logp = torch.log_softmax(logits, dim=-1)
            for row, i in enumerate(todo):
                toks, k = conts[i], last[i]
                total = float(first[toks[0]]) if k == len(toks) else 0.0
                lo = max(1, len(toks) - k)  # the first scored token after the first one
                if lo < len(toks):
                    target = torch.tensor(toks[lo:], device=self.device)
                    total += float(logp[row, lo - 1:len(toks) - 1].gather(-1, target.unsqueeze(-1)).sum())
                results[i] = (total, k)
        return results

    def sample_shared(self, context: str, n: int, *, max_new_tokens: int = 8, top_k: int = 30,
                      temperature: float = 0.8, seed: int = 0, stop: str = "\n", until: tuple[str, ...] = (),
                      on_step=None):
        """n seeded samples continuing one context, whose cache is computed once and shared (generate() would
        run the context n times). Each sample stops at `stop`, end of text, max_new_tokens, or once its text
        contains one of `until` (kept whole); `on_step(done, steps)` after each decoding step."""
        from ..sampling import draw_rows, extend_samples

        torch = self._torch
        if n < 1:
            return []
        eos = self.tokenizer.eos_token_id
        with self._lock, torch.inference_mode():
            gen = torch.Generator(device="cpu").manual_seed(int(seed) % (2**63))
            cache, logp, n_ctx = self._prefill(context, n)
            logits = logp.unsqueeze(0).expand(n, -1)
            out = [[] for _ in range(n)]
            alive = torch.ones(n, dtype=torch.bool)
            for step in range(int(max_new_tokens)):
                nxt = draw_rows(logits, top_k, temperature, gen)
                extend_samples(nxt, out, alive, eos, stop, self.tokenizer.decode, until)
                if on_step is not None:
                    on_step(step + 1, int(max_new_tokens))
                if not bool(alive.any()) or step == int(max_new_tokens) - 1:
                    break
                mask = torch.ones(n, n_ctx + step + 1, dtype=torch.long, device=self.device)
                logits = self.model(input_ids=nxt.view(n, 1).to(self.device), attention_mask=mask,
                                    past_key_values=cache).logits[:, -1].float()
        texts = [self.tokenizer.decode(ids, skip_special_tokens=True) for ids in out]
        return [t.split(stop, 1)[0] if stop else t for t in texts]

    @contextlib.contextmanager
    def ensemble(self, prompt_ids: list[list[int]], n: int, combine: str, max_new_tokens: int = 64):
        """The logit ensemble of continuation/decoding.py, as (first, step): first = the combined next-token logits
        (n, vocab) of m prompts × n samples, the prompts left-padded in one batch and their cache copied for the
        n samples (rows prompt-major); step(next_ids) feeds sample s's token to all m prompts of that sample and
        returns the new combined logits."""
        torch = self._torch
        m, width, pad = len(prompt_ids), max(len(p) for p in prompt_ids), self.tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(p)) + list(p) for p in prompt_ids], device=self.device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompt_ids], device=self.device)
        step_logits = _combined_logits(self.model, m, n, combine)
        with torch.inference_mode():
            combined, past = step_logits(ids, mask, (mask.cumsum(-1) - 1).clamp_min(0), None, n)
            if n > 1:
                past.batch_repeat_interleave(n)
                mask = mask.repeat_interleave(n, dim=0)
            state = {"past": past, "mask": mask}

            def step(next_ids: list[int]):
                step_ids = torch.tensor(next_ids, dtype=ids.dtype, device=self.device).repeat(m).unsqueeze(-1)
                state["mask"] = torch.cat([state["mask"], torch.ones_like(step_ids)], dim=-1)
                out, state["past"] = step_logits(step_ids, state["mask"], (state["mask"].cumsum(-1) - 1)[:, -1:],
                                                 state["past"], 1)
                return out

            yield combined, step

    def close(self) -> None:
        self.model = None


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


def _load_dir(path: str, model_id: str, backend: str) -> TransformersLM:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    quiet_transformers()
    dev = device()
    dtype = torch.float16 if dev == "cuda" else torch.float32
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, use_safetensors=True, trust_remote_code=False)
    return TransformersLM(model.to(dev).eval(), tok, model_id, backend)


def load_transformers_lm(spec, registry) -> LanguageModel:
    path = resolve_model_path(spec.model_id)
    refuse_pickled_weights(path)
    return _load_dir(path, spec.model_id, f"{spec.model_id} (transformers)")


def converted_dir(gguf: Path) -> Path:
    key = hashlib.sha1(file_fingerprint(gguf).encode()).hexdigest()[:12]
    return cache_dir() / "lm" / f"{gguf.stem}-{key}"


def convert_gguf(gguf: Path, target: Path) -> None:
    """Dequantize the GGUF file once into a safetensors folder; the rename makes it all-or-nothing."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    quiet_transformers()

    def build(tmp: Path) -> None:
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        # transformers refuses save_pretrained on a GGUF-loaded model; its weights are already dequantized
        from safetensors.torch import save_model

        config = model.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        config.save_pretrained(tmp)
        model.generation_config.save_pretrained(tmp)
        save_model(model, str(tmp / "model.safetensors"))
        tok.save_pretrained(tmp)

    build_dir_atomically(target, build)


def load_gguf_lm(spec, registry) -> LanguageModel:
    gguf = Path(resolve_model_path(spec.model_id))
    if not gguf.is_file():
        raise LoadError(f"no GGUF file at {gguf}", "check STUDIO_MODEL_LM")
    target = converted_dir(gguf)
    if not (target / "config.json").is_file():
        try:
            import gguf as _  # noqa: F401
        except ImportError as exc:
            raise LoadError("reading GGUF files needs the `gguf` package", "pip install gguf accelerate") from exc
        convert_gguf(gguf, target)
    name = spec.note or gguf.stem
    return serve_gguf(lambda: _load_dir(str(target), spec.model_id, f"{name} (GGUF, converted to safetensors)"),
                      target, gguf, target, name, spec.model_id)


def load_gguf_writer(spec, registry) -> LanguageModel:
    """The writer: a GGUF model served on llama.cpp with the file's own quantized weights (checked against the
    same weights dequantized to float32); the torch forms when llama.cpp cannot serve it here."""
    gguf = Path(resolve_model_path(spec.model_id))
    if not gguf.is_file():
        raise LoadError(f"no GGUF file at {gguf}", "check STUDIO_MODEL_WRITER")
    target = converted_dir(gguf)
    if not (target / "config.json").is_file():
        convert_gguf(gguf, target)
    name = spec.note or gguf.stem
    return serve_gguf(lambda: _load_dir(str(target), spec.model_id, f"{name} (GGUF, converted to safetensors)"),
                      target, gguf, target, name, spec.model_id, quantized=True)


def serve_gguf(float32_load, base_dir: Path, gguf: Path, folder: Path, name: str, model_id: str, delta=None,
               int4_cache: Path | None = None, quantized: bool = False, torch_fallback: bool = True) -> LanguageModel:
    """A GGUF language model (or a LoRA variant of one: `delta` = (factors, scale)) in the first form that passes
    its self-check on this CPU: llama.cpp (studio/models/loaders/llamacpp.py), else the torch forms of
    studio/models/loaders/fourbit.py from `float32_load()`. Every verdict of this load is in `lm.checks`.
    `torch_fallback=False`: llama.cpp or nothing (a LoadError, unavailable), no torch form built."""
    from . import llamacpp
    from .fourbit import serve_checked

    if device() == "cuda" and torch_fallback:  # torch on the GPU beats llama.cpp on the CPU
        return serve_checked(float32_load, folder, name, int4_cache=int4_cache or base_dir)
    lm, verdict = (None, None) if device() == "cuda" else \
        llamacpp.serve(float32_load, base_dir, gguf, folder, name, model_id, delta, quantized)
    if lm is not None:
        return lm
    if not torch_fallback:
        why = "a GPU serves torch" if device() == "cuda" else llamacpp.unavailable_reason() if verdict is None \
            else verdict.measure
        raise LoadError(f"llama.cpp cannot serve {name} here ({why})", unavailable=True)
    served = serve_checked(float32_load, folder, name, int4_cache=int4_cache or base_dir)
    checked = list(getattr(served, "checks", ()) or ())
    if checked:  # the served form's verdict stays last
        served.checks = ([verdict] if verdict else []) + checked
    why = llamacpp.unavailable_reason() if verdict is None else \
        "it failed its self-check" if verdict.measure.startswith("top-token") else verdict.measure
    served.backend = f"{served.backend}; llama.cpp not used: {why}"
    return served
