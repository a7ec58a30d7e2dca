"""The Imagine tab through its API (the whole app on the tiny profile), and the "Imagine top k" accordion."""
from __future__ import annotations

import pandas as pd
import pytest

TEXT_A, TEXT_B = "The night was very dark.", "The night was as dark as ink."


@pytest.fixture
def shared_cache(monkeypatch, tmp_path_factory):
    """The app runs in this process: one cache for the session renders each image once (the browser test reuses
    them)."""
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "imagine-shared-cache"))


def test_imagine_api_returns_two_images_per_seed(client, shared_cache):
    gallery, summary, per_seed, metrics, chart, csv_path = client.predict(
        TEXT_A, TEXT_B, 2, 0, 0, 0, "model default", api_name="/imagine")
    assert len(gallery) == 4
    assert [item["caption"] for item in gallery] == ["A · seed 0", "B · seed 0", "A · seed 1", "B · seed 1"]
    assert "ImaginE_image" in summary and "±" in summary and "raw cosine" in summary
    assert "guidance 0," in summary and "64 px" in summary  # the tiny model's defaults
    assert len(per_seed["data"]) == 2
    assert [row[0] for row in metrics["data"]] == ["BLEU", "ROUGE-L", "embedding cosine"]
    assert chart["visible"] and chart["value"]["type"] == "plotly" and "ImaginE_text&image" in chart["value"]["plot"]
    frame = pd.read_csv(csv_path)
    assert list(frame["seed"]) == [0, 1] and {"imagine_image", "image_cosine"} <= set(frame.columns)


def test_imagine_api_rejects_bad_input_clearly(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="empty"):
        client.predict("", TEXT_B, 1, 0, 0, 0, "model default", api_name="/imagine")
    with pytest.raises(AppError, match="Size must be a multiple of 64"):
        client.predict(TEXT_A, TEXT_B, 1, 0, 0, 100, "model default", api_name="/imagine")
    with pytest.raises(AppError, match="Guidance must be a number"):
        client.predict(TEXT_A, TEXT_B, 1, 0, 0, 0, "strong", api_name="/imagine")


def test_unusual_text_renders(client, shared_cache):
    odd_a, odd_b = "<img src=x onerror=alert(1)> 🌙 night", "الليل مظلم\u200b كالحبر"
    gallery, summary = client.predict(odd_a, odd_b, 1, 0, 0, 0, "0", api_name="/imagine")[:2]
    assert len(gallery) == 2 and "ImaginE over 1 seed" in summary and "<img" not in summary


def test_similes_are_read_from_rankings():
    from studio.ui.imagine_tab import _similes_from

    frame = pd.DataFrame({"rank": [1, 2], "simile": ["as dark as ink", "like a cave"], "score": [0.9, 0.5]})
    assert _similes_from(frame, None) == ["as dark as ink", "like a cave"]
    assert _similes_from(frame, "simile") == ["as dark as ink", "like a cave"]
    reranked = pd.DataFrame({"rank": [3, 1, 2], "candidate": ["no simile here", "like ink", "like a cave"],
                             "flag": ["no simile", "", None]})  # sorted by another column, with a flagged row
    assert _similes_from(reranked, None) == ["like ink", "like a cave"]
    assert _similes_from("as dark as ink\n\nlike a cave\n", None) == ["as dark as ink", "like a cave"]
    assert _similes_from(["a", "b"], None) == ["a", "b"]
    assert _similes_from(None, None) == []


def test_top_k_accordion_renders_literal_and_similes(shared_cache):
    import gradio as gr
    from gradio_client import Client

    from conftest import close_app, free_port
    from studio.ui.imagine_tab import build_imagine_topk

    with gr.Blocks() as demo:
        literal = gr.Textbox()
        ranked = gr.Dataframe(value=pd.DataFrame({"candidate": ["as dark as ink", "like a cave", "like coal"]}))
        build_imagine_topk(literal, ranked)
    demo.queue()
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        ranking = {"headers": ["candidate"], "data": [["as dark as ink"], ["like a cave"], ["like coal"]]}
        gallery, table = client.predict(TEXT_A, ranking, 2, 1, 0, 0, 0, api_name="/imagine_top_k")
    finally:
        close_app(demo)
    assert [item["caption"].split(" · ")[0] for item in gallery] == ["literal", "#1", "#2"]
    assert [row[1] for row in table["data"]] == ["as dark as ink", "like a cave"]


def test_out_of_range_scores_and_truncation_are_flagged_not_clipped():
    import numpy as np

    from studio.imagine.compare import ScoredImaginations, SeedPair
    from studio.imagine.scores import pair_scores
    from studio.ui.imagine_tab import _flags

    x = np.array([1.0, 0.0])
    in_range = ScoredImaginations("a", "b", False, False, [SeedPair(0, None, None, pair_scores(
        x, x, x, np.array([0.55, np.sqrt(1 - 0.55**2)])))])
    assert in_range.summary["imagine_image"].mean == pytest.approx(0.5)
    identical = ScoredImaginations("a", "b", False, True, [SeedPair(0, None, None, pair_scores(x, x, x, x))])
    assert identical.summary["imagine_text_image"].mean == pytest.approx(3.0)  # kept, not clipped to 1
    notes = _flags(identical)
    assert any("ImaginE_text&image falls outside [0, 1]" in n for n in notes)
    assert any("second text is longer than CLIP's 77-token context" in n for n in notes)
    assert not any("ImaginE_image falls" in n for n in notes)
    only_text_image = _flags(in_range)  # image cosine 0.55 is in range; (0.55 + 1) / 2 text-image is not
    assert len(only_text_image) == 1 and "ImaginE_text&image" in only_text_image[0]


def test_offline_button_gives_a_clear_error(offline):
    import gradio as gr

    from studio.ui.imagine_tab import run_imagine

    with pytest.raises(gr.Error, match="STUDIO_MODEL_DIFFUSION"):
        run_imagine(TEXT_A, TEXT_B, 1, 0, 0, 0, "model default", None, progress=lambda *a, **k: None)


def _imagine_blocks():
    import gradio as gr

    from studio.ui.imagine_tab import build_imagine_tab, build_imagine_topk

    with gr.Blocks() as demo:
        build_imagine_tab()
        literal, ranked = gr.Textbox(), gr.Dataframe()
        build_imagine_topk(literal, ranked)
    config = demo.get_config_file()
    buttons = {c["props"]["value"]: c["props"] for c in config["components"] if c["type"] == "button"}
    markdown = [str(c["props"].get("value") or "") for c in config["components"] if c["type"] == "markdown"]
    settings = [c["props"] for c in config["components"] if c["type"] in ("slider", "number", "dropdown")]
    return buttons, markdown, settings


def test_unavailable_imagine_is_one_panel_and_disabled_buttons(offline):
    from studio.models import get_registry

    before = {r["role"]: r["state"] for r in get_registry().status()}
    buttons, markdown, settings = _imagine_blocks()
    assert buttons["Imagine"]["interactive"] is False and buttons["Imagine top k"]["interactive"] is False
    panels = [m for m in markdown if "ImaginE is switched off" in m]
    assert len(panels) == 1  # one panel, not one warning per role plus a note
    panel = panels[0]
    for needed in ("What it is", "Why it is off here", "*offline* profile", "no Stable Diffusion weights",
                   "STUDIO_PROFILE=hub", "STUDIO_MODEL_DIFFUSION", "STUDIO_MODEL_CLIP"):
        assert needed in panel, needed
    assert panel.index("<details>") < panel.index("STUDIO_PROFILE=hub")  # folded away for the operator
    assert sum("Imagine top k is off here" in m for m in markdown) == 1
    # the top k settings are greyed out with its buttons (a visitor took them for live ones)
    ids = {p.get("elem_id") for p in settings} | {c for p in settings for c in p.get("elem_classes") or ()}
    assert {"imagine-seeds", "imagine-seed", "imagine-steps", "imagine-size", "imagine-guidance",
            "imagine-topk-setting"} <= ids  # both panels' settings were found
    assert len(settings) == 10 and all(p["interactive"] is False for p in settings)
    assert not any("⚠️" in m for m in markdown)  # no separate per-role warnings
    from studio.ui.imagine_tab import OFF_HELP_NOTE

    assert sum(m.startswith(OFF_HELP_NOTE) for m in markdown) == 1  # the help, which describes pictures, says so first
    assert {r["role"]: r["state"] for r in get_registry().status()} == before  # decided without loading a model


def test_available_imagine_has_live_buttons_and_no_panel():
    buttons, markdown, _ = _imagine_blocks()  # the tiny profile renders
    assert buttons["Imagine"].get("interactive") is not False
    assert buttons["Imagine top k"].get("interactive") is not False
    assert not any("switched off" in m.lower() or "is off here" in m for m in markdown)
