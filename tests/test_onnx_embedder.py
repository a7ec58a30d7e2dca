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


@pytest.mark.portability
def test_int8_export_embeds_like_the_float32_model(served, tiny_st):
    got, want = served.encode(TEXTS), reference(tiny_st, TEXTS)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)
    assert (got * want).sum(1).min() > 0.98


@pytest.mark.portability
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


SERVED = onnx_text.RECIPES[onnx_text.LADDER[0]]


def test_the_export_is_cached_and_reused(tiny_st, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    spec = ModelSpec("retrieval_embedder", "onnx_int8", str(tiny_st), "tiny")
    first = onnx_text.load_onnx_int8(spec, None)
    folder = onnx_text.export_dir(tiny_st)
    assert folder.is_relative_to(tmp_path) and (folder / SERVED.file).is_file()
    assert not list(folder.parent.glob("*.tmp*"))  # the export was renamed into place
    stamp = (folder / SERVED.file).stat().st_mtime_ns
    second = onnx_text.load_onnx_int8(spec, None)
    assert (folder / SERVED.file).stat().st_mtime_ns == stamp
    np.testing.assert_array_equal(first.encode(TEXTS), second.encode(TEXTS))
    assert isinstance(first, onnx_text.OnnxSentenceEmbedder) and first.weights_mb > 0
    assert SERVED.description in first.backend
    (folder / SERVED.file).write_bytes(b"truncated")  # a damaged cache is exported again
    third = onnx_text.load_onnx_int8(spec, None)
    assert isinstance(third, onnx_text.OnnxSentenceEmbedder)
    np.testing.assert_allclose(third.encode(TEXTS), first.encode(TEXTS), atol=1e-6)


def test_the_served_form_cannot_overflow_16_bit_sums_on_any_x86_cpu(served):
    """What makes the served form exact on AVX2 CPUs without VNNI: there, uint8 activations times int8 weights are
    summed in pairs into 16 bits with saturation. With weights in [-64, 63] a pair is at most 2·255·64 = 32640,
    which fits; full-range int8 weights (up to 127) overflow, which turned the embeddings into noise."""
    from onnx import numpy_helper

    model = onnx.load(str(served.folder / SERVED.file))
    weights = [numpy_helper.to_array(t) for t in model.graph.initializer
               if t.data_type == onnx.TensorProto.INT8 and t.name.endswith("_quantized")]
    assert weights, "no int8 weights found"
    peak = max(int(np.abs(w.astype(np.int32)).max()) for w in weights)
    assert peak <= 64 and 2 * 255 * peak < 2**15, peak


def _scramble_int8_weights(path):
    """A quantized file that loads and runs but computes garbage: every int8/uint8 weight replaced by noise."""
    from onnx import numpy_helper

    model = onnx.load(str(path))
    rng = np.random.default_rng(0)
    for tensor in model.graph.initializer:
        if tensor.data_type in (onnx.TensorProto.INT8, onnx.TensorProto.UINT8) and tensor.name.endswith("_quantized"):
            w = numpy_helper.to_array(tensor)
            noise = rng.integers(np.iinfo(w.dtype).min, np.iinfo(w.dtype).max, size=w.shape, endpoint=True)
            tensor.CopyFrom(numpy_helper.from_array(noise.astype(w.dtype), tensor.name))
    onnx.save(model, str(path))


def test_a_form_that_fails_its_self_check_is_not_served(tiny_st, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    spec = ModelSpec("retrieval_embedder", "onnx_int8", str(tiny_st), "tiny")
    healthy = onnx_text.load_onnx_int8(spec, None)
    assert [v.passed for v in healthy.checks] == [True]
    folder = onnx_text.export_dir(tiny_st)
    first, second = (onnx_text.RECIPES[name] for name in onnx_text.LADDER)

    _scramble_int8_weights(folder / first.file)  # the first form computes garbage: the second serves
    served = onnx_text.load_onnx_int8(spec, None)
    assert isinstance(served, onnx_text.OnnxSentenceEmbedder) and served.recipe == second
    assert [v.passed for v in served.checks] == [False, True]
    assert (served.encode(TEXTS) * reference(tiny_st, TEXTS)).sum(1).min() > 0.98

    _scramble_int8_weights(folder / second.file)  # no int8 form agrees: torch serves the float32 weights
    fallback = onnx_text.load_onnx_int8(spec, None)
    assert not isinstance(fallback, onnx_text.OnnxSentenceEmbedder)
    assert "float32" in fallback.backend and "failed its self-check" in fallback.backend
    assert [v.passed for v in fallback.checks] == [False, False]
    np.testing.assert_allclose(fallback.encode(TEXTS), reference(tiny_st, TEXTS), atol=1e-5)


def test_verdicts_are_cached_per_cpu_and_file_and_checked_again_when_either_changes(tiny_st, tmp_path, monkeypatch):
    from studio.models import selfcheck

    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    spec = ModelSpec("retrieval_embedder", "onnx_int8", str(tiny_st), "tiny")
    assert not onnx_text.load_onnx_int8(spec, None).checks[-1].cached
    assert onnx_text.load_onnx_int8(spec, None).checks[-1].cached  # same CPU, runtime and file: not measured again
    # a cache copied to a CPU with other instruction sets is checked there before it serves
    other = {**selfcheck.cpu_flags(), "avx512_vnni": not selfcheck.cpu_flags()["avx512_vnni"]}
    monkeypatch.setattr(selfcheck, "cpu_flags", lambda: other)
    assert not onnx_text.load_onnx_int8(spec, None).checks[-1].cached
    # a file replaced after its check (here with garbage) is checked again, and not served
    _scramble_int8_weights(onnx_text.export_dir(tiny_st) / SERVED.file)
    assert [v.passed for v in onnx_text.load_onnx_int8(spec, None).checks][:1] == [False]


def test_an_unknown_recipe_is_refused_with_the_choices(tiny_st, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("STUDIO_INT8_RECIPE", "int3")
    with pytest.raises(LoadError, match="not an int8 recipe") as refused:
        onnx_text.load_onnx_int8(ModelSpec("retrieval_embedder", "onnx_int8", str(tiny_st), "tiny"), None)
    assert "u8s8-7bit" in refused.value.fix


def test_embeddings_are_cached_apart_per_way_of_serving():
    from studio.models.roles import Embedder

    class Fake(Embedder):
        def __init__(self, backend):
            self.model_id, self.backend = "same/weights", backend

        def encode(self, texts, batch_size=64):
            raise AssertionError

    assert Fake("int8").cache_key != Fake("bfloat16").cache_key


@pytest.mark.offline
@pytest.mark.portability
def test_both_offline_encoders_serve_7bit_int8_after_their_self_check_here(offline):
    """ONNX Runtime picks its int8 kernel by the CPU (VNNI, or AVX2's 16-bit pair sums that saturate): on any x86 CPU
    the 7-bit form of both Proverbs encoders must agree with the float32 embeddings stored with its export. Torch is
    not needed, so `make test-avx2` runs this under QEMU as an AVX2-only CPU, every check made again there."""
    for role in ("retrieval_embedder", "proverbs_encoder"):
        embedder = offline.get(role)
        assert isinstance(embedder, onnx_text.OnnxSentenceEmbedder), embedder.backend
        assert embedder.recipe.name == "u8s8-7bit" and embedder.checks[-1].passed, [v.summary() for v in embedder.checks]


@pytest.mark.offline
def test_the_offline_retrieval_embedder_is_int8_and_close_to_float32(offline):
    """Served int8; the registry's reference twin (what the committed samples are computed on) serves the same
    weights in float32 with torch, and the two agree on other texts than the self-check's."""
    embedder = offline.get("retrieval_embedder")
    assert isinstance(embedder, onnx_text.OnnxSentenceEmbedder), embedder.backend
    reference = offline.reference().get("retrieval_embedder")
    assert not isinstance(reference, onnx_text.OnnxSentenceEmbedder) and "sentence-transformers" in reference.backend
    assert reference.model_id == embedder.model_id and reference.cache_key != embedder.cache_key
    got, want = embedder.encode(TEXTS), reference.encode(TEXTS)
    assert (got * want).sum(1).min() > 0.97  # measured with 7-bit weights: 0.980-0.989
