"""The int8 ONNX Runtime embedder (studio/models/loaders/onnx_text.py), on a tiny random sentence-transformers
model built in code; the offline profile's real one is checked at the end (marked offline)."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from studio.models.loaders import onnx_text  # noqa: E402
from studio.models.loaders.common import LoadError  # noqa: E402
from studio.models.specs import ModelSpec  # noqa: E402

TEXTS = ["A stitch in time saves nine.", "The early bird catches the worm, but the second mouse gets the cheese.",
         "He yelps and howls like a wolf.", "Rain.", "Nora decided to wing it, and the speech went better than the "
         "one she had rehearsed for weeks in front of the mirror."]


def tiny_sentence_transformer(folder, pooling="mean", outlier_channel=None):
    """A 2-layer random BERT with the tiny profile's tokenizer, saved as a sentence-transformers folder."""
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel

    from studio.models.loaders.tiny import tiny_tokenizer

    tok = tiny_tokenizer()
    torch.manual_seed(0)
    bert = BertModel(BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                intermediate_size=64, max_position_embeddings=128, pad_token_id=tok.pad_token_id))
    if outlier_channel is not None:  # one feed-forward channel far larger than the rest, as in real encoders
        with torch.no_grad():
            for layer in bert.encoder.layer:
                layer.intermediate.dense.weight[outlier_channel] *= 1000.0
                layer.intermediate.dense.bias[outlier_channel] = 300.0
                layer.output.dense.weight[:, outlier_channel] /= 10.0
    raw = folder / "raw"
    bert.save_pretrained(raw)
    tok.save_pretrained(raw)
    word = models.Transformer(str(raw), max_seq_length=64)
    st = SentenceTransformer(modules=[word, models.Pooling(32, pooling_mode=pooling), models.Normalize()], device="cpu")
    st.save(str(folder / "st"))
    return folder / "st"


@pytest.fixture(scope="module")
def tiny_st(tmp_path_factory):
    return tiny_sentence_transformer(tmp_path_factory.mktemp("tiny-st"))


@pytest.fixture(scope="module")
def served(tiny_st, tmp_path_factory):
    target = tmp_path_factory.mktemp("onnx") / "export"
    onnx_text.export_int8(tiny_st, target)
    return onnx_text.OnnxSentenceEmbedder(target, "tiny-st", "tiny ONNX")


def reference(path, texts):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu").encode(texts, normalize_embeddings=True)


def test_int8_export_embeds_like_the_float32_model(served, tiny_st):
    got, want = served.encode(TEXTS), reference(tiny_st, TEXTS)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)
    assert (got * want).sum(1).min() > 0.98


def test_a_text_embeds_alike_alone_and_in_a_padded_batch(served):
    alone = np.stack([served.encode([t])[0] for t in TEXTS])
    batched = served.encode(TEXTS)
    assert (alone * batched).sum(1).min() > 0.98
    assert served.encode([]).shape == (0, served.dim)


def test_smoothing_is_exact_in_float_and_rescues_the_int8_product(tmp_path):
    """With an outlier channel, plain int8 loses the embedding; the smoothed graph computes the same float32
    function and quantizes well."""
    import torch
    from sentence_transformers import SentenceTransformer

    path = tiny_sentence_transformer(tmp_path, outlier_channel=5)
    st = SentenceTransformer(str(path), device="cpu")
    net, tok = st[0].auto_model.float().eval(), st.tokenizer
    fp32, smoothed = tmp_path / "f.onnx", tmp_path / "s.onnx"
    onnx_text.export_float32(net, tok, 64, fp32)
    onnx_text.smooth_feed_forward(fp32, smoothed, tok, 64, 32, 64)
    enc = tok(TEXTS, padding=True, truncation=True, max_length=64, return_tensors="np")
    feed = {"input_ids": enc["input_ids"].astype(np.int64), "attention_mask": enc["attention_mask"].astype(np.int64)}

    def pooled(model_path):
        hidden = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"]).run(None, feed)[0]
        mask = enc["attention_mask"][..., None]
        p = (hidden * mask).sum(1) / mask.sum(1)
        return p / np.linalg.norm(p, axis=1, keepdims=True)

    with torch.no_grad():
        want = st.encode(TEXTS, normalize_embeddings=True)
    np.testing.assert_allclose(pooled(fp32), want, atol=1e-4)
    np.testing.assert_allclose(pooled(smoothed), want, atol=1e-4)
    onnx_text.quantize_int8(fp32, tmp_path / "plain-int8.onnx")
    onnx_text.quantize_int8(smoothed, tmp_path / "smoothed-int8.onnx")
    plain_error = 1 - (pooled(tmp_path / "plain-int8.onnx") * want).sum(1).mean()
    smoothed_error = 1 - (pooled(tmp_path / "smoothed-int8.onnx") * want).sum(1).mean()
    # measured: 1.2e-3 against 1e-5 (a 2-layer model of width 32 hides most of the damage real encoders show)
    assert smoothed_error < plain_error / 5, (plain_error, smoothed_error)


def test_the_loader_refuses_a_model_that_does_not_mean_pool(tmp_path):
    path = tiny_sentence_transformer(tmp_path, pooling="cls")
    with pytest.raises(LoadError, match="mean-pool"):
        onnx_text.load_onnx_int8(ModelSpec("retrieval_embedder", "onnx_int8", str(path)), None)


def test_studio_onnx_0_serves_the_model_with_torch(tiny_st, monkeypatch):
    monkeypatch.setenv("STUDIO_ONNX", "0")
    embedder = onnx_text.load_onnx_int8(ModelSpec("retrieval_embedder", "onnx_int8", str(tiny_st)), None)
    assert "sentence-transformers" in embedder.backend
    np.testing.assert_allclose(embedder.encode(TEXTS), reference(tiny_st, TEXTS), atol=1e-5)


def test_the_export_is_cached_and_reused(tiny_st, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    spec = ModelSpec("retrieval_embedder", "onnx_int8", str(tiny_st), "tiny")
    first = onnx_text.load_onnx_int8(spec, None)
    folder = onnx_text.export_dir(tiny_st)
    assert folder.is_relative_to(tmp_path) and (folder / onnx_text.MODEL_FILE).is_file()
    assert not list(folder.parent.glob("*.tmp*"))  # the export was renamed into place
    stamp = (folder / onnx_text.MODEL_FILE).stat().st_mtime_ns
    second = onnx_text.load_onnx_int8(spec, None)
    assert (folder / onnx_text.MODEL_FILE).stat().st_mtime_ns == stamp
    np.testing.assert_array_equal(first.encode(TEXTS), second.encode(TEXTS))
    assert "ONNX Runtime" in first.backend and first.weights_mb > 0
    (folder / onnx_text.MODEL_FILE).write_bytes(b"truncated")  # a damaged cache is exported again
    third = onnx_text.load_onnx_int8(spec, None)
    np.testing.assert_allclose(third.encode(TEXTS), first.encode(TEXTS), atol=1e-6)


def test_embeddings_are_cached_apart_per_way_of_serving():
    from studio.models.roles import Embedder

    class Fake(Embedder):
        def __init__(self, backend):
            self.model_id, self.backend = "same/weights", backend

        def encode(self, texts, batch_size=64):
            raise AssertionError

    assert Fake("int8").cache_key != Fake("bfloat16").cache_key


@pytest.mark.offline
def test_the_offline_retrieval_embedder_is_int8_and_close_to_float32(offline):
    from studio.models.specs import OFFLINE_SBERT
    from studio.models.variants import load_base_sentence_transformer

    embedder = offline.get("retrieval_embedder")
    assert "ONNX Runtime" in embedder.backend
    got = embedder.encode(TEXTS)
    want = load_base_sentence_transformer(OFFLINE_SBERT).encode(TEXTS, normalize_embeddings=True)
    assert (got * want).sum(1).min() > 0.97
