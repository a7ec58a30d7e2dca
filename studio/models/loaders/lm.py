"""Causal language models: transformers checkpoints, and GGUF files converted once to safetensors."""
from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Sequence

from ...atomic import build_dir_atomically
from ..config import cache_dir
from ..roles import Generation, LanguageModel
from .common import LoadError, device, file_fingerprint, refuse_pickled_weights, resolve_model_path

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*(?=\s|$)")


def cut_at_sentence_end(text: str) -> str:
    m = _SENTENCE_END.search(text)
    return text[: m.end()] if m else text


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

    def loglik_shared(self, context: str, continuations):
        """loglik for one context and many continuations: the context runs once and its cache serves them all
        (the same numbers as `loglik`, computed on a fraction of the tokens)."""
        torch = self._torch
        conts = [self.tokenizer(c, add_special_tokens=False)["input_ids"] for c in continuations]
        if not conts:
            return []
        results = [(0.0, 0)] * len(conts)
        todo = [i for i, c in enumerate(conts) if c]
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
                toks = conts[i]
                total = float(first[toks[0]])
                if len(toks) > 1:
                    target = torch.tensor(toks[1:], device=self.device)
                    total += float(logp[row, :len(toks) - 1].gather(-1, target.unsqueeze(-1)).sum())
                results[i] = (total, len(toks))
        return results

    def sample_shared(self, context: str, n: int, *, max_new_tokens: int = 8, top_k: int = 30,
                      temperature: float = 0.8, seed: int = 0, stop: str = "\n"):
        """n seeded samples continuing one context, whose cache is computed once and shared (generate() would
        run the context n times). Each sample stops at `stop`, end of text, or max_new_tokens."""
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
                scaled = logits / max(float(temperature), 1e-5)
                if top_k:
                    kth = torch.topk(scaled, int(top_k), dim=-1).values[:, -1:]
                    scaled = scaled.masked_fill(scaled < kth, float("-inf"))
                nxt = torch.multinomial(torch.softmax(scaled, dim=-1).cpu(), 1, generator=gen).squeeze(-1)
                for i in range(n):
                    if alive[i]:
                        tok = int(nxt[i])
                        if tok == eos:
                            alive[i] = False
                        else:
                            out[i].append(tok)
                            if stop and stop in self.tokenizer.decode([tok]):
                                alive[i] = False
                if not bool(alive.any()) or step == int(max_new_tokens) - 1:
                    break
                mask = torch.ones(n, n_ctx + step + 1, dtype=torch.long, device=self.device)
                logits = self.model(input_ids=nxt.view(n, 1).to(self.device), attention_mask=mask,
                                    past_key_values=cache).logits[:, -1].float()
        texts = [self.tokenizer.decode(ids, skip_special_tokens=True) for ids in out]
        return [t.split(stop, 1)[0] if stop else t for t in texts]

    def close(self) -> None:
        self.model = None


def _quiet_transformers() -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # load bars would flood the server log and CLI output
    hf_logging.set_verbosity_error()


def _load_dir(path: str, model_id: str, backend: str) -> TransformersLM:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    _quiet_transformers()
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

    _quiet_transformers()

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
    from .fourbit import serve_checked

    return serve_checked(lambda: _load_dir(str(target), spec.model_id, f"{name} (GGUF, converted to safetensors)"),
                         target, name, int4_cache=target)
