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
from pathlib import Path
from typing import Sequence

import numpy as np

from ...atomic import build_dir_atomically
from ..config import ASSETS, cache_dir
from ..roles import Embedder
from .common import LoadError, file_fingerprint, refuse_pickled_weights, resolve_model_path

#: bumped whenever the export changes what it writes, so that old caches are not reused
EXPORT_VERSION = 1
#: a channel whose peak exceeds this many times the median peak is scaled down to it (2, 4 and 8 measured alike)
OUTLIER_RATIO = 4.0
CALIBRATION_TEXT = ASSETS / "calibration" / "english.txt"
MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE = "model.onnx", "tokenizer.json", "studio_onnx.json"


def onnx_threads() -> int:
    """Every core by default: a query's one matrix pass then takes half the time (2 cores: 40 ms against 70 ms);
    STUDIO_ONNX_THREADS overrides."""
    wanted = os.environ.get("STUDIO_ONNX_THREADS", "")
    return int(wanted) if wanted.isdigit() and int(wanted) > 0 else max(1, os.cpu_count() or 1)


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
        quantize_int8(smoothed, tmp / MODEL_FILE)
        for leftover in (fp32, smoothed, *tmp.glob("*.data")):
            leftover.unlink(missing_ok=True)
        st.tokenizer.backend_tokenizer.save(str(tmp / TOKENIZER_FILE))
        (tmp / CONFIG_FILE).write_text(json.dumps({
            "source": source, "max_length": max_length, "dim": int(net.config.hidden_size),
            "pad_token_id": int(st.tokenizer.pad_token_id), "pad_token": st.tokenizer.pad_token,
            "outlier_ratio": OUTLIER_RATIO, "export_version": EXPORT_VERSION}, indent=1))

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


def quantize_int8(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process the graph is for static quantization of vision models
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True)
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


class OnnxSentenceEmbedder(Embedder):
    def __init__(self, folder: Path, model_id: str, backend: str):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        config = json.loads((folder / CONFIG_FILE).read_text())
        self.model_id, self.backend, self.dim, self.folder = model_id, backend, int(config["dim"]), folder
        self._session = ort.InferenceSession(str(folder / MODEL_FILE), _session_options(),
                                             providers=["CPUExecutionProvider"])
        #: what the registry accounts for this role (its weights are not torch tensors)
        self.weights_mb = (folder / MODEL_FILE).stat().st_size / 2**20
        self._tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self._tokenizer.enable_truncation(int(config["max_length"]))
        self._tokenizer.enable_padding(pad_id=int(config["pad_token_id"]), pad_token=config["pad_token"])

    def encode(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
        """Mean of the token states over the attention mask, L2-normalized (the sentence-transformers pooling)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([len(t) for t in texts], kind="stable")  # similar lengths share a batch: less padding
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            encodings = self._tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            out[chunk] = pooled / (np.linalg.norm(pooled, axis=1, keepdims=True) + 1e-12)
        return out

    def close(self) -> None:
        self._session = None


def load_onnx_int8(spec, registry) -> Embedder:
    if os.environ.get("STUDIO_ONNX", "1") == "0":
        from .text import load_sentence_transformer

        return load_sentence_transformer(spec, registry)
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise LoadError(f"onnxruntime is not installed ({exc})",
                        "pip install -r requirements.txt, or set STUDIO_ONNX=0 to serve the model with torch") from exc
    path = Path(resolve_model_path(spec.model_id))
    refuse_pickled_weights(path)
    _check_mean_pooling(path)
    backend = f"{spec.note or spec.model_id.rsplit('/', 1)[-1]} (ONNX Runtime, int8 weights, smoothed)"
    return serve_int8(export_dir(path), lambda folder: export_int8(path, folder), spec.model_id, backend)


def serve_int8(folder: Path, export, model_id: str, backend: str) -> OnnxSentenceEmbedder:
    """The embedder exported in `folder`, calling export(folder) first when it is missing or damaged."""
    if (folder / MODEL_FILE).is_file():
        try:
            return OnnxSentenceEmbedder(folder, model_id, backend)
        except Exception:  # noqa: BLE001 - a damaged cache (truncated or edited files) is exported again
            shutil.rmtree(folder, ignore_errors=True)
    try:
        export(folder)
    except LoadError:
        raise
    except Exception as exc:
        raise LoadError(f"exporting {folder.name} to ONNX failed ({type(exc).__name__}: {exc})",
                        "set STUDIO_ONNX=0 to serve the model with torch") from exc
    return OnnxSentenceEmbedder(folder, model_id, backend)
