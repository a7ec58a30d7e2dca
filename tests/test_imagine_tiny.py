"""ImaginE end to end on the tiny profile: the real diffusers pipeline renders noise, the tiny CLIP scores it."""
from __future__ import annotations

import json

import numpy as np
import pytest

from studio.errors import InputError
from studio.imagine import imagine_pair, imagine_top_k
from studio.imagine.cache import ImageCache
from studio.imagine.compare import score_imaginations
from studio.imagine.render import RenderCancelled, render_all, resolve_settings
from studio.models import ModelUnavailable, get_registry

TEXT_A, TEXT_B = "He yelps and howls at the moon.", "He yelps and howls like a wolf."


class CountingPipeline:
    """Stands in front of the real pipeline and counts how often it runs."""

    def __init__(self, pipe, root):
        self.pipe, self.calls, self.root = pipe, 0, root

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.pipe(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.pipe, name)


@pytest.fixture
def pipeline_calls(monkeypatch, tmp_path):
    """A fresh image cache and a counter of real pipeline runs."""
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    diffusion = get_registry().get("diffusion")
    counter = CountingPipeline(diffusion.pipe, tmp_path / "unused-cache")
    monkeypatch.setattr(diffusion, "pipe", counter)
    return counter


@pytest.fixture
def shared_cache(monkeypatch, tmp_path_factory):
    """One cache for the tests whose point is not caching, so that they render each image once per session."""
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "imagine-shared-cache"))


def pixels(image) -> np.ndarray:
    return np.asarray(image)


def all_scores(result) -> list[float]:
    return [v for p in result.scored.pairs for v in p.scores.as_dict().values()]


def test_two_texts_two_seeds_then_a_cache_hit(pipeline_calls):
    progress = []
    first = imagine_pair(TEXT_A, TEXT_B, n_seeds=2, seed=3, progress=lambda fraction, desc: progress.append(fraction))
    assert pipeline_calls.calls == 4 and first.rendered == 4 and first.cache_hits == 0
    assert first.seeds == [3, 4]
    assert [p.image_a.size for p in first.scored.pairs] == [(64, 64), (64, 64)]
    assert np.all(np.isfinite(all_scores(first)))
    assert all(np.isfinite(v) for v in first.text_metrics.values())
    assert not np.array_equal(pixels(first.scored.pairs[0].image_a), pixels(first.scored.pairs[1].image_a))
    assert progress == sorted(progress) and progress[0] == 0.0 and progress[-1] >= 0.9 and len(progress) >= 8

    again = imagine_pair(TEXT_A, TEXT_B, n_seeds=2, seed=3)
    assert pipeline_calls.calls == 4, "a cache hit must not run the pipeline"
    assert again.cache_hits == 4 and again.rendered == 0
    for p, q in zip(first.scored.pairs, again.scored.pairs):
        assert np.array_equal(pixels(p.image_a), pixels(q.image_a))
        assert np.array_equal(pixels(p.image_b), pixels(q.image_b))
    assert all_scores(again) == all_scores(first)
    assert again.as_dict()["summary"] == first.as_dict()["summary"]

    # the same seed renders the same pixels again without any cache
    diffusion = get_registry().get("diffusion")
    fresh = render_all(diffusion, [TEXT_B], [4], first.settings, cache=ImageCache(pipeline_calls.root, max_bytes=0))
    assert pipeline_calls.calls == 5
    assert np.array_equal(pixels(fresh.images[(TEXT_B, 4)]), pixels(first.scored.pairs[1].image_b))


def test_changed_settings_miss_the_cache(pipeline_calls):
    diffusion = get_registry().get("diffusion")
    one_step = resolve_settings(diffusion.defaults, steps=1)
    render_all(diffusion, [TEXT_A], [5], one_step)
    assert render_all(diffusion, [TEXT_A], [5], one_step).cache_hits == 1
    changed = render_all(diffusion, [TEXT_A], [5], resolve_settings(diffusion.defaults, steps=1, size=128))
    assert changed.rendered == 1 and changed.images[(TEXT_A, 5)].size == (128, 128)
    assert pipeline_calls.calls == 2


def test_stop_interrupts_a_render_and_the_pipeline_stays_usable(pipeline_calls):
    with pytest.raises(RenderCancelled):
        imagine_pair(TEXT_A, TEXT_B, seed=21, should_stop=lambda: pipeline_calls.calls > 0)
    assert pipeline_calls.calls == 1  # stopped inside the first image
    diffusion = get_registry().get("diffusion")
    settings = resolve_settings(diffusion.defaults, steps=1)
    assert render_all(diffusion, [TEXT_A], [21], settings).rendered == 1


def test_zero_gpu_path_passes_only_picklable_arguments(pipeline_calls, monkeypatch):
    import pickle

    from studio.imagine import render

    original, shipped = render._render_in_gpu_worker, []

    def gpu_call(*args):  # what spaces.GPU does on ZeroGPU: ship the arguments to a worker process
        shipped.append(pickle.loads(pickle.dumps(args)))
        return original(*args)

    monkeypatch.setattr(render, "spaces", object())  # as if `import spaces` had succeeded
    monkeypatch.setattr(render, "_render_in_gpu_worker", gpu_call)
    diffusion = get_registry().get("diffusion")
    report = render_all(diffusion, [TEXT_A], [7], resolve_settings(diffusion.defaults, steps=1))
    assert shipped == [(TEXT_A, 7, 1, 0.0, 64)] and pipeline_calls.calls == 1
    direct = diffusion.render(TEXT_A, seed=7, steps=1, guidance=0.0, size=64)
    assert np.array_equal(pixels(report.images[(TEXT_A, 7)]), pixels(direct))


def test_truncation_is_flagged():
    from PIL import Image

    clip = get_registry().get("clip")
    long_text = " ".join(["the wolf howls at the pale moon"] * 20)
    image = Image.new("RGB", (64, 64), (40, 40, 90))
    scored = score_imaginations(clip, TEXT_A, long_text, [0], [image], [image])
    assert (scored.truncated_a, scored.truncated_b) == (False, True)
    assert scored.scores_dict()["truncated"] == {"text_a": False, "text_b": True}


def test_top_k_renders_the_literal_once(pipeline_calls):
    similes = ["He howls like a wolf.", "He howls like a wolf.", "He sings like a lark.", "He roars like a lion."]
    result = imagine_top_k("He howls.", similes, k=2, seed=51, steps=1)
    assert [s.text_b for s in result.similes] == ["He howls like a wolf.", "He sings like a lark."]
    assert pipeline_calls.calls == 3  # the literal sentence and two distinct similes
    assert all(s.text_a == "He howls." and len(s.pairs) == 1 for s in result.similes)
    assert result.as_dict()["similes"][1]["rank"] == 2


@pytest.mark.parametrize("kwargs, message", [
    (dict(text_a="  ", text_b="x"), "empty"),
    (dict(text_a="x" * 1001, text_b="x"), "limit"),
    (dict(text_a="a", text_b="b", n_seeds=6), "seeds"),
    (dict(text_a="a", text_b="b", steps=9), "between 1 and 8"),
    (dict(text_a="a", text_b="b", size=1024), "Size"),
])
def test_bad_input_is_a_clear_error(kwargs, message):
    with pytest.raises(InputError, match=message):
        imagine_pair(**kwargs)


def test_top_k_bad_input():
    with pytest.raises(InputError, match="no similes"):
        imagine_top_k("He howls.", ["", "  "], k=2)
    with pytest.raises(InputError, match="k must be"):
        imagine_top_k("He howls.", ["a"], k=9)


def test_offline_profile_says_what_to_set(offline):
    from studio.ui.imagine_tab import availability_notice

    notice = availability_notice()
    assert "STUDIO_MODEL_DIFFUSION" in notice and "STUDIO_MODEL_CLIP" in notice
    with pytest.raises(ModelUnavailable):
        imagine_pair(TEXT_A, TEXT_B)


def test_cli_pair_writes_pngs_and_json(shared_cache, tmp_path, capsys):
    from studio.cli import main

    out = tmp_path / "pngs"
    assert main(["imagine", TEXT_A, TEXT_B, "--seeds", "2", "--out", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["per_seed"]) == 2 and sorted(p.name for p in out.glob("*.png")) == [
        "seed0_a.png", "seed0_b.png", "seed1_a.png", "seed1_b.png"]
    assert set(result["summary"]) == {"image_cosine", "imagine_image", "text_image_cosine", "imagine_text_image"}


def test_cli_batch_reports_bad_lines(shared_cache, tmp_path, capsys):
    from studio.cli import main

    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    records = [json.dumps({"text_a": TEXT_A, "text_b": TEXT_B}), "{not json", json.dumps({"text_a": TEXT_A}),
               json.dumps({"text_a": "a", "text_b": "b", "seed": 2})]
    source.write_text("\n".join(records))
    assert main(["imagine", "--batch", str(source), "--out", str(target)]) == 1
    err = capsys.readouterr().err
    assert "line 2:" in err and "line 3:" in err and "line 1:" not in err
    lines = [json.loads(x) for x in target.read_text().splitlines()]
    assert [x["line"] for x in lines] == [1, 4] and lines[1]["seeds"] == [2]
    assert main(["imagine", "only one text"]) == 2
