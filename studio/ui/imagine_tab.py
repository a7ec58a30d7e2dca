"""Imagine tab: ImaginE (Zhu et al.) for two texts, and the "Imagine top k" accordion other tabs can embed."""
from __future__ import annotations

import threading

import gradio as gr
import pandas as pd

from ..capabilities import tab_title
from ..errors import InputError
from ..imagine.service import (IMAGE_RANGE, MAX_GUIDANCE, MAX_SEEDS, MAX_SIZE, MAX_TEXT_CHARS, MAX_TOP_K, SIZE_STEP,
                               TEXT_IMAGE_RANGE, RenderCancelled, imagine_pair, imagine_top_k, outside_unit_interval,
                               profile_name, unavailable_roles)
from .common import after_limit_check, cancellable, cancelled, escape, examples, guarded, limited_textbox
from .help import tab_guide
from .session_files import new_download
from ..wording import counted

#: what each number in the tables means, shown under them
PER_SEED_NOTE = ("**image_cosine**: cosine of the two images' CLIP embeddings; **text_image_cosine**: the mean "
                 "cosine of each text with the other text's image; **t1_v2** / **t2_v1**: those two cosines; "
                 "**imagine_image** and **imagine_text_image**: the cosines rescaled by F(s) = (s − l) / (h − l), "
                 "about 0–1 (values outside are shown as computed). Text metrics: **value** is BLEU, ROUGE-L or "
                 "the embedding cosine (0–1); the other columns add ImaginE to it (Eq. 4).")
TOPK_NOTE = ("Each score is the mean ± std over the seeds of the simile's images against the literal sentence's: "
             "ImaginE rescaled (about 0–1) next to the raw CLIP cosine.")
#: every render event shares this group: one rendering job at a time across all users
RENDER_GROUP = dict(concurrency_id="render", concurrency_limit=1)
STEPS_SLIDER_MAX = 100
DEFAULT_TOP_K = 3
MODEL_DEFAULT = "model default"
GUIDANCE_CHOICES = [MODEL_DEFAULT, "0", "1", "2", "3", "5", "7.5", "10", "15"]
EXAMPLES = [
    ["He yelps and howls at the moon.", "He yelps and howls like a wolf at the moon."],
    ["The night was very dark.", "The night was as dark as ink."],
    ["A red apple on a wooden table.", "A green pear on a glass table."],
]
LIMITS = (f"Limits: texts up to {MAX_TEXT_CHARS:,} characters (CLIP reads the first 77 tokens and says when it "
          f"truncated); 1–{MAX_SEEDS} seeds; steps up to the model's maximum (sd-turbo 4, Stable Diffusion v1 100, "
          f"tiny 8); size a multiple of {SIZE_STEP} up to {MAX_SIZE} px; guidance 0–{MAX_GUIDANCE:g}. "
          "Steps or size 0 and guidance 'model default' mean the model's defaults (sd-turbo: 1 step, guidance 0, "
          "512 px; SD v1: 50 steps, guidance 7.5, 512 px). Stop takes effect at the next denoising step.")

# Stop requests per browser session; the render checks its flag at every denoising step.
_stop_flags: dict[str, threading.Event] = {}


#: for whoever runs the studio, folded away under the visitor's explanation
ENABLE_IT = ("<details><summary>For the studio's operator: how to switch it on</summary>\n\n"
             "**What the operator sets to enable it**, then restarts the studio: `STUDIO_PROFILE=hub` (the Space's "
             "profile: downloads `stabilityai/sd-turbo` and CLIP `ViT-B-32` from the Hugging Face Hub), or local "
             "weights with `STUDIO_MODEL_DIFFUSION=/path/to/a/diffusers/folder` (e.g. a copy of sd-turbo) and "
             "`STUDIO_MODEL_CLIP=/path/to/a/copy/of/timm/vit_base_patch32_clip_224.openai` (its "
             "open_clip_config.json and open_clip_model.safetensors).\n\n</details>")


def imagine_available() -> bool:
    return not unavailable_roles()


#: above the tab's help when no image model serves: the help describes pictures this studio cannot draw
OFF_HELP_NOTE = ("**Switched off in this studio** (why: the panel below). What follows is how the tab works where "
                 "an image model serves.")


def availability_notice(short: bool = False) -> str:
    """One panel for a tab that cannot render here ('' when it can): what ImaginE is, why it is off, what to set."""
    rows = unavailable_roles()
    if not rows:
        return ""
    why = "\n".join(f"- **{row['role']}**: {escape(row['reason'])}." for row in rows)
    profile = escape(profile_name())
    if short:
        return (f"**Imagine top k is off here**: the *{profile}* profile has no text-to-image or CLIP model "
                f"({', '.join(row['role'] for row in rows)} unavailable). See the Imagine tab for what ImaginE is "
                "and how the operator enables it.")
    return ("### ImaginE is switched off in this studio\n"
            "**What it is.** ImaginE (Zhu et al.) compares two texts by imagining them: a text-to-image model draws "
            "each text, and CLIP compares the two pictures, and each text with the other's picture. Rerank's "
            "*Imagine top k* uses it to picture the best similes.\n\n"
            f"**Why it is off here.** This studio runs the *{profile}* profile, which has no model for:\n\n{why}\n\n"
            + ENABLE_IT)


class _Session:
    """A stop flag for the duration of one render of one browser session; a stopped render ends in a gr.Error."""

    def __init__(self, request: gr.Request | None):
        self.key = getattr(request, "session_hash", None) or "no-session"
        self.flag = threading.Event()

    def __enter__(self):
        _stop_flags[self.key] = self.flag
        return lambda: self.flag.is_set() or cancelled()

    def __exit__(self, exc_type, exc, tb):
        if _stop_flags.get(self.key) is self.flag:
            del _stop_flags[self.key]
        if isinstance(exc, RenderCancelled):
            raise gr.Error(str(exc), title="Stopped") from None


def request_stop(request: gr.Request):
    flag = _stop_flags.get(getattr(request, "session_hash", None) or "no-session")
    if flag is not None:
        flag.set()


def _guidance(value):
    if value is None or str(value).strip().lower() in ("", MODEL_DEFAULT):
        return None
    try:
        return float(value)
    except ValueError:
        raise InputError(f"Guidance must be a number or {MODEL_DEFAULT!r}, not {value!r}.") from None


def _progress_callback(progress):
    return lambda fraction, desc: progress(min(max(fraction, 0.0), 1.0), desc=desc)


def _stat(stat) -> str:
    return f"{stat.mean:.3f} ± {stat.std:.3f}"


def _flags(scored) -> list[str]:
    notes = []
    for name, label in (("imagine_image", "ImaginE_image"), ("imagine_text_image", "ImaginE_text&image")):
        values = [getattr(p.scores, name) for p in scored.pairs]
        if any(outside_unit_interval(v) for v in values):
            notes.append(f"⚠️ {label} falls outside [0, 1] for some seed: the raw cosine lies outside the calibration "
                         "range. It is shown as computed, not clipped.")
    for which, truncated in (("first", scored.truncated_a), ("second", scored.truncated_b)):
        if truncated:
            notes.append(f"⚠️ The {which} text is longer than CLIP's 77-token context: CLIP scored only its beginning "
                         "(a limitation the paper names).")
    return notes


def summary_markdown(result) -> str:
    s, settings, scored = result.scored.summary, result.settings, result.scored
    n = len(result.seeds)
    lines = [
        f"**ImaginE over {counted(n, 'seed')}** (seeds {escape(', '.join(map(str, result.seeds)))}) — "
        f"`{escape(result.diffusion_model)}`: {counted(settings.steps, 'step')}, guidance {settings.guidance:g}, "
        f"{settings.size} px · CLIP `{escape(result.clip_model)}` · "
        f"{counted(result.cache_hits, 'image')} from the cache, {result.rendered} rendered in "
        f"{result.render_seconds:.1f} s",
        "",
        "| score | rescaled F(s), mean ± std | raw cosine s, mean ± std | [l, h] of F |",
        "|---|---|---|---|",
        f"| ImaginE_image = F(sim(v1, v2)) | **{_stat(s['imagine_image'])}** | {_stat(s['image_cosine'])} | "
        f"[{IMAGE_RANGE[0]:g}, {IMAGE_RANGE[1]:g}] |",
        f"| ImaginE_text&image = F((sim(t1, v2) + sim(t2, v1)) / 2) | **{_stat(s['imagine_text_image'])}** | "
        f"{_stat(s['text_image_cosine'])} | [{TEXT_IMAGE_RANGE[0]:g}, {TEXT_IMAGE_RANGE[1]:g}] |",
        "",
        "F(s) = (s − l) / (h − l); std is over the seed pairs (population std, 0 for one seed).",
    ]
    return "\n".join(lines + [""] + _flags(scored))


def per_seed_table(result) -> pd.DataFrame:
    rows = [{"seed": p.seed, **{k: round(v, 4) for k, v in p.scores.as_dict().items()}} for p in result.scored.pairs]
    return pd.DataFrame(rows)


def text_metric_table(result) -> pd.DataFrame:
    return pd.DataFrame([{k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}
                         for row in result.augmented])


def seed_chart(result):
    import plotly.graph_objects as go

    table = per_seed_table(result)
    seeds = [str(s) for s in table["seed"]]
    fig = go.Figure()
    for column, label in (("imagine_image", "ImaginE_image"), ("imagine_text_image", "ImaginE_text&image"),
                          ("image_cosine", "raw image cosine"), ("text_image_cosine", "raw text-image cosine")):
        fig.add_trace(go.Bar(x=seeds, y=table[column], name=label))
    fig.update_layout(barmode="group", title="Scores per seed", xaxis_title="seed", yaxis_title="score",
                      height=360, margin=dict(l=40, r=20, t=50, b=40))
    return fig


def _csv(frame: pd.DataFrame, stem: str, request: gr.Request | None = None) -> str:
    path = new_download(request, stem, "csv")
    frame.to_csv(path, index=False, encoding="utf-8")
    return path


@guarded
def run_imagine(text_a, text_b, n_seeds, seed, steps, size, guidance, request: gr.Request,
                progress=gr.Progress()):
    with _Session(request) as should_stop:
        result = imagine_pair(text_a, text_b, n_seeds=n_seeds, seed=seed, steps=steps, guidance=_guidance(guidance),
                              size=size,
                              progress=_progress_callback(progress), should_stop=should_stop)
    gallery = []
    for pair in result.scored.pairs:
        gallery += [(pair.image_a, f"A · seed {pair.seed}"), (pair.image_b, f"B · seed {pair.seed}")]
    table = per_seed_table(result)
    several = len(result.seeds) > 1
    return (gallery, summary_markdown(result), table, text_metric_table(result),
            gr.Plot(value=seed_chart(result) if several else None, visible=several), _csv(table, "imagine", request))


def build_imagine_tab() -> None:
    with gr.Tab(tab_title("imagine"), id="imagine"):
        gr.Markdown("## ImaginE — imagine two texts and compare the imaginations\n"
                    "Each text is rendered by the text-to-image model (one image per seed, both texts with the same "
                    "seed); CLIP then compares the two images (**ImaginE_image**) and each text with the other's "
                    "image (**ImaginE_text&image**). Zhu et al., *ImaginE: An Imagination-Based Automatic Evaluation "
                    "Metric for Natural Language Generation*.")
        available = imagine_available()  # decided once, from the registry's status: the profile is fixed at start
        tab_guide("imagine", share=available, note="" if available else OFF_HELP_NOTE)
        if not available:
            gr.Markdown(availability_notice(), elem_classes=["studio-panel"], elem_id="imagine-off")
        with gr.Row():
            text_a = limited_textbox(MAX_TEXT_CHARS, label="Text A (e.g. the literal sentence or the reference)",
                                     lines=2)
            text_b = limited_textbox(MAX_TEXT_CHARS, label="Text B (e.g. the simile or the hypothesis)", lines=2)
        with gr.Row():  # greyed out with the buttons when no image model serves
            n_seeds = gr.Slider(1, MAX_SEEDS, value=1, step=1, label="Seeds per text",
                                info="the paper averages over 5", interactive=available, elem_id="imagine-seeds")
            seed = gr.Number(value=0, precision=0, minimum=0, label="First seed", info="seeds are consecutive",
                             interactive=available, elem_id="imagine-seed")
            steps = gr.Slider(0, STEPS_SLIDER_MAX, value=0, step=1, label="Steps", info="0 = the model's default",
                              interactive=available, elem_id="imagine-steps")
            size = gr.Slider(0, MAX_SIZE, value=0, step=SIZE_STEP, label="Size (px)", info="0 = the model's default",
                             interactive=available, elem_id="imagine-size")
            guidance = gr.Dropdown(GUIDANCE_CHOICES, value=MODEL_DEFAULT, allow_custom_value=True, label="Guidance",
                                   info=f"classifier-free guidance, 0–{MAX_GUIDANCE:g}", interactive=available,
                                   elem_id="imagine-guidance")
        gr.Markdown(LIMITS, elem_classes=["studio-note"])
        with gr.Row():
            go_button = gr.Button("Imagine", variant="primary", interactive=available)
            stop_button = gr.Button("Stop", variant="stop", interactive=available)
        examples(EXAMPLES, [text_a, text_b], "Examples")
        with gr.Column(visible=available):  # results that cannot come are not shown as empty boxes
            with gr.Row():
                gallery = gr.Gallery(label="Imaginations: A and B side by side, one row per seed", columns=2,
                                     format="png", object_fit="contain", height=640, scale=2, elem_id="imagine-gallery")
                with gr.Column(scale=3):
                    summary = gr.Markdown(label="Summary")
                    metrics_table = gr.Dataframe(label="Text metrics (0–1) and their ImaginE-augmented sums (Eq. 4)",
                                                 interactive=False)
            seeds_table = gr.Dataframe(label="Per seed (raw cosines and rescaled scores)", interactive=False)
            gr.Markdown(PER_SEED_NOTE, elem_classes=["studio-note"])
            chart = gr.Plot(label="Scores per seed", visible=False)
            download = gr.File(label="Per-seed scores (CSV)")
        event = after_limit_check(go_button.click, (text_a, "first text", MAX_TEXT_CHARS),
                                  (text_b, "second text", MAX_TEXT_CHARS)).success(
            cancellable(run_imagine), inputs=[text_a, text_b, n_seeds, seed, steps, size, guidance],
            outputs=[gallery, summary, seeds_table, metrics_table, chart, download], api_name="imagine",
            **RENDER_GROUP)
        stop_button.click(request_stop, cancels=[event], api_name="imagine_stop", queue=False)


# ---- "Imagine top k": an accordion for the Rerank tab (or any tab with a literal sentence and ranked similes)

def _similes_from(value, column: str | None) -> list[str]:
    """Ranked similes, best first, from a Dataframe value, a list of texts, or one text per line."""
    if value is None:
        return []
    if isinstance(value, pd.DataFrame):
        if value.empty:
            return []
        if column is None:
            named = [c for c in value.columns if any(w in str(c).lower() for w in ("simile", "candidate", "text"))]
            column = named[0] if named else value.columns[0]
        if column not in value.columns:
            raise InputError(f"The ranking has no column {column!r}.")
        if "rank" in value.columns:  # the user may have sorted the table by another column
            value = value.assign(_rank=pd.to_numeric(value["rank"], errors="coerce"))
            value = value.sort_values("_rank", kind="stable")
        if "flag" in value.columns:  # flagged rows hold no simile
            value = value[value["flag"].fillna("").astype(str).str.strip() == ""]
        return [str(v) for v in value[column].tolist() if str(v).strip()]
    if isinstance(value, str):
        return [line.strip() for line in value.splitlines() if line.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v[0] if isinstance(v, (list, tuple)) and v else v) for v in value]
    raise InputError("The ranked similes could not be read.")


def topk_table(result) -> pd.DataFrame:
    rows = []
    for rank, scored in enumerate(result.similes, start=1):
        s = scored.summary
        rows.append({"rank": rank, "simile": scored.text_b, "ImaginE_image": _stat(s["imagine_image"]),
                     "raw image cosine": _stat(s["image_cosine"]), "ImaginE_text&image": _stat(s["imagine_text_image"]),
                     "raw text-image cosine": _stat(s["text_image_cosine"]),
                     "CLIP truncated": "yes" if scored.truncated_b else ""})
    return pd.DataFrame(rows)


def build_imagine_topk(literal: gr.Component, similes: gr.Component, *, column: str | None = None,
                       open: bool = False) -> gr.Accordion:
    """Add an "Imagine top k" accordion to the current Blocks context.

    `literal` holds the literal sentence (e.g. a Textbox); `similes` the ranked candidates, best first: a
    Dataframe (the `column` given, else the first column whose name contains simile/candidate/text), a State
    holding a list of texts, or a Textbox with one simile per line. Renders share the "render" concurrency group.
    """
    with gr.Accordion("Imagine top k", open=open) as accordion:
        gr.Markdown("Render the literal sentence and the k best similes side by side (one row per seed) and score "
                    "each simile's imaginations against the literal sentence's with ImaginE. Rescaled scores outside "
                    "[0, 1] are shown as computed, next to the raw cosines, never clipped.")
        available = imagine_available()
        if not available:
            gr.Markdown(availability_notice(short=True), elem_classes=["studio-panel"], elem_id="imagine-topk-off")
        with gr.Row():  # greyed out with the buttons when no image model serves: nothing to set
            k = gr.Slider(1, MAX_TOP_K, value=DEFAULT_TOP_K, step=1, label="k (best similes)", interactive=available,
                          elem_classes=["imagine-topk-setting"])
            n_seeds = gr.Slider(1, MAX_SEEDS, value=1, step=1, label="Seeds per text", interactive=available,
                                elem_classes=["imagine-topk-setting"])
            seed = gr.Number(value=0, precision=0, minimum=0, label="First seed", interactive=available,
                             elem_classes=["imagine-topk-setting"])
            steps = gr.Slider(0, STEPS_SLIDER_MAX, value=0, step=1, label="Steps", info="0 = the model's default",
                              interactive=available, elem_classes=["imagine-topk-setting"])
            size = gr.Slider(0, MAX_SIZE, value=0, step=SIZE_STEP, label="Size (px)", info="0 = the model's default",
                             interactive=available, elem_classes=["imagine-topk-setting"])
        with gr.Row():
            go_button = gr.Button("Imagine top k", variant="primary", interactive=available)
            stop_button = gr.Button("Stop", variant="stop", interactive=available)
        with gr.Column(visible=available):  # results that cannot come are not shown as empty boxes
            gallery = gr.Gallery(label="Literal sentence, then similes 1…k; one row per seed",
                                 columns=1 + DEFAULT_TOP_K, format="png", object_fit="contain", height=520,
                                 elem_id="imagine-topk-gallery")
            table = gr.Dataframe(label="ImaginE of each simile against the literal sentence (mean ± std over seeds)",
                                 interactive=False)
            gr.Markdown(TOPK_NOTE, elem_classes=["studio-note"])

        @guarded
        def run_topk(literal_text, ranked, k_value, n_value, seed_value, steps_value, size_value,
                     request: gr.Request, progress=gr.Progress()):
            with _Session(request) as should_stop:
                result = imagine_top_k(literal_text, _similes_from(ranked, column), k=k_value, seed=seed_value,
                                       n_seeds=n_value, steps=steps_value, size=size_value,
                                       progress=_progress_callback(progress), should_stop=should_stop)
            images = []
            for i, seed_used in enumerate(result.seeds):
                images.append((result.literal_images[i], f"literal · seed {seed_used}"))
                for rank, scored in enumerate(result.similes, start=1):
                    pair = scored.pairs[i]
                    images.append((pair.image_b, f"#{rank} · seed {seed_used} · image {pair.scores.imagine_image:.2f}"
                                                 f" · text&image {pair.scores.imagine_text_image:.2f}"))
            return images, topk_table(result)

        def one_row_per_seed(ranking: pd.DataFrame):
            return gr.Gallery(columns=1 + (0 if ranking is None else len(ranking)))

        event = go_button.click(cancellable(run_topk), inputs=[literal, similes, k, n_seeds, seed, steps, size],
                                outputs=[gallery, table], api_name="imagine_top_k", **RENDER_GROUP)
        event.success(one_row_per_seed, inputs=table, outputs=gallery, api_name="imagine_top_k_layout",
                   api_visibility="undocumented", queue=False)
        stop_button.click(request_stop, cancels=[event], api_name="imagine_top_k_stop", queue=False)
    return accordion
