"""Polish tab: simile candidates for a literal sentence, and the components of any simile."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from ..similes.analysis import MAX_SENTENCE_CHARS
from ..similes.polish import (DEFAULT_STRATEGIES, KEEP_MEANING, MAX_CHARS, MAX_N, PROPERTY_FIRST, RANKING, SCORE_MEANING,
                              STRATEGIES)
from ..similes.writer_vehicles import DOMAINS, REGISTERS
from .common import (after_limit_check, cancellable, cancelled, escape, failed_run, guarded, highlight_pieces,
                     limited_textbox, refuse_over_limit, role_notice, start_run, stopped_line)
from .help import tab_guide
from .session_files import result_downloads

COLUMNS = ["candidate", "simile phrase", "source", "KB", "keep", "score"]
#: what each number in the table means, shown under it
SCORE_NOTE = (f"With the *writer* source ticked: for an adjective the knowledge base's {PROPERTY_FIRST} best vehicles "
              "(source *property*, by keep, or by score without the ranker) come first; then the writer's images in the writer's own order, without a keep (the "
              "ranker was fitted on the other sources); then the other sources' candidates, by keep.\n\n**" + KEEP_MEANING.replace(" = ", "**: ", 1) + " Without the ranker (the hub and tiny profiles: another "
              "embedder than it was fitted with) the column is empty and " + RANKING[0].lower() + RANKING[1:] +
              "\n\n**" + SCORE_MEANING.replace(" = ", "**: ", 1))
EXAMPLES_LITERAL = [
    # literal sentences of the HAUSER paper's examples
    ["He yelps and howls."],
    ["As for Paganel, he wept who does not think of hiding his emotion."],
    ["The lake was calm."],
    # our own
    ["She ran down the stairs."],
    ["The old house creaked in the wind."],
]
EXAMPLES_SIMILE = [
    ["He wept like a child who does not think of hiding his emotion."],
    ["She was cool as a cucumber, and as light as a feather on her feet."],
    ["He was as happy as a kid in a candy store."],
    ["I like tea, and things like that."],
]
COLOURS = {"topic": "#7cb5ec", "vehicle": "#f7a35c", "event": "#90ed7d", "property": "#e4d354",
           "comparator": "#c8c8c8"}


def _highlight(sentence: str, offset: int, phrase: str) -> str:
    """Markdown with the inserted phrase in bold; the text itself is escaped."""
    before, after = sentence[:offset], sentence[offset + len(phrase):]
    return f"{escape(before)}**{escape(phrase)}**{escape(after)}"


@guarded
def run_polish(literal: str, strategies: list[str], n: float, seed: float, domain: str = "any",
               register: str = "plain", request: gr.Request = None, progress=gr.Progress()):
    from ..errors import InputError
    from ..similes.polish import polish_report

    refuse_over_limit((literal, "literal sentence", MAX_CHARS))
    if not strategies:
        raise InputError("Choose at least one strategy.")
    cands, report = polish_report(literal, n=int(n), strategies=list(strategies), seed=int(seed),
                                  progress=lambda fraction, what: progress(fraction, desc=what),
                                  should_stop=cancelled, domain=domain or "any", register=register or "plain")
    rows = [[_highlight(c.sentence, c.offset, c.phrase), c.phrase, c.strategy, "✓" if c.attested else "", c.keep,
             c.score] for c in cands]
    if not rows:
        gr.Warning("No candidate survived the filters; try other strategies or another seed.")
    ranked = {"keep": "ranked by keep", "score": "ranked by score (no ranker served)"}.get(
        report["ranked_by"], f"ranked by {report['ranked_by']}")
    status = (f"⚠️ {report['shortfall']}" if report["shortfall"] else
              f"{report['delivered']} of the {report['asked']} candidates asked ({report['generator']}; {ranked}).")
    if report.get("expected_keepers") is not None and rows:
        status += (f" A writer would keep about {report['expected_keepers']:.0f} of them (their keeps summed)"
                   + ("; few apt images were found for this sentence: try rewording it." if
                      report["expected_keepers"] < 2.5 else "."))
    files = result_downloads(request, "polish", [
        {"rank": i + 1, "candidate": c.sentence, "inserted phrase": c.phrase, "strategy": c.strategy, "keep": c.keep,
         "score": c.score, "vehicle": c.vehicle, "KB attests": c.attested} for i, c in enumerate(cands)],
        {"literal": literal, "strategies": list(strategies), "candidates asked": int(n), "seed": int(seed),
         "image domain": domain, "register": register,
         "score": SCORE_MEANING, "keep": KEEP_MEANING,
         "ranking": report["ranked_by"], "generator": report["generator"],
         "delivered": report["delivered"], "expected keepers": report.get("expected_keepers"),
         "shortfall": report["shortfall"]})
    return pd.DataFrame(rows, columns=COLUMNS), [c.sentence for c in cands], files, status, literal


@guarded
def run_components(sentence: str):
    from ..similes.analysis import analyse

    refuse_over_limit((sentence, "sentence", MAX_SENTENCE_CHARS))
    result = analyse(sentence)
    text = result["sentence"]
    marks = []
    for s in result["similes"]:
        for part, (a, b) in s["spans"].items():
            if part == "comparator" and "property" in s["spans"]:
                continue  # "as light as" would swallow the property's own colour
            marks.append((a, b, part))
    return highlight_pieces(text, marks), result


#: the note beside the buttons when the box no longer holds the sentence the candidates were made for
STALE_NOTE = ("⚠️ The candidates below were made for the previous sentence: press **Polish** for this one "
              "(*Send to Rerank* waits until then).")


def send_state(candidates: list[str], literal: str | None, polished: str | None):
    """Send to Rerank is usable only while the box holds the sentence its candidates were made for; else a note."""
    fresh = bool(candidates) and (literal or "") == (polished or "")
    return gr.Button(interactive=fresh), (STALE_NOTE if candidates and not fresh else "")


def candidate_selected(state: list[str], evt: gr.SelectData):
    if not state or evt.index is None:
        return gr.update()
    row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    return state[row] if 0 <= row < len(state) else gr.update()


def build_polish_tab() -> dict:
    """Returns the components other tabs wire to: {"literal", "candidates_table", "candidates", "polished",
    "send_button"}. `candidates` is a gr.State holding the list of candidate sentences (best first), `polished` the
    sentence they were made for."""
    with gr.Tab("Polish", id="polish"):
        gr.Markdown("Turn a **literal sentence** into simile candidates. The comparison goes where English puts "
                    "it — *as ADJ as …* for a predicated adjective (\"was very loud\" → \"was as loud as "
                    "thunder\"), *like …* at the end of a verb's phrase — and the sources propose the vehicles: "
                    "*writer* (off by default: the writer model, Qwen2.5-Coder-1.5B-Instruct, asked for images "
                    "famous for the quality compared; steer it with *Image domain* and *Register*), *lm* (the polisher, a language model fine-tuned on literal → simile pairs), *retrieval* "
                    "(BM25 over the knowledge base's simile contexts), *property* (vehicles typical of the "
                    "adjective or of the event's salient property) and *insertion* (the knowledge base's most "
                    "frequent vehicles; off by default). One vehicle appears once; near duplicates (the same vehicle "
                    "head, or one modifier: *a mournful sigh* / *a mournful cry*) are merged; when fewer distinct "
                    "candidates than asked exist, the line above the table says how many and why.")
        tab_guide("polish")
        notice = role_notice("writer", "lm", "parser")
        if notice:
            gr.Markdown(notice)
        with gr.Row():
            literal = limited_textbox(MAX_CHARS, label="Literal sentence", value="He yelps and howls.", scale=3,
                                      max_lines=3, info=f"up to {MAX_CHARS} characters")
            with gr.Column(scale=2):
                strategies = gr.CheckboxGroup(list(STRATEGIES), value=list(DEFAULT_STRATEGIES), label="Sources of vehicles")
                with gr.Row():
                    n = gr.Slider(1, MAX_N, value=10, step=1, label="Candidates")
                    seed = gr.Number(value=0, precision=0, label="Seed")
                with gr.Row():
                    domain = gr.Dropdown(list(DOMAINS), value="any", label="Image domain (writer)",
                                         info="where the writer's images come from")
                    register = gr.Radio(list(REGISTERS), value="plain", label="Register (writer)")
        with gr.Row():
            go = gr.Button("Polish", variant="primary")
            stop = gr.Button("Stop", variant="stop")
            send = gr.Button("Send to Rerank", interactive=False, elem_id="polish-send")
        stale = gr.Markdown(elem_id="polish-stale")
        gr.Examples(EXAMPLES_LITERAL, inputs=[literal], label="Literal sentences")
        status = gr.Markdown(elem_id="polish-status", label="Status")
        table = gr.Dataframe(headers=COLUMNS, datatype=["markdown", "str", "str", "str", "number", "number"], interactive=False,
                             elem_classes=["studio-wide-table", "studio-text-1"],
                             wrap=True, label="Candidates (inserted phrase in bold; click a row to see its components)")
        gr.Markdown(SCORE_NOTE, elem_classes=["studio-note"])
        downloads = gr.File(label="Candidates (CSV and JSON)", file_count="multiple")
        candidates = gr.State([])
        polished = gr.State("")  # the sentence (as typed) the candidates were made for
        gr.Markdown("### Components of a simile")
        with gr.Row():
            sentence = limited_textbox(MAX_SENTENCE_CHARS, label="Simile sentence", value=EXAMPLES_SIMILE[0][0],
                                       scale=3, max_lines=3, info=f"up to {MAX_SENTENCE_CHARS:,} characters")
            show = gr.Button("Show components", scale=1)
        gr.Examples(EXAMPLES_SIMILE, inputs=[sentence], label="Similes (and literal 'like')")
        highlighted = gr.HighlightedText(label="Topic / vehicle / event / property", color_map=COLOURS,
                                         show_legend=True, combine_adjacent=False)
        details = gr.JSON(label="Components")
        literal_limit = (literal, "literal sentence", MAX_CHARS)
        polish_outputs = [table, candidates, downloads, status, polished]
        # the earlier result goes first (an error or a Stop leaves none of it on screen); the progress and an error's
        # mark sit on the table, and a failed run's status line says why
        start = start_run("Polishing…", None, [], None, "", gr.Button(interactive=False), "")
        send_args = dict(fn=send_state, inputs=[candidates, literal, polished], outputs=[send, stale], api_name=False,
                         queue=False, show_progress="hidden")
        runs = [after_limit_check(trigger, literal_limit).success(
                    start, outputs=[table, candidates, downloads, polished, send, stale, status], api_name=False,
                    queue=False, show_progress="hidden").success(
                    cancellable(run_polish), inputs=[literal, strategies, n, seed, domain, register],
                    outputs=polish_outputs, api_name=api_name, show_progress_on=table)
                for trigger, api_name in ((go.click, "polish"), (literal.submit, False))]
        for run in runs:
            run.success(**send_args)
            run.failure(failed_run(None), outputs=[table, status], api_name=False, queue=False)
        # Stop cancels the run: the worker sees `cancelled()` at its next strategy or batch and ends
        stop.click(stopped_line("no candidates for this sentence; press Polish to run it again."), inputs=status,
                   outputs=status, cancels=runs, api_name=False, queue=False)
        literal.change(**send_args)
        after_limit_check(show.click, (sentence, "sentence", MAX_SENTENCE_CHARS)).success(
            run_components, inputs=sentence, outputs=[highlighted, details], api_name="components")
        table.select(candidate_selected, inputs=candidates, outputs=sentence, api_name=False).then(
            run_components, inputs=sentence, outputs=[highlighted, details], api_name=False)
    return {"literal": literal, "candidates_table": table, "candidates": candidates, "polished": polished,
            "send_button": send}
