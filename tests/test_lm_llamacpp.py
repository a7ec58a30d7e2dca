"""The offline language model on llama.cpp (studio/models/loaders/llamacpp.py): served only after it agrees with
the float32 torch model on this CPU; a broken file or a build this CPU cannot run falls back to torch; its
likelihoods, samples and logit ensemble are those of the float32 model (and of the LoRA variants' float32 + delta)."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from studio.models.loaders import llamacpp
from studio.models.specs import spec_for

try:
    llama_cpp = llamacpp.import_llama_cpp()
except Exception:  # noqa: BLE001 - not installed, or a library that does not load
    llama_cpp = None
# in CI (which runs scripts/setup.sh) this skip is a failure: see conftest._CI_REQUIRED
pytestmark = pytest.mark.skipif(llama_cpp is None, reason="llama-cpp-python (built by scripts/setup.sh) is missing")


def _float32(offline):
    from studio.models.loaders.split_package import resolve_model_path
    from studio.models.loaders.lm import _load_dir, converted_dir

    offline.get("lm")  # converts the GGUF once
    folder = converted_dir(Path(resolve_model_path(spec_for("offline", "lm").model_id)))
    return folder, (lambda: _load_dir(str(folder), "reference", "float32"))


@pytest.mark.offline
def test_the_offline_lm_is_served_on_llamacpp_after_its_self_check(offline):
    lm = offline.get("lm")
    assert isinstance(lm, llamacpp.LlamaCppLM) and "llama.cpp" in lm.backend
    verdict = lm.checks[0]
    assert verdict.passed and verdict.form == llamacpp.FORM and verdict.value <= 0.01  # mean log-prob shift
    listed = {r["role"]: r for r in offline.status()}["lm"]
    assert "llama.cpp" in listed["backend"] and [v["passed"] for v in listed["self_check"]] == [True]


@pytest.mark.offline
def test_likelihoods_and_ensemble_match_the_float32_model(offline):
    lm = offline.get("lm")
    _, load = _float32(offline)
    reference = load()
    contexts = ["The cat sat on the", "Her voice was as loud as", "After years of feuding, the brothers"]
    conts = [" mat.", " thunder.", " finally made peace."]
    got, want = lm.loglik(contexts, conts), reference.loglik(contexts, conts)
    assert [n for _, n in got] == [n for _, n in want]
    assert np.allclose([v for v, _ in got], [v for v, _ in want], atol=0.05)
    shared = lm.loglik_shared(contexts[1], [" thunder.", " a whisper.", ""])
    assert np.allclose([v for v, _ in shared], [v for v, _ in reference.loglik_shared(contexts[1],
                                                                                  [" thunder.", " a whisper.", ""])],
                       atol=0.05)
    # only the last tokens scored (the vehicle after the words before it), on both backends alike
    tails = lm.loglik_shared("Her voice", [" was as loud as thunder.", " was like a whisper."], score_last=[2, 3])
    assert [n for _, n in tails] == [2, 3]
    assert np.allclose([v for v, _ in tails], [v for v, _ in reference.loglik_shared(
        "Her voice", [" was as loud as thunder.", " was like a whisper."], score_last=[2, 3])], atol=0.05)
    prompts = [lm.tokenizer(p, add_special_tokens=False)["input_ids"] for p in
               ["(beat is loud.)\nHe was smiling to beat the band.", "He was smiling to beat the band."]]
    for combine in ("sum", "mean"):
        with lm.ensemble(prompts, 2, combine) as (a, step_a), reference.ensemble(prompts, 2, combine) as (b, step_b):
            for _ in range(3):
                assert a.shape == b.shape == (2, lm.n_vocab)
                assert (a.argmax(-1) == b.argmax(-1)).all()
                assert float((a - b).abs().max()) < 0.5 * (2 if combine == "sum" else 1)
                nxt = [int(a[0].argmax()), int(a[1].topk(2).indices[1])]
                a, b = step_a(nxt), step_b(nxt)
    reference.close()


@pytest.mark.offline
def test_several_asks_in_one_pass_score_as_each_alone(offline, monkeypatch):
    """loglik_many packs asks into one decode, and continuations that start alike share their first cells; the
    numbers are each continuation's alone, up to the rounding of llama.cpp's kernels at another batch size."""
    lm = offline.get("lm")
    asks = [("He darted", [" like a flash", " like an arrow", " like a deer", " away"], [2, 2, 2, 1]),
            ("Like", [" a flash", " an arrow", " a flash"], None),
            ("Her voice was as loud", [" as thunder.", ""], None)]
    plain = lm.loglik(["Like"] * 3, asks[1][1])  # the plain path, no cells shared
    for monkey_seq in (None, 2):  # every ask in one pass; or at most two sequences a pass, so asks are split
        if monkey_seq:
            monkeypatch.setattr(llamacpp, "N_SEQ", monkey_seq)
        got = lm.loglik_many(asks)
        assert [[n for _, n in ask] for ask in got] == [[2, 2, 2, 1], [2, 2, 2], [3, 0]]
        for ask, (ctx, conts, last) in zip(got, asks):
            one_by_one = [lm.loglik_shared(ctx, [c], score_last=[k] if last else None)[0]
                          for c, k in zip(conts, last or [None] * len(conts))]
            assert np.allclose([v for v, _ in ask], [v for v, _ in one_by_one], atol=0.05)
        assert got[1][0] == pytest.approx(got[1][2], abs=0.05)  # the same vehicle twice: the same number
        assert np.allclose([v for v, _ in got[1]], [v for v, _ in plain], atol=0.05)
    assert got[2][1] == (0.0, 0)


@pytest.mark.offline
def test_seeded_samples_do_not_depend_on_other_requests(offline):
    """One context, a lock: two threads drawing at once get what each gets alone."""
    lm = offline.get("lm")
    alone = [lm.sample_shared("The old house creaked", 3, seed=s) for s in (1, 2)]
    out = {}

    def run(seed):
        out[seed] = lm.sample_shared("The old house creaked", 3, seed=seed)

    threads = [threading.Thread(target=run, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [out[1], out[2]] == alone
    assert lm.generate(["Once upon a time"], max_new_tokens=6, temperature=0)[0][0].new_tokens == 6


@pytest.mark.offline
def test_a_broken_llamacpp_file_is_not_served_and_torch_serves(offline, tmp_path):
    """Deliberately broken weights (noise in the first three feed-forward output layers of a valid GGUF that loads and
    runs): the check fails, the verdict is kept, and the torch forms serve instead."""
    import gguf

    from studio.models.loaders.split_package import resolve_model_path
    from studio.models.loaders.lm import serve_gguf

    base, load = _float32(offline)
    broken_base = tmp_path / "base"
    shutil.copytree(base, broken_base, ignore=shutil.ignore_patterns("*.gguf", "verdicts.json", "*.safetensors",
                                                                      "int4*"))
    for name in ("model.safetensors",):
        (broken_base / name).symlink_to(base / name)
    shutil.copy(llamacpp.served_gguf(Path(resolve_model_path(spec_for("offline", "lm").model_id)), base),
                broken_base / llamacpp.SERVED_FILE)
    reader = gguf.GGUFReader(str(broken_base / llamacpp.SERVED_FILE), "r+")
    rng = np.random.default_rng(0)
    for tensor in reader.tensors:
        if tensor.name in ("blk.0.ffn_down.weight", "blk.1.ffn_down.weight", "blk.2.ffn_down.weight"):
            tensor.data[...] = rng.normal(0, 0.5, tensor.data.shape).astype(tensor.data.dtype)
    del reader
    gguf_file = Path(resolve_model_path(spec_for("offline", "lm").model_id))
    lm, verdict = llamacpp.serve(load, broken_base, gguf_file, tmp_path / "verdicts", "broken", "broken")
    assert lm is None and verdict is not None and not verdict.passed
    assert verdict.measure.startswith("top-token agreement")  # measured and found wrong, not an error on the way
    again, cached = llamacpp.serve(load, broken_base, gguf_file, tmp_path / "verdicts", "broken", "broken")
    assert again is None and cached.cached and not cached.passed
    served = serve_gguf(load, broken_base, gguf_file, tmp_path / "verdicts", "broken", "broken", int4_cache=base)
    assert not isinstance(served, llamacpp.LlamaCppLM) and "failed its self-check" in served.backend
    assert served.checks[0].form == llamacpp.FORM and not served.checks[0].passed
    assert served.generate(["The cat sat on the"], max_new_tokens=4, temperature=0)[0][0].text.strip()


def test_a_build_that_uses_instructions_this_cpu_lacks_is_not_loaded(monkeypatch):
    from studio.models import selfcheck

    monkeypatch.delenv("STUDIO_LLAMACPP", raising=False)
    assert llamacpp.unavailable_reason() is None
    assert "AVX2 = 1" in llamacpp.build_info() and "AVX512 = 1" not in llamacpp.build_info()  # the portable build
    real = selfcheck.read_cpu_flags
    monkeypatch.setattr(selfcheck, "read_cpu_flags",
                        lambda path="/proc/cpuinfo", names=selfcheck.FLAG_NAMES: {n: False for n in names})
    assert "lacks" in llamacpp.unavailable_reason()
    monkeypatch.setattr(selfcheck, "read_cpu_flags", real)
    monkeypatch.setattr(llamacpp, "build_info", lambda: "CPU : AVX2 = 1 | AVX512_BF16 = 1 | ")
    monkeypatch.setattr(selfcheck, "read_cpu_flags", lambda path="/proc/cpuinfo", names=selfcheck.FLAG_NAMES:
                        {n: n != "avx512_bf16" for n in names})
    assert "AVX512_BF16" in llamacpp.unavailable_reason()
    # a build that stops its child process (an illegal instruction) is never loaded in the studio's
    monkeypatch.setattr(llamacpp, "build_info", lambda: "error: the library stopped with code -4")
    assert "does not run here" in llamacpp.unavailable_reason()
    monkeypatch.setenv("STUDIO_LLAMACPP", "0")
    assert "STUDIO_LLAMACPP=0" in llamacpp.unavailable_reason()


@pytest.mark.offline
def test_the_lora_variants_are_served_on_llamacpp_and_match_float32_with_their_delta(offline):
    """The adapters (GGUF names, rotary row order, alpha) carry the deltas: each variant's likelihoods are those of
    the float32 model with its delta, and differ from the plain lm's."""
    from safetensors.torch import load_file

    from studio.models.lm_delta import SCALE_KEY, apply_delta, delta_metadata

    _, load = _float32(offline)
    context, conts = "Literal: The lake was calm.\nSimile: The lake was", [" as calm as glass.", " like a mirror."]
    plain = offline.get("lm").loglik([context] * 2, conts)
    for role in ("polisher", "continuation_generator"):  # the writer's variant: test_similes_polish.py
        lm = offline.get(role)
        assert isinstance(lm, llamacpp.LlamaCppLM) and lm.checks[-1].passed, lm.backend
        path = offline.spec(role).model_id
        reference = load()
        apply_delta(reference.model, load_file(path), float(delta_metadata(path)[SCALE_KEY]))
        got, want = lm.loglik([context] * 2, conts), reference.loglik([context] * 2, conts)
        reference.close()
        assert np.allclose([v for v, _ in got], [v for v, _ in want], atol=0.05), role
        assert not np.allclose([v for v, _ in got], [v for v, _ in plain], atol=0.05), role


@pytest.mark.offline
def test_the_variants_of_a_file_share_its_weights_and_outlive_another_holder(offline):
    """The lm and its LoRA variants hold one llama.cpp model of their file (each adapter on its own context);
    another holder of the file, closed, leaves their likelihoods as they were and the model held by them alone."""
    base, _ = _float32(offline)
    lm, polisher = offline.get("lm"), offline.get("polisher")
    assert polisher._model is lm._model and polisher._model_lock is lm._model_lock
    (held,) = [h for h in llamacpp._models.values() if h[0] is lm._model]
    holders = held[1]
    context, conts = "Literal: The lake was calm.\nSimile: The lake was", [" as calm as glass.", " like a mirror."]
    before = [m.loglik([context] * 2, conts) for m in (lm, polisher)]
    extra = llamacpp.LlamaCppLM(base / llamacpp.SERVED_FILE, lm.tokenizer, "another holder", "test")
    assert extra._model is lm._model and held[1] == holders + 1
    assert np.allclose([v for v, _ in extra.loglik([context] * 2, conts)], [v for v, _ in before[0]], atol=1e-4)
    extra.close()
    extra.close()  # twice: released once
    assert held[1] == holders and any(h is held for h in llamacpp._models.values())
    assert [m.loglik([context] * 2, conts) for m in (lm, polisher)] == before


@pytest.mark.offline
def test_the_writer_polisher_without_llamacpp_is_unavailable_and_builds_no_torch_form(offline, monkeypatch):
    """Where llama.cpp cannot serve it, the writer's Polish variant is unavailable (the polisher proposes) at once:
    no float32 or 4-bit torch copy of the 1.5 B writer is built only to be discarded."""
    from studio.models import lm_delta
    from studio.models.loaders import fourbit
    from studio.models.loaders.common import LoadError

    def built(*args, **kwargs):
        raise AssertionError("a torch form was built")

    monkeypatch.setattr(fourbit, "serve_checked", built)
    monkeypatch.setenv("STUDIO_LLAMACPP", "0")
    with pytest.raises(LoadError) as refused:
        lm_delta.load_writer_variant_role(offline.spec("polish_writer"), offline)
    assert refused.value.unavailable and "STUDIO_LLAMACPP=0" in refused.value.reason
    assert "polisher proposes instead" in refused.value.fix


@pytest.mark.offline
def test_a_request_larger_than_the_context_gets_room_and_a_too_large_one_a_clear_error(offline, monkeypatch):
    """The same behaviour at every size, so it is shown on a small context (256 cells, 2,048 at most) of the served
    file: a prefill of 4,800 tokens for the usual 4,096 took half a minute on one core."""
    from studio.errors import InputError
    from studio.models.loaders.split_package import resolve_model_path

    served = offline.get("lm")
    monkeypatch.setattr(llamacpp, "N_CTX", 256)
    monkeypatch.setattr(llamacpp, "MAX_CTX", 2048)
    base, _ = _float32(offline)
    gguf = llamacpp.served_gguf(Path(resolve_model_path(spec_for("offline", "lm").model_id)), base)
    lm = llamacpp.LlamaCppLM(gguf, served.tokenizer, served.model_id, served.backend)
    try:
        story = "The river rose all night and the village woke to water in every kitchen. "  # ~16 tokens
        prompts = [lm.tokenizer(f"({i}.)\n{story}", add_special_tokens=False)["input_ids"] for i in range(16)]
        assert sum(map(len, prompts)) > llamacpp.N_CTX
        with lm.ensemble(prompts, 2, "sum", 5) as (first, step):
            assert first.shape == (2, lm.n_vocab) and step([1, 2]).shape == (2, lm.n_vocab)
            assert llama_cpp.llama_n_ctx(lm._ctx) > llamacpp.N_CTX  # room for this call
            with pytest.raises(RuntimeError, match="inside another call"):
                lm.loglik(["a"], [" b"])
        assert lm._n_ctx == llamacpp.N_CTX  # the usual context again
        with pytest.raises(InputError, match="fewer samples"):  # more sequences than llama.cpp holds
            with lm.ensemble(prompts, 30, "sum", 20):
                pass
        with pytest.raises(InputError, match="Shorten the text"):  # more tokens than the largest context
            lm.loglik([story * 200], [" The end."])
        assert lm.generate(["Once upon a time"], max_new_tokens=3, temperature=0)[0][0].new_tokens == 3
    finally:
        lm.close()


def test_a_lora_delta_becomes_an_adapter_with_gguf_names_and_rotary_row_order(tmp_path):
    """q/k output rows are reordered as llama.cpp's converter reorders the base weights; the scale is kept."""
    import gguf

    rank, heads, kv_heads, dim = 2, 4, 2, 16
    rng = np.random.default_rng(0)
    delta = {"model.layers.0.self_attn.q_proj.lora_A": rng.normal(size=(rank, dim)).astype(np.float16),
             "model.layers.0.self_attn.q_proj.lora_B": rng.normal(size=(dim, rank)).astype(np.float16),
             "model.layers.0.self_attn.k_proj.lora_A": rng.normal(size=(rank, dim)).astype(np.float16),
             "model.layers.0.self_attn.k_proj.lora_B": rng.normal(size=(8, rank)).astype(np.float16),
             "model.layers.1.mlp.down_proj.lora_A": rng.normal(size=(rank, dim)).astype(np.float16),
             "model.layers.1.mlp.down_proj.lora_B": rng.normal(size=(dim, rank)).astype(np.float16)}
    path = llamacpp.write_adapter(delta, 0.5, tmp_path / "a.gguf", heads, kv_heads)
    reader = gguf.GGUFReader(str(path))
    names = {t.name: np.asarray(t.data) for t in reader.tensors}
    assert set(names) == {"blk.0.attn_q.weight.lora_a", "blk.0.attn_q.weight.lora_b", "blk.0.attn_k.weight.lora_a",
                          "blk.0.attn_k.weight.lora_b", "blk.1.ffn_down.weight.lora_a", "blk.1.ffn_down.weight.lora_b"}
    alpha = reader.fields["adapter.lora.alpha"]
    assert float(alpha.parts[alpha.data[0]][0]) == pytest.approx(0.5 * rank)
    b = delta["model.layers.0.self_attn.q_proj.lora_B"].astype(np.float32)
    # head h's rows (first half, second half) interleaved: row 2i of a head is its row i, row 2i+1 its row i + half
    half = dim // heads // 2
    assert np.array_equal(names["blk.0.attn_q.weight.lora_b"][1], b[half])
    assert np.array_equal(names["blk.0.attn_q.weight.lora_b"][0], b[0])
    assert np.array_equal(names["blk.1.ffn_down.weight.lora_b"],
                          delta["model.layers.1.mlp.down_proj.lora_B"].astype(np.float32))
    with pytest.raises(Exception, match="no adapter slot"):
        llamacpp.write_adapter({"lm_head.lora_A": delta["model.layers.0.self_attn.q_proj.lora_A"],
                                "lm_head.lora_B": b}, 1.0, tmp_path / "b.gguf", heads, kv_heads)
    # the writer's qwen2: its converter keeps q/k rows as they are, and llama.cpp checks the adapter's architecture
    qwen = gguf.GGUFReader(str(llamacpp.write_adapter(delta, 0.5, tmp_path / "q.gguf", heads, kv_heads, "qwen2")))
    assert qwen.fields["general.architecture"].contents() == "qwen2"
    assert np.array_equal({t.name: np.asarray(t.data) for t in qwen.tensors}["blk.0.attn_q.weight.lora_b"], b)


@pytest.mark.offline
def test_the_file_type_is_read_from_the_metadata_alone(tmp_path):
    """gguf_file_type (in the writer's verdict and backend line) reads what gguf's full reader reads, and refuses a
    file that is no GGUF with a clear error."""
    import gguf

    from studio.models.loaders.common import LoadError
    from studio.models.loaders.split_package import resolve_model_path

    path = Path(resolve_model_path(spec_for("offline", "lm").model_id))
    field = gguf.GGUFReader(str(path)).fields["general.file_type"]
    want = gguf.LlamaFileType(int(field.parts[field.data[0]][0])).name.removeprefix("MOSTLY_")
    assert llamacpp.gguf_file_type(path) == want == "Q4_1"
    (tmp_path / "not.gguf").write_bytes(b"no model here")
    with pytest.raises(LoadError, match="cannot read not.gguf"):
        llamacpp.gguf_file_type(tmp_path / "not.gguf")
