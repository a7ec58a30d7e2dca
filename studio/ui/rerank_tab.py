"""Rerank tab: HAUSER scores of simile candidates for a literal sentence, and their combined ranking."""
from __future__ import annotations

import csv

import gradio as gr
import pandas as pd

from ..hauser.criteria import DEFAULT_QUALITY_PARTS, DEFAULT_RANK_WEIGHTS, relative_weights
from ..hauser.inputs import MAX_CSV_BYTES, MAX_CSV_ROWS
from ..hauser.scorer import MAX_CANDIDATES, MAX_CHARS
from .imagine_tab import build_imagine_topk
from .common import (after_limit_check, escape, escape_markdown, failed_run, guarded, highlight_pieces,
                     limited_textbox, refuse_over_limit, role_notice, start_run)
from .help import tab_guide
from .session_files import new_download, track

#: every column of a scored row: the CSV download (raw and normalized criteria, components)
COLUMNS = ["rank", "candidate", "quality", "creativity", "informativeness", "relevance", "relevance_norm",
           "logical_consistency", "logical_consistency_norm", "sentiment_consistency", "sentiment_consistency_norm",
           "topic", "vehicle", "event", "kb_level", "nli_verdict", "evidence", "flag"]
#: what the page shows: (title on screen, row key, decimals or None for text) — short titles, numbers rounded, the
#: normalized criteria that make up quality (raw criteria, topic and event only in the download)
SCREEN = [("rank", "rank", 0), ("candidate", "candidate", None), ("quality", "quality", 2),
          ("creativity", "creativity", 2), ("informativeness", "informativeness", 0),
          ("relevance", "relevance_norm", 2), ("logic", "logical_consistency_norm", 2),
          ("sentiment", "sentiment_consistency_norm", 2), ("vehicle", "vehicle", None), ("KB match", "kb_level", None),
          ("flag", "flag_short", None)]
SCREEN_COLUMNS = [title for title, _, _ in SCREEN]
DATATYPES = ["number" if digits is not None else "str" for _, _, digits in SCREEN]
COLUMN_WIDTHS = ["5%", "25%", "7%", "8%", "10%", "8%", "6%", "8%", "8%", "7%", "8%"]
COLOURS = {"topic": "#7cb5ec", "vehicle": "#f7a35c", "event": "#90ed7d"}
#: what each number in the table means, shown under it
SCORES_NOTE = (
    "**rank**: the combined rank, 1 = best (rank weights × the ranks by quality, creativity and informativeness). "
    "**quality** Q = α·relevance + β·logic + γ·sentiment, the three shown normalized (0–1). "
    "**creativity** C = −log(mean KB frequency of the vehicle + 1) + 0.3 × the vehicle's surprisal under the "
    "language model after “Like”: high for a vehicle neither the KB nor the LM expects. **informativeness** I: the vehicle's length in words. **relevance**: how strongly the KB "
    "links topic and vehicle (Eq. 2 or 3; with Eq. 2, a pair it never saw but a simile that states its property, "
    "“as quiet as a grave”, counts the KB's similes that give the vehicle that property), "
    "as log(1 + that) + 0.1 × the LM's PMI of the vehicle — how much more "
    "likely the sentence's own words make it than “Like” alone does (the back-off for the many pairs the "
    "KB never saw; `python -m studio score --lm-relevance 0 --lm-creativity 0` gives the paper's formulas). **logic**: logical consistency, 1 − P(the simile contradicts the literal "
    "sentence); an ironic “as P as V” — the language model finds V at least 4 nats likelier after P's antonym "
    "(“as loud as a whisper”) — is judged by its literal reading (“very soft”), named in the evidence. **sentiment**: sentiment consistency, the change in the probability of the literal sentence's "
    "polarity. These three are min-max normalized among these candidates (0–1; 0.5 when all are equal); their raw "
    "values (relevance ≥ 0, logic 0–1, sentiment −1…1), the topic and the event are in the CSV download, with every "
    "number unrounded (the table shows 2 decimals). **KB match**: how the KB lookup matched (exact, head, "
    "embedding, property, "
    "none). **flag**: “no simile” when no simile with a vehicle was found in the candidate; it is "
    "ranked last.")
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


def _csv_file(groups: list[dict], request: gr.Request | None = None) -> str:
    """Every scored group's rows, each with its literal sentence and the backends used."""
    from ..hauser.scorer import table_rows

    path = new_download(request, suffix="_rerank.csv")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["literal"] + COLUMNS + ["nli_backend", "sentiment_backend", "kb"])
        writer.writeheader()
        for group in groups:
            backends = group["backends"]
            for row in table_rows(group):
                writer.writerow({"literal": group["literal"], **{k: row[k] for k in COLUMNS},
                                 "nli_backend": backends["nli"], "sentiment_backend": backends["sentiment"],
                                 "kb": backends["kb"]})
        return fh.name


def _backends_markdown(group: dict) -> str:
    b, s = group["backends"], group["settings"]
    return (f"**Backends** — logical consistency: {escape(b['nli'])}; sentiment: {escape(b['sentiment'])}; "
            f"relevance/creativity: {escape(b['kb'])} (Eq. {s['relevance'][2:]}), LM back-off "
            f"(λ = {s.get('lm_relevance', 0):g}, μ = {s.get('lm_creativity', 0):g}): {escape(b.get('lm') or 'off')}; "
            f"components: {escape(b['parser'])}.  \n"
            f"α, β, γ = {s['alpha']:.3f}, {s['beta']:.3f}, {s['gamma']:.3f}; rank weights "
            f"{':'.join(f'{w:g}' for w in s['rank_weights'])}. *kb_level* says how each lookup matched the KB "
            "(exact phrase, head noun, embedding neighbour, the stated property, none).")


def _evidence_markdown(group: dict) -> str:
    """Per candidate, best first: the KB instances behind relevance and creativity (top 3, with counts and the
    source files), the LM's view of the vehicle and the NLI verdict. Every piece of text escaped (candidates are
    typed by the user)."""
    from ..hauser.scorer import evidence_text

    lines = ["**Evidence** (the KB pairs, properties and vehicles behind relevance and creativity — top 3 with counts "
             "and the source files they were found in —, the language model's log-probability of the vehicle in the "
             "sentence and after “Like”, and the NLI verdict on literal → candidate):"]
    for c in sorted(group["candidates"], key=lambda c: c["rank"]):
        text = c["candidate"] if len(c["candidate"]) <= 90 else c["candidate"][:88] + "…"
        lines.append(f"- #{c['rank']} {escape_markdown(text)}: "
                     f"{escape_markdown(evidence_text(c) or c['flag'] or '—')}")
    return "\n".join(lines)


def _settings(alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance):
    from ..hauser.scorer import Settings

    return Settings(relative_weights((alpha, beta, gamma)), (w_quality, w_creativity, w_inform), relevance or "eq2")


def _score(groups: list[tuple[str, list[str]]], settings, progress) -> list[dict]:
    from ..hauser.scorer import score_groups

    progress(0.0, desc="scoring")
    scored = [g.to_dict() for g in score_groups(groups, settings, progress=lambda f, what: progress(f, desc=what))]
    if any(c["flag"] for g in scored for c in g["candidates"]):
        gr.Warning("Some candidates hold no simile; they are flagged and ranked last.")
    return scored


def group_label(number: int, group: dict) -> str:
    """The choice naming a scored group in the "Literal sentence shown" dropdown (plain text)."""
    literal = group["literal"] if len(group["literal"]) <= 70 else group["literal"][:68] + "…"
    n = len(group["candidates"])
    return f"{number}. {literal} ({n} candidate{'s' if n != 1 else ''})"


def show_group(group: dict):
    """What the page shows for one scored group: table, winner, chart, backends."""
    from ..hauser.scorer import table_rows

    rows = table_rows(group)
    return (screen_table(rows), highlight_winner(group), criteria_chart(rows),
            _backends_markdown(group) + "\n\n" + _evidence_markdown(group))


def screen_table(rows: list[dict]) -> pd.DataFrame:
    """The rows as the page shows them: SCREEN's titles and columns, numbers rounded."""
    def cell(row, key, digits):
        if key == "flag_short":  # the reason is in the note and the CSV
            return "no simile" if row["flag"] else ""
        value = row[key]
        if digits is None or value is None:
            return value
        return int(value) if digits == 0 else round(float(value), digits)

    return pd.DataFrame([[cell(r, key, digits) for _, key, digits in SCREEN] for r in rows], columns=SCREEN_COLUMNS)


@guarded
def run_rerank(literal, candidates_text, alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance,
               request: gr.Request = None, progress=gr.Progress()):
    from ..errors import InputError
    from ..hauser.inputs import candidates_from_lines

    refuse_over_limit((literal, "literal sentence", MAX_CHARS))
    candidates = candidates_from_lines(candidates_text)
    if not candidates:
        raise InputError("Please enter at least one candidate simile (one per line).")
    settings = _settings(alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance)
    group = _score([(literal, candidates)], settings, progress)[0]
    table, winner, chart, backends = show_group(group)
    # one group: the CSV's group picker is hidden and forgotten
    return (table, winner, chart, _csv_file([group], request), backends,
            gr.update(choices=[], value=None, visible=False), [])


def clear_results():
    """Before an uploaded file is read: nothing from the earlier input stays on screen (a bad file then leaves the
    results empty, under its error)."""
    return None, None, None, None, "", gr.update(choices=[], value=None, visible=False), []


@guarded
def run_csv(path, alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance, request: gr.Request = None,
            progress=gr.Progress()):
    """Score every literal sentence of an uploaded CSV (grouped by literal, in file order); the first group is shown
    and the dropdown picks another. The download holds every group."""
    from ..errors import InputError
    from ..hauser.inputs import groups_from_csv

    if not path:
        raise InputError("No file was uploaded.")
    track(request, path)
    groups = groups_from_csv(path)
    for literal, candidates in groups:
        if len(candidates) > MAX_CANDIDATES:
            short = literal if len(literal) <= 60 else literal[:58] + "…"
            raise InputError(f"The literal sentence “{short}” has {len(candidates)} candidates in the CSV; the limit "
                             f"is {MAX_CANDIDATES} per literal sentence. Nothing was scored.")
    scored = _score(groups, _settings(alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance), progress)
    table, winner, chart, backends = show_group(scored[0])
    labels = [group_label(i + 1, g) for i, g in enumerate(scored)]
    picker = gr.update(choices=labels, value=labels[0], visible=len(scored) > 1,
                       label=f"Literal sentence shown ({len(scored)} scored from the CSV; all in the download)")
    first = scored[0]
    return (table, winner, chart, _csv_file(scored, request), backends, picker, scored, first["literal"],
            "\n".join(c["candidate"] for c in first["candidates"]))


def pick_group(groups: list[dict], label: str | None):
    """The dropdown: show the chosen group (its literal and candidates fill the text boxes, so Imagine top k and a
    re-run use it)."""
    labels = [group_label(i + 1, g) for i, g in enumerate(groups or [])]
    if not groups or label not in labels:
        return (gr.update(),) * 6
    group = groups[labels.index(label)]
    table, winner, chart, backends = show_group(group)
    return table, winner, chart, backends, group["literal"], "\n".join(c["candidate"] for c in group["candidates"])


def fill_from_polish(literal: str, candidates: list[str], polished: str | None = None):
    """What the Polish tab's "Send to Rerank" button puts here: the candidates and the sentence they were made for.
    A box that no longer holds that sentence is refused (its candidates would be scored against another one)."""
    if not candidates:
        raise gr.Error("There are no candidates to send: press Polish first.", title="Nothing to send")
    if polished is not None and (literal or "") != polished:
        raise gr.Error("The candidates were made for the previous sentence: press Polish for this one first.",
                       title="Candidates out of date")
    return literal or "", "\n".join(candidates)


def scoring(after, inputs: list, outputs: list, status, api_name):
    """Chain a scoring run after `after` (a listener such as `button.click` or `dependency.success`): the results it
    replaces are cleared first, the progress and an error's mark sit on the table (never on the input boxes), and
    the status line says it runs, then nothing (done) or why it gave no result. Returns the run's dependency."""
    table = outputs[0]
    start = start_run("Scoring…", None, None, None, None, "", gr.update(choices=[], value=None, visible=False), [])
    run = after(start, outputs=[*outputs, status], api_name=False, queue=False, show_progress="hidden").success(
        run_rerank, inputs=inputs, outputs=outputs, api_name=api_name, show_progress_on=table)
    finish(run, table, status)
    return run


def finish(run, table, status) -> None:
    """After a scoring run: an empty status line when it succeeded, the reason (and no table) when it failed."""
    run.success(lambda: "", outputs=status, api_name=False, queue=False, show_progress="hidden")
    run.failure(failed_run(None), outputs=[table, status], api_name=False, queue=False)


def build_rerank_tab() -> dict:
    """Returns {"literal", "candidates", "rerank_inputs", "rerank_outputs", "run"} for wiring from other tabs."""
    with gr.Tab("Rerank", id="rerank"):
        gr.Markdown("Score simile candidates for a literal sentence with **HAUSER** (He et al., ACL 2023): quality = "
                    "α·relevance + β·logical consistency + γ·sentiment consistency (each min-max normalized among the "
                    "candidates), creativity (rare vehicles) and informativeness (vehicle length); the candidates are "
                    "ranked by each and the three rankings are combined 2:2:1.")
        tab_guide("rerank")
        notice = role_notice("nli", "sentiment", "parser", "embedder", "lm")
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
                                       f"{MAX_CSV_BYTES // 1000} kB and {MAX_CSV_ROWS:,} rows; every literal "
                                       f"sentence is scored, up to {MAX_CANDIDATES} candidates each)",
                                 file_types=[".csv"], elem_id="rerank-upload")
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
        groups = gr.State([])
        status = gr.Markdown(elem_id="rerank-status", label="Status")
        group_choice = gr.Dropdown(choices=[], label="Literal sentence shown", visible=False, interactive=True,
                                   elem_id="rerank-group")
        winner = gr.HighlightedText(label="Winner: topic / vehicle / event", color_map=COLOURS, show_legend=True,
                                    elem_id="rerank-winner")
        table = gr.Dataframe(headers=SCREEN_COLUMNS, datatype=DATATYPES, interactive=False, wrap=True,
                             column_widths=COLUMN_WIDTHS, elem_id="rerank-table", elem_classes=["studio-wide-table"],
                             label="Scores, 2 decimals (click a column header to sort; every raw value in the CSV)")
        gr.Markdown(SCORES_NOTE, elem_classes=["studio-note"])
        chart = gr.Plot(label="Criteria per candidate")
        with gr.Row():
            download = gr.File(label="Scored table (CSV)")
            backends = gr.Markdown(label="Backends")
        inputs = [literal, candidates, alpha, beta, gamma, wq, wc, wi, relevance]
        outputs = [table, winner, chart, download, backends, group_choice, groups]
        scoring(after_limit_check(run.click, (literal, "literal sentence", MAX_CHARS)).success, inputs, outputs, status,
                "rerank")
        # the CSV's run fills the input boxes too; a bad file's error marks the table, not them
        csv_run = upload.upload(start_run("Scoring the CSV…", *clear_results()), outputs=[*outputs, status],
                                api_name=False, queue=False).then(
            run_csv, inputs=[upload, *inputs[2:]], outputs=[*outputs, literal, candidates], api_name="rerank_csv",
            show_progress_on=table)
        finish(csv_run, table, status)
        group_choice.input(pick_group, inputs=[groups, group_choice],
                           outputs=[table, winner, chart, backends, literal, candidates], api_name=False)
        build_imagine_topk(literal, table)
    return {"literal": literal, "candidates": candidates, "rerank_inputs": inputs, "rerank_outputs": outputs,
            "status": status, "run": run_rerank}


def wire_from_polish(polish: dict, rerank: dict, tabs: gr.Tabs) -> None:
    """The Polish tab's "Send to Rerank" button: fill this tab, switch to it and score (generate → rerank in two
    clicks)."""

    def send(literal, candidates, polished):
        text_literal, text_candidates = fill_from_polish(literal, candidates, polished)
        return text_literal, text_candidates, gr.Tabs(selected="rerank")

    # the button is usable only while the Polish tab holds candidates for the sentence in its box (polish_tab.py)
    sent = polish["send_button"].click(
        send, inputs=[polish["literal"], polish["candidates"], polish["polished"]],
        outputs=[rerank["literal"], rerank["candidates"], tabs], api_name=False)
    scoring(sent.success, rerank["rerank_inputs"], rerank["rerank_outputs"], rerank["status"], False)
