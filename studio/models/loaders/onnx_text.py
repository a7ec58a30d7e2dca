"""A sentence-transformers embedder served by ONNX Runtime with 8-bit weights.

On first use the model is exported to ONNX (torch.onnx, dynamo exporter) and its matrix products are quantized to
int8 (onnxruntime.quantization, dynamic: one activation scale per product and call). Quantized as they are, the
feed-forward output products would lose most of the accuracy (cosine to the float32 embedding 0.91 for
all-mpnet-base-v2): their inputs, the GELU outputs, carry a few channels about 40x larger than the rest, so one
scale serves neither. Those channels are divided down to OUTLIER_RATIO times the median channel peak, measured on
the calibration text, and the weight rows multiply up by the same factor, an exact rewrite in floating point
(the outlier-only form of SmoothQuant, Xiao et al., 2023; its all-channel form depended on the calibration text
and fell to 0.89 here). Cosine to float32 is then 0.99; a 100-word text takes 40-55 ms on 2 cores, against
126 ms with torch in bfloat16.
Which int8 form: ONNX Runtime multiplies uint8 activations by int8 weights with VNNI where the CPU has it, and
on AVX2 without VNNI with an instruction whose 16-bit pair sums saturate (u8 x s8 pairs reach 2 x 255 x 127): the
embeddings were noise there (cosine 0.02). Weights quantized to 7 bits (reduce_range) cannot overflow (2 x 255 x 64
< 32768), so the served form computes the same integers on every x86 CPU, with the fast kernel on each. Each load
checks the served form against float32 on fixed probe texts (studio/models/selfcheck.py) and moves down RECIPES'
ladder, then to torch float32, when it disagrees.
The result is cached under cache_dir()/onnx; later loads read it and need neither torch nor transformers. Only
mean-pooling models are served (the pooling is done here, over the token states).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ...atomic import build_dir_atomically
from ...settings import current
from .. import selfcheck
from ...paths import ASSETS
from ..config import cache_dir
from ..roles import Embedder
from .common import LoadError, accelerated, file_fingerprint, refuse_pickled_weights
from .split_package import resolve_model_path

#: bumped whenever the export changes what it writes, so that old caches are not reused
EXPORT_VERSION = 2
#: a channel whose peak exceeds this many times the median peak is scaled down to it (2, 4 and 8 measured alike)
OUTLIER_RATIO = 4.0
CALIBRATION_TEXT = ASSETS / "calibration" / "english.txt"
TOKENIZER_FILE, CONFIG_FILE, REFERENCE_FILE = "tokenizer.json", "studio_onnx.json", "reference.npy"


@dataclass(frozen=True)
class Recipe:
    name: str
    description: str  # what a person reads in the Models tab
    weight_type: str  # onnxruntime.quantization.QuantType member
    reduce_range: bool

    @property
    def file(self) -> str:
        return f"model-{self.name}.onnx"


#: the int8 forms, best first. Every export writes the LADDER's files; a load serves the first that passes its
#: self-check on this CPU (STUDIO_INT8_RECIPE=NAME serves only NAME, to measure one form).
#: a description is part of the served backend's name, which keys the on-disk embedding caches: new wording would
#: recompute every int8 cache (and int8's per-batch scales can move a figure), so it stays as it is ("exact": the
#: integer sums never saturate, so every CPU computes the same numbers, not float32's)
RECIPES = {r.name: r for r in (
    Recipe("u8s8-7bit", "int8, 7-bit weights (exact on every x86 CPU)", "QInt8", True),
    Recipe("u8u8", "int8, unsigned weights (exact, slower kernels)", "QUInt8", False),
    # full 8-bit signed weights: the most precise where the CPU has VNNI, saturated noise on AVX2 without it
    Recipe("u8s8", "int8, 8-bit weights (exact only with VNNI)", "QInt8", False),
)}
LADDER = ("u8s8-7bit", "u8u8")


def ladder() -> tuple[str, ...]:
    wanted = current().int8_recipe
    if not wanted:
        return LADDER
    if wanted not in RECIPES:
        raise LoadError(f"STUDIO_INT8_RECIPE={wanted!r} is not an int8 recipe",
                        f"choose one of {', '.join(RECIPES)}, or unset it")
    return (wanted,)


def onnx_threads() -> int:
    """Every core by default: a query's one matrix pass then takes half the time (2 cores: 40 ms against 70 ms);
    STUDIO_ONNX_THREADS overrides."""
    return current().onnx_threads or max(1, os.cpu_count() or 1)


def export_dir(model_path: Path) -> Path:
    key = hashlib.sha1(f"{file_fingerprint(model_path / 'model.safetensors')}|{EXPORT_VERSION}|{OUTLIER_RATIO}|"
                       f"{_calibration_digest()}".encode()).hexdigest()[:12]
    return cache_dir() / "onnx" / f"{model_path.name}-int8-{key}"


def _calibration_digest() -> str:
    return hashlib.sha1(CALIBRATION_TEXT.read_bytes()).hexdigest()[:8] if CALIBRATION_TEXT.is_file() else "none"


def calibration_texts() -> list[str]:
    if not CALIBRATION_TEXT.is_file():
        raise LoadError(f"{CALIBRATION_TEXT} is missing", "restore it from the repository")
    lines = CALIBRATION_TEXT.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _check_mean_pooling(model_path: Path) -> None:
    """Transformer, mean pooling and (optionally) normalization, nothing else: what encode() reproduces."""
    listing = model_path / "modules.json"
    modules = json.loads(listing.read_text()) if listing.is_file() else []
    kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
    pooling = [m for m, kind in zip(modules, kinds) if kind == "Pooling"]
    config = model_path / pooling[0].get("path", "") / "config.json" if pooling else None
    settings = json.loads(config.read_text()) if config is not None and config.is_file() else {}
    mean = settings.get("pooling_mode") == "mean" or (  # sentence-transformers 6 writes the first form
        settings.get("pooling_mode_mean_tokens") and not any(
            v for k, v in settings.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"))
    if not mean or set(kinds) - {"Transformer", "Pooling", "Normalize"}:
        raise LoadError(f"{model_path.name} does not mean-pool its token states into its embedding; the ONNX "
                        "backend serves only sentence-transformers models made of a transformer, mean pooling and "
                        "normalization", "serve it with the sentence_transformers backend (STUDIO_ONNX=0)")


def export_int8(model_path: Path, target: Path) -> None:
    """Export, smooth and quantize the model saved at `model_path` into `target`."""
    from sentence_transformers import SentenceTransformer

    export_model_int8(SentenceTransformer(str(model_path), device="cpu", trust_remote_code=False), target,
                      str(model_path))


def export_model_int8(st, target: Path, source: str) -> None:
    """Export, smooth and quantize a loaded (mean-pooling) sentence-transformers model into `target` (written
    whole, then renamed into place)."""
    net = st[0].auto_model.float().eval()
    max_length = int(st.max_seq_length)

    def build(tmp: Path) -> None:
        fp32, smoothed = tmp / "float32.onnx", tmp / "smoothed.onnx"
        export_float32(net, st.tokenizer, max_length, fp32)
        smooth_feed_forward(fp32, smoothed, st.tokenizer, net.config.intermediate_size, net.config.hidden_size,
                            max_length)
        for name in dict.fromkeys(LADDER + ladder()):
            quantize_int8(smoothed, tmp / RECIPES[name].file, RECIPES[name])
        st.tokenizer.backend_tokenizer.save(str(tmp / TOKENIZER_FILE))
        config = {"source": source, "max_length": max_length, "dim": int(net.config.hidden_size),
                  "pad_token_id": int(st.tokenizer.pad_token_id), "pad_token": st.tokenizer.pad_token,
                  "outlier_ratio": OUTLIER_RATIO, "export_version": EXPORT_VERSION}
        (tmp / CONFIG_FILE).write_text(json.dumps(config, indent=1))
        # the float32 graph's own embeddings of the probe texts: what every int8 form is checked against
        reference = _Session(tmp, smoothed.name, config).encode(list(selfcheck.PROBE_TEXTS))
        np.save(tmp / REFERENCE_FILE, reference, allow_pickle=False)
        for leftover in (fp32, smoothed, *tmp.glob("*.data")):
            leftover.unlink(missing_ok=True)

    build_dir_atomically(target, build)


def export_float32(net, tokenizer, max_length: int, path: Path) -> None:
    """The transformer (token ids and attention mask in, last hidden states out) as ONNX, any batch and length."""
    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    sample = tokenizer(["A stitch in time saves nine.", "Two texts."], padding=True, return_tensors="pt")
    batch, length = torch.export.Dim("batch"), torch.export.Dim("length", max=max_length)
    # the exporter reports its steps on stdout, which belongs to the CLI's JSON
    with torch.no_grad(), contextlib.redirect_stdout(sys.stderr):
        program = torch.onnx.export(LastHidden(net).eval(), (sample["input_ids"], sample["attention_mask"]),
                                    input_names=["input_ids", "attention_mask"], output_names=["hidden"],
                                    dynamic_shapes=({0: batch, 1: length}, {0: batch, 1: length}), dynamo=True,
                                    verbose=False)
    program.save(str(path))


def quantize_int8(source: Path, target: Path, recipe: Recipe = RECIPES[LADDER[0]]) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process the graph is for static quantization of vision models
    try:
        quantize_dynamic(str(source), str(target), weight_type=getattr(QuantType, recipe.weight_type),
                         per_channel=True, reduce_range=recipe.reduce_range)
    finally:
        root.setLevel(level)


def smooth_feed_forward(source: Path, target: Path, tokenizer, intermediate: int, hidden: int, max_length: int) -> None:
    """Scale down the outlier input channels of the feed-forward output products (weights of shape
    (intermediate, hidden)) by a Mul before each product, and scale up the weight rows to match."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(source))
    weights = {w.name: w for w in model.graph.initializer}
    nodes = [n for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in weights
             and tuple(weights[n.input[1]].dims) == (intermediate, hidden)]
    if not nodes:
        raise LoadError("the exported graph has no feed-forward products to smooth", "report this as a bug")
    probe = onnx.load(str(source))
    for n in nodes:
        probe.graph.output.append(helper.make_tensor_value_info(n.input[0], TensorProto.FLOAT, None))
    session = ort.InferenceSession(probe.SerializeToString(), _session_options(), providers=["CPUExecutionProvider"])
    peaks = np.zeros((len(nodes), intermediate), np.float32)
    texts = calibration_texts()
    for start in range(0, len(texts), 16):
        enc = tokenizer(texts[start:start + 16], padding=True, truncation=True, max_length=max_length,
                        return_tensors="np")
        mask = enc["attention_mask"].astype(bool)
        outs = session.run(None, {"input_ids": enc["input_ids"].astype(np.int64),
                                  "attention_mask": enc["attention_mask"].astype(np.int64)})[1:]
        for k, x in enumerate(outs):
            peaks[k] = np.maximum(peaks[k], np.abs(x[mask]).max(0))
    for k, n in enumerate(nodes):
        w = numpy_helper.to_array(weights[n.input[1]])
        scale = np.maximum(1.0, peaks[k] / (OUTLIER_RATIO * np.median(peaks[k]))).astype(np.float32)
        weights[n.input[1]].CopyFrom(numpy_helper.from_array(w * scale[:, None], n.input[1]))
        inverse = numpy_helper.from_array((1.0 / scale).astype(np.float32), f"{n.name}_smooth_inverse")
        model.graph.initializer.append(inverse)
        scaled = f"{n.input[0]}_smoothed_{k}"
        model.graph.node.insert(list(model.graph.node).index(n),
                                helper.make_node("Mul", [n.input[0], inverse.name], [scaled], name=f"{n.name}_smooth"))
        n.input[0] = scaled
    onnx.save(model, str(target))


def _session_options():
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = onnx_threads()
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # no busy-waiting for the next call: it takes the cores from numpy and torch in the same process (a warm
    # proverb query measured 150 ms without, 180 ms with)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


class _Session:
    """One ONNX graph of an export folder with the tokenizer and the mean pooling around it."""

    def __init__(self, folder: Path, model_file: str, config: dict):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.dim = int(config["dim"])
        self.session = ort.InferenceSession(str(folder / model_file), _session_options(),
                                            providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(int(config["max_length"]))
        self.tokenizer.enable_padding(pad_id=int(config["pad_token_id"]), pad_token=config["pad_token"])

    def encode(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
        """Mean of the token states over the attention mask, L2-normalized (the sentence-transformers pooling)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([len(t) for t in texts], kind="stable")  # similar lengths share a batch: less padding
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            encodings = self.tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            out[chunk] = pooled / (np.linalg.norm(pooled, axis=1, keepdims=True) + 1e-12)
        return out


class OnnxSentenceEmbedder(Embedder):
    """One int8 form (`recipe`) of an export folder."""

    def __init__(self, folder: Path, model_id: str, backend: str, recipe: str = LADDER[0]):
        config = json.loads((folder / CONFIG_FILE).read_text())
        self.recipe = RECIPES[recipe]
        self.model_id, self.folder = model_id, folder
        self.backend = f"{backend} (ONNX Runtime, {self.recipe.description})"
        self._session = _Session(folder, self.recipe.file, config)
        self.dim = self._session.dim
        #: what the registry accounts for this role (its weights are not torch tensors)
        self.weights_mb = (folder / self.recipe.file).stat().st_size / 2**20

    def encode(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
        return self._session.encode(texts, batch_size)

    def close(self) -> None:
        self._session = None


def load_onnx_int8(spec, registry) -> Embedder:
    from .text import float32_sentence_transformer, load_sentence_transformer

    if not accelerated("STUDIO_ONNX"):  # STUDIO_ONNX=0: torch (bfloat16 where the CPU has it); reference: float32
        return load_sentence_transformer(spec, registry)
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise LoadError(f"onnxruntime is not installed ({exc})",
                        "pip install -r requirements.txt, or set STUDIO_ONNX=0 to serve the model with torch") from exc
    path = Path(resolve_model_path(spec.model_id))
    refuse_pickled_weights(path)
    _check_mean_pooling(path)
    name = spec.note or spec.model_id.rsplit("/", 1)[-1]
    return serve_int8(export_dir(path), lambda folder: export_int8(path, folder), spec.model_id, name,
                      fallback=lambda: float32_sentence_transformer(spec.model_id, name))


def runtime_key() -> str:
    import onnxruntime as ort

    return selfcheck.cpu_key(f"onnxruntime {ort.__version__}")


def serve_int8(folder: Path, export, model_id: str, name: str, fallback=None) -> Embedder:
    """The first int8 form of the export in `folder` that agrees with float32 on this CPU (export(folder) runs
    first when the folder is missing, and again once when a file of it is damaged); fallback() (a float32 torch
    embedder) when none agrees. The returned embedder's `checks` lists every verdict, the served form's last."""
    forms = ladder()
    for attempt in (1, 2):
        if attempt == 2 or not _complete(folder, forms):
            _export(folder, export)
        checks, damaged = [], False
        reference = np.load(folder / REFERENCE_FILE, allow_pickle=False)
        for recipe in forms:
            key = f"{runtime_key()} | {selfcheck.file_stamp(folder / RECIPES[recipe].file)}"
            try:
                embedder = OnnxSentenceEmbedder(folder, model_id, name, recipe)
            except Exception:  # noqa: BLE001 - a truncated or edited file: the export is made again, once
                damaged = True
                break
            verdict = selfcheck.cached_verdict(folder, recipe, key)
            if verdict is None:
                verdict = selfcheck.check_embedder(RECIPES[recipe].description, embedder.encode, reference, key)
                selfcheck.store_verdict(folder, verdict, recipe)
            checks.append(verdict)
            if verdict.passed:
                embedder.checks = checks
                return embedder
            embedder.close()
        if not damaged:
            break
    if fallback is None:
        raise LoadError(f"no int8 form of {folder.name} agrees with float32 on this CPU"
                        f"{f' ({checks[-1].summary()})' if checks else ''}",
                        "set STUDIO_ONNX=0 to serve the model with torch")
    served = fallback()
    served.checks = checks
    served.backend += "; int8 failed its self-check on this CPU"
    return served


def _export(folder: Path, export) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    try:
        export(folder)
    except LoadError:
        raise
    except Exception as exc:
        raise LoadError(f"exporting {folder.name} to ONNX failed ({type(exc).__name__}: {exc})",
                        "set STUDIO_ONNX=0 to serve the model with torch") from exc


def _complete(folder: Path, forms) -> bool:
    needed = [CONFIG_FILE, TOKENIZER_FILE, REFERENCE_FILE, *(RECIPES[f].file for f in forms)]
    return all((folder / name).is_file() and (folder / name).stat().st_size > 0 for name in needed)
