"""Proverbs tab (ePiC): the proverbs that fit a narrative, the spans a proverb shares with it, and
narratives with similar motifs."""
from __future__ import annotations

import html

import gradio as gr
import pandas as pd

from ..capabilities import tab_title
from ..proverbs.service import (ALIGNMENT_ROLE, DEFAULT_METHOD, DEFAULT_THRESHOLD, EMBEDDER_ROLE, MAX_NARRATIVE_CHARS,
                                MAX_POOL, METHODS, SHARED_TOP, align, clean_narrative, encoders_ready, get_scorer,
                                ranking, resolve_proverb, similar, spelling_notice, usage_note)
from .common import (after_limit_check, escape, escape_markdown, examples, failed_run, guarded, highlight_pieces,
                     limited_textbox, past_refusal, role_notice, section_run, shorten, spaced, start_run, table_rows)
from .help import tab_guide
from .session_files import result_downloads

# Written for the studio (not from ePiC), one per line of life the proverbs talk about.
EXAMPLES = [
    "Maya had been promising herself for months that she would start her thesis. Every weekend she found a reason "
    "to tidy the flat or visit friends instead. When the deadline was two weeks away she realised she had lost the "
    "whole spring and had to write day and night.",
    "Tom put his entire savings into shares of the small company his cousin had founded. He ignored his bank's advice "
    "to spread the money around. A year later the company went bankrupt and Tom lost everything he had saved.",
    "The new manager spent her first week rearranging the office, replacing the old suppliers and rewriting every "
    "procedure. Some of the staff grumbled, but the shop had never looked so neat.",
    "Leo's neighbour had always been rude to him, yet when Leo's car broke down in the snow the neighbour was the "
    "only one who stopped to help. Leo thanked him and they have been on good terms ever since.",
    "Priya practised the same piano piece for an hour every evening for a year. At first her fingers stumbled over "
    "every bar, but at the spring concert she played it without a single mistake.",
    "When the storm knocked out the power in the village, the baker fired up his wood oven and handed out bread to "
    "everyone, while others only complained about how slow the repair crews were.",
]
PALETTE = ["#f4a261", "#2a9d8f", "#e9c46a", "#8ab17d", "#e76f51", "#6d9dc5", "#b388eb", "#f28482",
           "#90be6d", "#f9c74f", "#577590", "#ff99c8"]
#: pair number -> colour; proverbs have far fewer phrases than colours, so each pair keeps its own colour
COLOURS = {str(i + 1): c for i, c in enumerate(PALETTE)}
#: the full table: the /proverbs API's "top proverbs", shown under *Details* (and in the downloads)
TABLE_COLUMNS = ["rank", "proverb", "meaning", "themes", "probability", "score", "id"]
#: the table on screen: four columns that fit a phone
SCREEN_COLUMNS = ["#", "proverb", "meaning", "fit (%)"]
#: what the screen's numbers mean, shown under the table
TABLE_NOTE = ("**fit (%)**: how likely the scorer finds it that this is the story's proverb, as a share of the whole "
              "catalog (all its proverbs add up to 100 %, so with hundreds of them 5 % can still lead; the scale was "
              "fitted on held-out stories so that the percentages follow how often it is right). Its themes, raw "
              "score and id are under *Details*.")
#: what the details table's numbers mean
DETAILS_NOTE = ("**probability**: the fit as a share of 1 (a softmax over the whole catalog). **score**: the scorer's "
                "raw logit behind it; only differences between proverbs matter.")
PAIR_COLUMNS = ["#", "proverb span", "narrative span", "similarity"]
#: the Similar narratives methods in words (the API takes their names)
METHOD_WORDS = {"proverb-distribution-cosine": "they fit the same proverbs",
                "proverb-distribution-js": "they fit the same proverbs (Jensen-Shannon)",
                "embedding-cosine": "their words mean alike"}
PAIRS_NOTE = ("**similarity**: cosine between the embeddings of the proverb phrase and the narrative span (up to 1; "
              "higher = closer in meaning). Phrases and spans are matched one to one, the best pairing overall that "
              f"keeps the proverb's order where it can; a phrase under {DEFAULT_THRESHOLD:g} stays unaligned, so a "
              "similarity just "
              "above it says the phrase has no real counterpart in the narrative: the pair is the nearest there is, "
              "not a match.")
SIMILAR_COLUMNS = ["#", "similarity", "narrative", "proverbs both fit"]
SIMILAR_NOTE = ("**similarity** (up to 1, higher = more alike) depends on the choice: *they fit the same proverbs*, how "
                "alike the two narratives' fits over the whole catalog are (cosine; *Jensen-Shannon*: 1 − their "
                "Jensen-Shannon distance); *their words mean alike*, the cosine of the narratives' embeddings. A "
                "story fits a few of the catalog's proverbs well and the rest barely, so two stories that share none "
                "of their best proverbs are near 0 by the first two: read the order, and **proverbs both fit**, the "
                f"proverbs among the first story's {SHARED_TOP} best that are among the other's {SHARED_TOP} best.")


def _chart(rows: list[dict]):
    """Bars of each proverb's fit, best on top. Each proverb is written above its bar across the chart's whole width,
    not as an axis label: on a phone, labels beside the bars left them a sliver of the width."""
    import plotly.graph_objects as go

    rows = rows[::-1]
    ranks = [f"#{len(rows) - i}" for i in range(len(rows))]
    # the share beside its bar in a readable size (inside a short bar it was shrunk to a speck), the proverb over its
    # bar with room between them (a visitor's sweep)
    top = max((100 * r["probability"] for r in rows), default=0.0)
    fig = go.Figure(go.Bar(x=[100 * r["probability"] for r in rows], y=ranks, orientation="h", width=0.4,
                           text=[f"{round(100 * float(r['probability']), 1)} %" for r in rows], textposition="outside",
                           textfont=dict(size=12), cliponaxis=False,
                           hovertext=[f"{r['proverb']}: {r['meaning']}" for r in rows], hoverinfo="text"))
    for rank, row in zip(ranks, rows):
        label = shorten(row["proverb"], 52)
        fig.add_annotation(x=0, xref="paper", xanchor="left", y=rank, yshift=21, showarrow=False,
                           text=html.escape(label), font=dict(size=12))
    fig.update_layout(height=90 + 60 * len(rows), margin=dict(l=10, r=10, t=40, b=40),
                      title="How well each proverb fits", xaxis_title="fit (% of the whole catalog)",
                      xaxis=dict(range=[0, max(top * 1.12, 1.0)]), yaxis=dict(automargin=True))
    return fig


def _meaning(row: dict) -> str:
    """The meaning, and the note on a dated or offensive proverb."""
    note = usage_note(row["proverb"])
    return row["meaning"] + (f" ⚠️ {note}" if note else "")


def screen_table(table) -> pd.DataFrame:
    """The page's four columns from the full table: the proverb, its meaning (with a note on a dated or offensive
    one) and its fit in %."""
    if isinstance(table, dict):
        table = pd.DataFrame(table.get("data") or [], columns=table.get("headers") or TABLE_COLUMNS)
    if table is None or not len(table):
        return pd.DataFrame([], columns=SCREEN_COLUMNS)
    rows = table.to_dict("records")
    return pd.DataFrame([[r["rank"], r["proverb"], _meaning(r), round(100 * float(r["probability"]), 1)]
                         for r in rows], columns=SCREEN_COLUMNS)


def scoring_in_words(scorer) -> str:
    """What ranked the proverbs, in plain words (the scorer's own description goes under *Details*)."""
    if scorer.finetuned is not None:
        return ("an encoder fine-tuned on ePiC's stories" +
                ("" if scorer.trained is not None else ", without its learned adapter (a weaker ranking)"))
    if scorer.trained is not None:
        return "a small model trained on ePiC's stories over a general sentence encoder"
    return "plain sentence similarity, untrained (no trained part fits this encoder: a weaker ranking)"


FIRST_LOAD = ("Loading the proverb encoders. On a machine's first use they are exported to int8 and checked "
              "against float32 first, about 2 minutes (`make setup` does this ahead of time).")


@guarded
def recommend(narrative: str, k: float, request: gr.Request = None, progress=gr.Progress()):
    if not encoders_ready():
        progress(0.05, desc=FIRST_LOAD)
    ranked = [r.to_json() for r in ranking(narrative, int(k))]
    table = pd.DataFrame([{**r, "themes": ", ".join(r["themes"])} for r in ranked], columns=TABLE_COLUMNS)
    choices = [r["proverb"] for r in ranked]
    scorer = get_scorer()
    status = f"Scoring: {scoring_in_words(scorer)} ranked the whole catalog."
    if typos := spelling_notice(narrative):
        status = f"✏️ {escape_markdown(typos)}  \n{status}"
    notes = [f"“{r['proverb']}”: {note}" for r in ranked if (note := _usage_note(r["proverb"]))]
    if notes:
        status += "  \n⚠️ " + "  \n⚠️ ".join(notes)
    status += f"\n\n<details><summary>Details: the scorer</summary>\n\n{escape(scorer.description)}\n\n</details>"
    files = result_downloads(request, "proverbs", ranked, {"narrative": narrative.strip(), "k": int(k),
                                                           "scoring": scorer.description})
    return table, _chart(ranked), gr.update(choices=choices, value=choices[0]), status, files, spaced(narrative)


#: under the button when the proverbs on screen were ranked for another narrative than the box holds (Gradio drops
#: a press during a run; an edit leaves the table too)
OTHER_STORY_NOTE = ("⚠️ The proverbs below were ranked for another narrative than the box holds now: press "
                    "**Recommend proverbs** to rank them for it (*Align* and *Find similar narratives* read the box).")


def other_story_note(narrative, ranked_for, table) -> str:
    """`OTHER_STORY_NOTE` while proverbs are on screen and the box differs from the narrative they were ranked for
    (`ranked_for`, returned by the run beside them); "" otherwise."""
    return OTHER_STORY_NOTE if table_rows(table) and ranked_for and spaced(narrative) != ranked_for else ""


def _usage_note(text: str) -> str:
    return usage_note(text)


def _highlight(text: str, spans: list[tuple[int, int, str]]):
    """HighlightedText value: the text cut at the (non-overlapping) spans, each span labelled."""
    return highlight_pieces(text, spans)


@guarded
def show_alignment(narrative: str, proverb: str, request: gr.Request = None):
    narrative = clean_narrative(narrative)
    text, _ = resolve_proverb(proverb)
    pairs = align(narrative, text)
    proverb_hl = _highlight(text, [(p.proverb_span.start, p.proverb_span.end, str(i + 1)) for i, p in enumerate(pairs)])
    narrative_hl = _highlight(narrative, [(p.narrative_span.start, p.narrative_span.end, str(i + 1))
                                          for i, p in enumerate(pairs)])
    table = pd.DataFrame([{"#": i + 1, "proverb span": p.proverb_span.text, "narrative span": p.narrative_span.text,
                           "similarity": round(p.similarity, 2)} for i, p in enumerate(pairs)], columns=PAIR_COLUMNS)
    rows = [{"pair": i + 1, "proverb_span": p.proverb_span.text, "proverb_start": p.proverb_span.start,
             "proverb_end": p.proverb_span.end, "narrative_span": p.narrative_span.text,
             "narrative_start": p.narrative_span.start, "narrative_end": p.narrative_span.end,
             "similarity": p.similarity} for i, p in enumerate(pairs)]
    files = result_downloads(request, "proverbs-aligned", rows, {"narrative": narrative, "proverb": text})
    return proverb_hl, narrative_hl, table, files


def alignment_note(proverb, pairs) -> str:
    """What Align's line says once it answered: that a typed proverb is not one of the catalog's (aligned as typed,
    with no meaning or usage known), and that no phrase of it came near a part of the story; "" otherwise."""
    data = table_rows(pairs)
    rows = sum(any(str(cell).strip() not in ("", "None", "nan") for cell in row) for row in data)  # a blank row: none
    notes = []
    if proverb and resolve_proverb(proverb)[1] is None:
        notes.append(f"“{escape_markdown(shorten(str(proverb).strip()))}” is not one of the catalog's proverbs: it "
                     "was aligned as typed.")
    if not rows:
        notes.append(f"No phrase of the proverb came near a part of the story (each under {DEFAULT_THRESHOLD:g}).")
    return " ".join(notes)


@guarded
def find_similar(narrative: str, pool_text: str, method: str, request: gr.Request = None):
    lines = (pool_text or "").split("\n")  # as typed: a refusal names a narrative by its line
    pool = lines if any(line.strip() for line in lines) else EXAMPLES
    ranked = similar(narrative, pool, method)
    # each proverb quoted: one holds a semicolon ("For want of a nail the shoe was lost; for want of a shoe …")
    table = pd.DataFrame([{"#": i + 1, "similarity": round(r.similarity, 3), "narrative": r.narrative,
                           "proverbs both fit": "; ".join(f"“{p}”" for p in r.shared) or "—"}
                          for i, r in enumerate(ranked)], columns=SIMILAR_COLUMNS)
    rows = [{"rank": i + 1, "similarity": r.similarity, "narrative": r.narrative, "proverbs_both_fit": list(r.shared)}
            for i, r in enumerate(ranked)]
    compared = "the example narratives" if pool is EXAMPLES else "the narratives typed"
    files = result_downloads(request, "proverbs-similar", rows,
                             {"narrative": clean_narrative(narrative), "method": method, "compared with": compared})
    return table, files


def build_proverbs_tab() -> None:
    with gr.Tab(tab_title("proverbs"), id="proverbs"):
        gr.Markdown("Which proverb fits a story? Type a short narrative: the studio ranks its catalog of "
                    "proverbs (ePiC's 250 and more), shows which phrases of a proverb match which parts of your "
                    "story, and finds stories with similar motifs (ePiC, Ghosh & Srivastava, ACL 2022).")
        tab_guide("proverbs")
        gr.Markdown(lambda: role_notice(EMBEDDER_ROLE, ALIGNMENT_ROLE, "parser"))
        with gr.Row():
            with gr.Column(scale=3):
                narrative = limited_textbox(MAX_NARRATIVE_CHARS, label="Narrative", lines=6,
                                            info=f"up to {MAX_NARRATIVE_CHARS:,} characters",
                                       placeholder="A few sentences about something that happened…")
            with gr.Column(scale=1):
                k = gr.Slider(1, 20, value=5, step=1, label="How many proverbs")
                go_button = gr.Button("Recommend proverbs", variant="primary", elem_id="proverbs-go")
                other_story = gr.Markdown(elem_id="proverbs-other-text", elem_classes=["studio-note"])
        examples(EXAMPLES, [narrative], "Example narratives (click one)", run=go_button)
        status = gr.Markdown(elem_classes="studio-note", label="Status", elem_id="proverbs-status")
        table = gr.Dataframe(headers=SCREEN_COLUMNS, datatype=["number", "str", "str", "number"], interactive=False,
                             wrap=True, label="Top proverbs, best first", elem_id="proverbs-table",
                             elem_classes=["studio-fit-table"], column_widths=["8%", "35%", "41%", "16%"],
                             max_height=1400)
        gr.Markdown(TABLE_NOTE, elem_classes=["studio-note"])
        downloads = gr.File(label="Top proverbs (CSV and JSON)", file_count="multiple")
        with gr.Accordion("Details: themes, raw scores and ids", open=False):
            full = gr.Dataframe(headers=TABLE_COLUMNS, interactive=False, wrap=True, label="Top proverbs",
                                elem_classes=["studio-wide-table", "studio-text-2"])
            gr.Markdown(DETAILS_NOTE, elem_classes=["studio-note"])
        chart = gr.Plot(label="Scores")
        gr.Markdown("### Aligned spans\nChoose a proverb (or type any proverb): each colour marks a phrase of the "
                    "proverb and the part of the narrative matched to it.")
        with gr.Row():
            proverb = gr.Dropdown(choices=[], allow_custom_value=True, label="Proverb", scale=3,
                                  elem_id="proverbs-proverb")
            align_button = gr.Button("Align", scale=1)
        align_status = gr.Markdown(elem_id="proverbs-align-status")
        proverb_hl = gr.HighlightedText(label="Proverb", color_map=COLOURS, show_legend=False)
        narrative_hl = gr.HighlightedText(label="Narrative", color_map=COLOURS, show_legend=False)
        pairs = gr.Dataframe(headers=PAIR_COLUMNS, datatype=["number", "str", "str", "number"], interactive=False,
                             wrap=True, label="Aligned pairs", elem_id="proverbs-pairs",
                             elem_classes=["studio-fit-table"], column_widths=["8%", "35%", "34%", "23%"])
        gr.Markdown(PAIRS_NOTE, elem_classes=["studio-note"])
        pair_files = gr.File(label="Aligned pairs (CSV and JSON, with each span's character offsets)",
                             file_count="multiple", elem_id="proverbs-pair-files")
        gr.Markdown("### Similar narratives\nOther narratives ranked by how alike their proverb distributions are "
                    "(leave the box empty to compare with the example narratives).")
        with gr.Row():
            # min_width: on a phone the radio goes under the box, which was squeezed to 140 px beside it
            pool = gr.Textbox(label="Narratives to compare (one per line)", lines=4, scale=3, min_width=320,
                              info=f"at most {MAX_POOL} narratives of up to {MAX_NARRATIVE_CHARS:,} characters each")
            method = gr.Radio([(METHOD_WORDS.get(m, m), m) for m in METHODS], value=DEFAULT_METHOD,
                              label="Similarity", scale=1)
        similar_button = gr.Button("Find similar narratives")
        similar_status = gr.Markdown(elem_id="proverbs-similar-status")
        similar_table = gr.Dataframe(headers=SIMILAR_COLUMNS, datatype=["number", "number", "str", "str"],
                                     interactive=False, wrap=True, label="Similar narratives",
                                     elem_id="proverbs-similar", elem_classes=["studio-fit-table"],
                                     column_widths=["9%", "23%", "40%", "28%"])
        gr.Markdown(SIMILAR_NOTE, elem_classes=["studio-note"])
        similar_files = gr.File(label="Similar narratives (CSV and JSON)", file_count="multiple",
                                elem_id="proverbs-similar-files")

        narrative_limit = (narrative, "narrative", MAX_NARRATIVE_CHARS)
        ranked_for = gr.State(None)  # the narrative the proverbs on screen were ranked for, returned by the run
        narrative.change(other_story_note, [narrative, ranked_for, full], other_story, api_name=False, queue=False,
                         show_progress="hidden")
        # the earlier narrative's results go first (a refusal leaves none of them on screen); an error's mark sits
        # on the table and the status line says why
        values = (None, None, None, gr.update(choices=[], value=None), None, None, None, None, None, None, None, None,
                  "", "", "")
        start = start_run("Ranking the proverbs…", *values)
        cleared = [table, full, chart, proverb, downloads, proverb_hl, narrative_hl, pairs, pair_files, similar_table,
                   similar_files, ranked_for, other_story, align_status, similar_status, status]
        aligned = [proverb_hl, narrative_hl, pairs, pair_files]
        for trigger, api_name in ((go_button.click, "proverbs"), (narrative.submit, False)):
            ranked = after_limit_check(trigger, narrative_limit, clears=(cleared, values)).success(
                start, outputs=cleared, api_name=False, queue=False, show_progress="hidden").success(
                recommend, inputs=[narrative, k], outputs=[full, chart, proverb, status, downloads, ranked_for],
                api_name=api_name, show_progress_on=table)
            ranked.success(screen_table, inputs=full, outputs=table, api_name=False, queue=False,
                           show_progress="hidden")
            section_run(ranked.success, show_alignment, [narrative, proverb], aligned, align_status,
                        busy="Aligning…", api_name=False, note=alignment_note, note_inputs=[proverb, pairs])
            ranked.failure(failed_run(None, None), outputs=[table, full, status], api_name=False, queue=False)
            for end in (ranked.success, ranked.failure):
                end(other_story_note, [narrative, ranked_for, full], other_story, api_name=False, queue=False,
                    show_progress="hidden")
        # Align and Find similar: each section's own line says why it has no result (an over-long narrative too);
        # one that answers takes an earlier refusal of the narrative off the ranking's line
        runs = [section_run(align_button.click, show_alignment, [narrative, proverb], aligned, align_status,
                            busy="Aligning…", api_name="align", checks=(narrative_limit,), note=alignment_note,
                            note_inputs=[proverb, pairs]),
                section_run(proverb.select, show_alignment, [narrative, proverb], aligned, align_status,
                            busy="Aligning…", api_name=False, note=alignment_note, note_inputs=[proverb, pairs]),
                section_run(similar_button.click, find_similar, [narrative, pool, method],
                            [similar_table, similar_files], similar_status, busy="Comparing the narratives…",
                            api_name="similar", checks=(narrative_limit,))]
        for run in runs:
            run.success(past_refusal, inputs=status, outputs=status, api_name=False, queue=False,
                        show_progress="hidden")
