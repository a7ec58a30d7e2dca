"""Rerank tab: HAUSER scores of simile candidates for a literal sentence, and their combined ranking."""
from __future__ import annotations

import csv

import gradio as gr
import pandas as pd

from ..hauser.criteria import DEFAULT_QUALITY_PARTS, DEFAULT_RANK_WEIGHTS, relative_weights
from ..hauser.inputs import MAX_CSV_BYTES, MAX_CSV_ROWS
from ..hauser.scorer import MAX_CANDIDATES, MAX_CHARS
from .imagine_tab import build_imagine_topk
from .common import (after_limit_check, escape, guarded, highlight_pieces, limited_textbox, refuse_over_limit,
                     role_notice)
from .session_files import new_download, track

COLUMNS = ["rank", "candidate", "quality", "creativity", "informativeness", "relevance", "relevance_norm",
           "logical_consistency", "logical_consistency_norm", "sentiment_consistency", "sentiment_consistency_norm",
           "topic", "vehicle", "event", "kb_level", "flag"]
DATATYPES = ["number", "str", "number", "number", "number", "number", "number", "number", "number", "number", "number",
             "str", "str", "str", "str", "str"]
COLOURS = {"topic": "#7cb5ec", "vehicle": "#f7a35c", "event": "#90ed7d"}
#: what each number in the table means, shown under it
SCORES_NOTE = (
    "**rank**: the combined rank, 1 = best (rank weights × the ranks by quality, creativity and informativeness). "
    "**quality** Q = α·relevance_norm + β·logical_consistency_norm + γ·sentiment_consistency_norm (0–1). "
    "**creativity** C = −log(mean KB frequency of the vehicle + 1): 0 for a vehicle the KB never saw, more negative "
    "for common ones. **informativeness** I: the vehicle's length in words. **relevance** r: how strongly the KB "
    "links topic and vehicle (Eq. 2 or 3; 0 = no link). **logical_consistency** c_l = 1 − P(the simile contradicts "
    "the literal sentence), 0–1. **sentiment_consistency** c_s: the change in the probability of the literal "
    "sentence's polarity, −1…1 (0 = unchanged). Columns ending in **_norm** are min-max normalized among these "
    "candidates (0–1; 0.5 when all are equal). **kb_level**: how the KB lookup matched (exact, head, embedding, none).")
EXAMPLES = [
    ["As for Paganel, he wept who does not think of hiding his emotion.",
     "As for Paganel, he wept like a child who does not think of hiding his emotion.\n"
     "As for Paganel, he wept like a person who does not think of hiding his emotion.\n"
     "As for Paganel, he wept like a little boy who does not think of hiding his emotion.\n"
     "As for Paganel, he wept who does not think of hiding his emotion."],
    ["Some raindrops struck the roof, window and ran down its panes.",
     "Some raindrops struck the roof, window and ran down its panes like diamonds.\n"
     "Some raindrops struck the roof, window and ran down its panes like tears.\n"
     "Some raindrops struck the roof, window and ran down its panes like arrows.\n"
     "Some raindrops struck the roof, window and ran down its panes like a stream of diamonds."],
    ["Stefan moved, every movement easy and precisely controlled.",
     "Stefan moved like a ballerina, every movement easy and precisely controlled.\n"
     "Stefan moved like a predator, every movement easy and precisely controlled.\n"
     "Stefan moved like water, every movement easy and precisely controlled.\n"
     "Stefan moved like hell, every movement easy and precisely controlled."],
]


def highlight_winner(group: dict) -> list[tuple[str, str | None]]:
    """The best candidate with its first simile's topic, vehicle and event marked (plain text, no HTML)."""
    best = min(group["candidates"], key=lambda c: c["rank"])
    text = best["candidate"]
    first = next((s for s in best["similes"] if s.get("vehicle")), None)
    if first is None:
        return [(text, None)]
    return highlight_pieces(text, [(a, b, part) for part, (a, b) in first["spans"].items() if part in COLOURS])


def criteria_chart(rows: list[dict]):
    """Normalized quality criteria and Q per candidate (top), raw creativity and informativeness (bottom)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    labels = [f"#{r['rank']} {(r['vehicle'] or r['candidate'])[:28]}" for r in rows]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("quality and its normalized criteria (0–1)", "creativity and informativeness"))
    for key, name in (("relevance_norm", "relevance r′"), ("logical_consistency_norm", "logical c_l′"),
                      ("sentiment_consistency_norm", "sentiment c_s′"), ("quality", "quality Q")):
        fig.add_trace(go.Bar(name=name, x=labels, y=[r[key] for r in rows]), row=1, col=1)
    for key, name in (("creativity", "creativity C"), ("informativeness", "informativeness I")):
        fig.add_trace(go.Bar(name=name, x=labels, y=[r[key] for r in rows]), row=2, col=1)
    fig.update_layout(barmode="group", height=560, margin=dict(l=40, r=20, t=50, b=40), legend_orientation="h")
    return fig


def _csv_file(rows: list[dict], literal: str, backends: dict, request: gr.Request | None = None) -> str:
    path = new_download(request, suffix="_rerank.csv")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["literal"] + COLUMNS + ["nli_backend", "sentiment_backend", "kb"])
        writer.writeheader()
        for row in rows:
            writer.writerow({"literal": literal, **{k: row[k] for k in COLUMNS}, "nli_backend": backends["nli"],
                             "sentiment_backend": backends["sentiment"], "kb": backends["kb"]})
        return fh.name


def _backends_markdown(group: dict) -> str:
    b, s = group["backends"], group["settings"]
    return (f"**Backends** — logical consistency: {escape(b['nli'])}; sentiment: {escape(b['sentiment'])}; "
            f"relevance/creativity: {escape(b['kb'])} (Eq. {s['relevance'][2:]}); "
            f"components: {escape(b['parser'])}.  \n"
            f"α, β, γ = {s['alpha']:.3f}, {s['beta']:.3f}, {s['gamma']:.3f}; rank weights "
            f"{':'.join(f'{w:g}' for w in s['rank_weights'])}. *kb_level* says how each lookup matched the KB "
            "(exact phrase, head noun, embedding neighbour, none).")


@guarded
def run_rerank(literal, candidates_text, alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance,
               request: gr.Request = None, progress=gr.Progress()):
    from ..errors import InputError
    from ..hauser.inputs import candidates_from_lines
    from ..hauser.scorer import Settings, score_groups, table_rows

    refuse_over_limit((literal, "literal sentence", MAX_CHARS))
    candidates = candidates_from_lines(candidates_text)
    if not candidates:
        raise InputError("Please enter at least one candidate simile (one per line).")
    settings = Settings(relative_weights((alpha, beta, gamma)), (w_quality, w_creativity, w_inform),
                        relevance or "eq2")
    progress(0.0, desc="scoring")
    group = score_groups([(literal, candidates)], settings,
                         progress=lambda f, what: progress(f, desc=what))[0].to_dict()
    rows = table_rows(group)
    if any(r["flag"] for r in rows):
        gr.Warning("Some candidates hold no simile; they are flagged and ranked last.")
    table = pd.DataFrame([{k: r[k] for k in COLUMNS} for r in rows], columns=COLUMNS)
    download = _csv_file(rows, group["literal"], group["backends"], request)
    return table, highlight_winner(group), criteria_chart(rows), download, _backends_markdown(group)


@guarded
def load_csv(path, request: gr.Request = None):
    from ..hauser.inputs import groups_from_csv

    if not path:
        return gr.update(), gr.update()
    track(request, path)
    groups = groups_from_csv(path)
    if len(groups) > 1:
        gr.Warning(f"The CSV holds {len(groups)} literal sentences; the first one is loaded "
                   "(score whole files with `python -m studio score --batch`).")
    literal, candidates = groups[0]
    if len(candidates) > MAX_CANDIDATES:
        gr.Warning(f"The first sentence has {len(candidates)} candidates; the first {MAX_CANDIDATES} are loaded "
                   f"(the limit per sentence).")
        candidates = candidates[:MAX_CANDIDATES]
    return literal, "\n".join(candidates)


def fill_from_polish(literal: str, candidates: list[str]):
    """What the Polish tab's "Send to Rerank" button puts here."""
    return literal or "", "\n".join(candidates or [])


def build_rerank_tab() -> dict:
    """Returns {"literal", "candidates", "rerank_inputs", "rerank_outputs", "run"} for wiring from other tabs."""
    with gr.Tab("Rerank", id="rerank"):
        gr.Markdown("Score simile candidates for a literal sentence with **HAUSER** (He et al., ACL 2023): quality = "
                    "α·relevance + β·logical consistency + γ·sentiment consistency (each min-max normalized among the "
                    "candidates), creativity (rare vehicles) and informativeness (vehicle length); the candidates are "
                    "ranked by each and the three rankings are combined 2:2:1.")
        notice = role_notice("nli", "sentiment", "parser", "embedder")
        if notice:
            gr.Markdown(notice)
        with gr.Row():
            with gr.Column(scale=3):
                literal = limited_textbox(MAX_CHARS, label="Literal sentence", value=EXAMPLES[0][0], max_lines=3,
                                          info=f"up to {MAX_CHARS:,} characters")
                candidates = gr.Textbox(label=f"Candidates (one per line, at most {MAX_CANDIDATES})",
                                        info=f"each up to {MAX_CHARS:,} characters",
                                        value=EXAMPLES[0][1], lines=6)
                upload = gr.File(label=f"…or upload a CSV with columns literal,candidate (at most "
                                       f"{MAX_CSV_BYTES // 1000} kB and {MAX_CSV_ROWS:,} rows)", file_types=[".csv"])
            with gr.Column(scale=2):
                gr.Markdown("Quality weights α : β : γ in parts (the paper's 3 : 2 : 1); they are divided by their "
                            "sum, so 3 : 2 : 1 means α, β, γ = 0.5, 0.33, 0.17.", elem_classes=["studio-note"])
                alpha = gr.Slider(0, 6, value=DEFAULT_QUALITY_PARTS[0], step=1, label="α (relevance), parts")
                beta = gr.Slider(0, 6, value=DEFAULT_QUALITY_PARTS[1], step=1, label="β (logical consistency), parts")
                gamma = gr.Slider(0, 6, value=DEFAULT_QUALITY_PARTS[2], step=1,
                                  label="γ (sentiment consistency), parts")
                with gr.Row():
                    wq = gr.Slider(0, 5, value=DEFAULT_RANK_WEIGHTS[0], step=0.5, label="rank weight: quality")
                    wc = gr.Slider(0, 5, value=DEFAULT_RANK_WEIGHTS[1], step=0.5, label="creativity")
                    wi = gr.Slider(0, 5, value=DEFAULT_RANK_WEIGHTS[2], step=0.5, label="informativeness")
                relevance = gr.Radio([("Eq. 2: Σ n·P over KB triplets", "eq2"), ("Eq. 3: pair count n(t, v)", "eq3")],
                                     value="eq2", label="Relevance")
        run = gr.Button("Rerank", variant="primary")
        gr.Examples(EXAMPLES, inputs=[literal, candidates], label="Examples (from the HAUSER paper)")
        winner = gr.HighlightedText(label="Winner: topic / vehicle / event", color_map=COLOURS, show_legend=True)
        table = gr.Dataframe(headers=COLUMNS, datatype=DATATYPES, interactive=False, wrap=True,
                             label="Scores (click a column header to sort)")
        gr.Markdown(SCORES_NOTE, elem_classes=["studio-note"])
        chart = gr.Plot(label="Criteria per candidate")
        with gr.Row():
            download = gr.File(label="Scored table (CSV)")
            backends = gr.Markdown()
        inputs = [literal, candidates, alpha, beta, gamma, wq, wc, wi, relevance]
        outputs = [table, winner, chart, download, backends]
        after_limit_check(run.click, (literal, "literal sentence", MAX_CHARS)).success(
            run_rerank, inputs=inputs, outputs=outputs, api_name="rerank")
        upload.upload(load_csv, inputs=upload, outputs=[literal, candidates], api_name="rerank_load_csv")
        build_imagine_topk(literal, table)
    return {"literal": literal, "candidates": candidates, "rerank_inputs": inputs, "rerank_outputs": outputs,
            "run": run_rerank}


def wire_from_polish(polish: dict, rerank: dict, tabs: gr.Tabs) -> None:
    """The Polish tab's "Send to Rerank" button: fill this tab, switch to it and score (generate → rerank in two
    clicks)."""

    def send(literal, candidates):
        text_literal, text_candidates = fill_from_polish(literal, candidates)
        return text_literal, text_candidates, gr.Tabs(selected="rerank")

    # the button starts disabled; it becomes usable once the Polish tab holds candidates
    polish["candidates"].change(lambda cands: gr.Button(interactive=bool(cands)), inputs=polish["candidates"],
                                outputs=polish["send_button"], api_name=False)
    polish["send_button"].click(
        send, inputs=[polish["literal"], polish["candidates"]], outputs=[rerank["literal"], rerank["candidates"], tabs],
        api_name=False,
    ).then(rerank["run"], inputs=rerank["rerank_inputs"], outputs=rerank["rerank_outputs"], api_name=False)
