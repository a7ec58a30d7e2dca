"""Polish tab: simile candidates for a literal sentence, and the components of any simile."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from ..capabilities import tab_title
from ..results import polish_blind_read
from ..similes.service import (DEFAULT_STRATEGIES, DOMAINS, KEEP_MEANING, MAX_CHARS, MAX_N, MAX_SENTENCE_CHARS,
                               PROPERTY_FIRST, RANKING, REGISTERS, SCORE_MEANING, STRATEGIES, WRITER_ORDER,
                               WRITER_POLISHER, WRITER_READS, WRITER_READS_TOP, PolishResult, components, polish,
                               few_apt_images, like_with_like_reason, offered, respelled_with_place, spelling_note,
                               why_no_comparison, without_simile)
from .common import (after_limit_check, cancellable, cancelled, escape_markdown, examples, failed_run, guarded,
                     highlight_pieces, limited_textbox, role_notice, section_run, start_run, stopped_line,
                     table_rows, unescape_markdown, warn)
from .help import tab_guide
from .session_files import result_downloads

#: the plain table (the /polish API's candidates, the page's "Details" table and the downloads): every number
COLUMNS = ["candidate", "simile phrase", "source", "KB", "keep", "score"]
#: the table on screen: the candidate with its inserted phrase in bold, where it came from, and the one number that
#: ranks it (keep; the polisher's fluency when no ranker is served)
SCREEN_COLUMNS = ["candidate", "source", "keep (0–1)"]
FLUENCY_COLUMN = "fluency (0–1)"
#: what each number in the table means, shown under it
SCORE_NOTE = ("**keep (0–1)**: the keep model's estimate of how likely a writer is to keep the candidate, fitted "
              "on our own blind reads; the list is best first by keep, except where the status line above says some "
              "images lead it in their own order (the writer source's; the image table's past place 20, or all of "
              "them when the writer model could not read the list again). Before the list is cut, the writer model "
              "reads the 20 best candidates again, and their keep takes in how likely it finds the simile in the "
              "sentence. "
              "Keep orders the lines better than it counts them: a strict reader of new sentences keeps far fewer "
              "than keep says, and the line above the table says what share. "
              "**fluency (0–1)** (shown instead when no keep model is served, and in *Details*): how readily the "
              "polisher writes this simile for this sentence; it says nothing about creativity (*Send to Rerank* "
              "scores that). **KB ✓** after the source: a simile of the knowledge base's sources gives this image "
              "this adjective (\"as sweet as honey\"); once is enough, so it says the pairing was written, not that "
              "it is apt (\"as warm as a fish\" has one). Which 20 the writer model reads: the *images* source's "
              "lines first, then (with "
              f"the *writer* source, for an adjective) the knowledge base's {PROPERTY_FIRST} best images and the "
              "writer's, then the rest by keep. Should the writer model fail to reread, that is the order shown, and "
              "the *images* and *writer* lines have no keep.")
#: what the details table's columns mean (the paper-level definitions)
DETAILS_NOTE = ("**" + KEEP_MEANING.replace(" = ", "**: ", 1) + " Without the ranker (the hub and tiny profiles: "
                "another embedder than it was fitted with) the column is empty and " + RANKING[0].lower() +
                RANKING[1:] + "\n\n**" + SCORE_MEANING.replace(" = ", "**: ", 1))
#: the sources of vehicles, in plain words (the technical names in the details under them)
SOURCE_WORDS = {
    "images": "images English typically compares the quality to (for an action, the quality of its manner: "
              "*slowly* → slow), from a table the studio distilled from the writing model and checked against the "
              "knowledge base",
    "writer": "a larger writing model asked for images famous for the quality compared, steered by *Image domain* "
              "and *Register*",
    "lm": "the writing model trained on pairs of literal sentences and their similes (a small model where that "
          "training does not fit)",
    "retrieval": "similes in the knowledge base whose words around the comparison resemble your sentence's",
    "property": "images typical of the adjective, or of what the action is known for",
    "insertion": "the knowledge base's most frequent images",
}
SOURCES_NOTE = " ".join(
    f"*{name}*{'' if name in DEFAULT_STRATEGIES else ' (off by default)'}: {SOURCE_WORDS[name]}."
    for name in STRATEGIES if name in SOURCE_WORDS) + (
    " One image appears once; near duplicates (*a mournful sigh* / *a mournful cry*) are merged.")
SOURCES_DETAILS = ("<details><summary>Details: the models behind the sources</summary>\n\n*writer*: "
                   "Qwen2.5-Coder-1.5B-Instruct. *lm*: the writer polisher, Qwen2.5-Coder-1.5B-Instruct with a LoRA "
                   "delta fine-tuned on literal → simile pairs (the polisher, SmolLM2-135M with its own delta, where "
                   "that delta does not fit); the polisher scores every candidate. *retrieval*: BM25 over the "
                   "knowledge base's simile contexts (the HAUSER paper's baseline). *property*: the knowledge base's "
                   "(topic, property, vehicle) triplets.\n\n</details>")
#: the generator named on the status line, in plain words
GENERATORS = {WRITER_POLISHER: "the writer model trained to polish",
              "trained polisher (LoRA delta)": "the trained polisher",
              "plain lm, few-shot (no delta fits)": "the plain language model, shown examples (its training does not "
                                                    "fit this model)"}
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
    """Markdown with the inserted phrase in bold; the text itself is escaped as HTML and as Markdown (a typed
    "[x](https://…)" or "*x*" stays plain text)."""
    if offset < 0 or not phrase:
        return escape_markdown(sentence)
    before, after = sentence[:offset], sentence[offset + len(phrase):]
    return f"{escape_markdown(before)}**{escape_markdown(phrase)}**{escape_markdown(after)}"


def _status(result: PolishResult, shown: bool, strategies: list[str]) -> str:
    """The line above the table, in plain text (the API's status too): how many came, from what, in which order;
    first, a notice of the sentence's likely typos."""
    typos = spelling_note(result.literal, result.spelling, quote=lambda text: f"“{escape_markdown(text)}”")
    typos = f"✏️ {typos}  \n" if typos else ""
    if result.negation:  # it quotes the sentence: escaped like the typos' line
        typos += f"💬 {escape_markdown(result.negation)}  \n"
    if result.places:
        typos += f"💬 {escape_markdown(result.places)}  \n"
    if result.shortfall:
        return f"{typos}⚠️ {result.shortfall}"
    by = {"keep": "keep", "score": "fluency (no keep model here)"}
    base = result.ranked_by.removesuffix(WRITER_ORDER)  # "keep" after the writer's reread
    last = base.split()[-1]
    first = (["the images typical of the quality (source images)"] if base.startswith("images")
             else []) + (["the knowledge base's images for an adjective, then the writer's"]
                         if "writer" in base else [])
    ranked = f"ranked by {base}" if last not in by else f"best first by {by[last]}" if not first \
        else f"{', then '.join(first)} first, then the rest by {by[last]}"
    if result.reread:
        rest = result.candidates[WRITER_READS_TOP:]
        own = any(c.strategy in ("images", "writer") for c in rest)  # sources in their own order, without keep
        ranked += (" (the writer model read the best 20 again before the list was cut: their keep is computed with how "
                   "likely it finds the simile in the sentence"
                   + ("" if not rest else f"; from place {WRITER_READS_TOP + 1} the list keeps the order it had before "
                      "it" + (": the image table's and the writer's images in their own order, the others by keep"
                              if own else ", by keep")) + ")")
    status = (f"1 candidate, as asked; {ranked}." if result.asked == result.delivered == 1 else
              f"{result.delivered} of the {result.asked} candidates asked; {ranked}.")
    # no count of the lines a writer would keep: keep's sum said 4-6 of 10 where a fresh blind reader kept 1 or 2 (a
    # visitor read both in one breath); keep ranks, and the blind read says how many are kept
    if result.expected_keepers is not None and shown and few_apt_images(result.expected_keepers, result.keep_counted):
        status += " Few apt images were found for this sentence, by the keep model: try rewording it."
    if result.expected_keepers is not None and shown and (read := polish_blind_read()):
        status += f" {read}"
    if "lm" in strategies:
        status += f" The lm source used {GENERATORS.get(result.generator, result.generator)}."
    if "writer" in strategies and not any(c.strategy == "writer" for c in result.candidates):
        proposed = result.proposed.get("writer", 0)  # a visitor ticked it and saw nothing of it, unsaid
        status += (f" None of the writer's {proposed} images is in the list: the filters dropped them or the other "
                   "sources gave the same images." if proposed else
                   " The writer proposed no image for this sentence.")
    return typos + status


@guarded
def run_polish(literal: str, strategies: list[str], n: float, seed: float, domain: str = "any",
               register: str = "plain", request: gr.Request = None, progress=gr.Progress()):
    """The /polish endpoint: the candidates as plain text with every number (`COLUMNS`), the downloads and a plain
    status line. The page shows the table through `screen_table`. The capability checks the inputs."""
    result = polish(literal, n=int(n), strategies=list(strategies or []), seed=int(seed),
                    progress=lambda fraction, what: progress(fraction, desc=what),
                    should_stop=cancelled, domain=domain or "any", register=register or "plain")
    cands = result.candidates
    rows = [[c.sentence, c.phrase, c.strategy, "✓" if c.attested else "", c.keep, c.score] for c in cands]
    if not rows:
        warn("No candidate survived the filters; try other strategies or another seed.")
    files = result_downloads(request, "polish", [
        {"rank": i + 1, "candidate": c.sentence, "inserted phrase": c.phrase, "strategy": c.strategy, "keep": c.keep,
         "score": c.score, "vehicle": c.vehicle, "KB attests": c.attested} for i, c in enumerate(cands)],
        {"literal": literal, "strategies": list(strategies), "candidates asked": int(n), "seed": int(seed),
         "image domain": domain, "register": register,
         "score": SCORE_MEANING, "keep": KEEP_MEANING + (WRITER_READS if result.reread else ""),
         "ranking": result.ranked_by, "generator": result.generator,
         "delivered": result.delivered, "expected keepers": result.expected_keepers,
         "shortfall": result.shortfall, "spelling": [m.to_dict() for m in result.spelling],
         "negation": result.negation, "places": result.places})
    return (pd.DataFrame(rows, columns=COLUMNS), [c.sentence for c in cands], files,
            _status(result, bool(rows), list(strategies)), literal, [c.offset for c in cands])


def screen_table(table, offsets: list[int] | None = None) -> pd.DataFrame:
    """The page's table from the plain one: the inserted phrase in bold at its offset (the text escaped), the source
    with KB ✓, and keep, or the polisher's fluency when no keep model is served."""
    rows = [row for row in table_rows(table) if row and row[0]]
    offsets = list(offsets or [])
    with_keep = any(row[4] is not None and row[4] == row[4] for row in rows)  # NaN: no keep
    number = SCREEN_COLUMNS[2] if with_keep or not rows else FLUENCY_COLUMN
    shown = []
    for i, (sentence, phrase, source, kb, keep, score) in enumerate(rows):
        value = keep if with_keep else score
        offset = offsets[i] if i < len(offsets) and str(sentence)[offsets[i]:].startswith(str(phrase)) else \
            str(sentence).find(str(phrase))
        shown.append([_highlight(str(sentence), offset, str(phrase or "")),
                      f"{source}, KB ✓" if kb else source,
                      None if value is None or value != value else round(float(value), 2 if with_keep else 3)])
    return pd.DataFrame(shown, columns=[*SCREEN_COLUMNS[:2], number])


@guarded
def run_components(sentence: str, request: gr.Request = None):
    result = components(sentence)
    text = result["sentence"]
    marks = []
    for s in result["similes"]:
        for part, (a, b) in s["spans"].items():
            if part == "comparator" and "property" in s["spans"]:
                continue  # "as light as" would swallow the property's own colour
            marks.append((a, b, part))
    return highlight_pieces(text, marks), result


def components_verdict(result: dict | None) -> str:
    """The line above the parts: whether the detector takes the comparison for a simile, in words (a visitor saw the
    parts of "It looks like rain." coloured and the "not a simile" only inside the JSON); "" without a result. A step
    of its own after the components (from their JSON), so that the /components endpoint's answer stays as it was."""
    if not isinstance(result, dict) or "sentence" not in result:
        return ""
    detector = result.get("detector") or {}
    p, threshold = detector.get("p_simile"), detector.get("threshold", 0.5)
    if not result.get("similes") or p is None:
        why = why_no_comparison(result.get("sentence") or "")
        return (f"**No comparison found** to take apart: {why}." if why
                else "**No comparison found**: no *like*, *as … as* or similar comparison to take apart.")
    if result.get("is_simile") and detector.get("as_as_rule"):
        return (f"**A simile**: an *as … as* comparison with a common noun for its image counts as one by rule "
                f"({p:.3f}; the learned detector reads *like* sentences), unless the image is someone's "
                "(\"as tall as his brother\").")
    if result.get("is_simile"):
        return f"**A simile**: the detector's probability {p:.3f} (it takes {threshold:.3f} or more for one)."
    reason = like_with_like_reason(detector)
    if reason:
        return (f"**Not a simile: it compares like with like**: {escape_markdown(reason)} "
                f"(probability {p:.3f}, under the detector's {threshold:.3f}: such comparisons are similes no more "
                "often than in its training data).")
    return (f"**Not a simile, by the detector** (probability {p:.3f}, under its {threshold:.3f}): the parts below "
            "are those of the comparison found, which may be literal (\"It looks like rain.\"). The detector also "
            "misses some similes: its F1 on held-out sentences is under About, *How well it works*.")


#: the note beside the buttons when the box no longer holds the sentence the candidates were made for
STALE_NOTE = ("⚠️ The candidates below were made for the previous sentence: press **Polish** for this one "
              "(*Send to Rerank* waits until then).")


#: when the list has come, the page brings its status line into view (below the fold of a laptop and a phone)
SHOW_RESULT_JS = ("() => { document.getElementById('polish-status')"
                  "?.scrollIntoView({behavior: 'smooth', block: 'start'}); }")
#: under the buttons while a run goes: nothing but the run's progress bar (CSS gives it room while it shows; a note
#: beneath the bar was unreadable)
BELOW_NOTE = ""


#: Send to Rerank's label, given again with every update of the button (Gradio rebuilds a component from its
#: constructor on an update: a page opened from a shared link showed "Run")
SEND_LABEL = "Send to Rerank"


def send_state(candidates: list[str], literal: str | None, polished: str | None):
    """Send to Rerank is usable only while the box holds the sentence its candidates were made for; else a note."""
    fresh = bool(candidates) and (literal or "") == (polished or "")
    return gr.Button(SEND_LABEL, interactive=fresh), (STALE_NOTE if candidates and not fresh else "")


def candidate_selected(state: list[str], current: str | None, evt: gr.SelectData):
    """The clicked candidate into the Components box; a click on no candidate leaves the box's text (KEEP_VALUE in
    common.py)."""
    if evt.index is None:
        return current
    row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    if state and 0 <= row < len(state):
        return state[row]
    # a table restored from a shared link comes without the candidates' plain texts: its own cell, read back
    cells = getattr(evt, "row_value", None)
    cells = cells if isinstance(cells, (list, tuple)) else []
    return unescape_markdown(cells[0]) if cells and isinstance(cells[0], str) and cells[0].strip() else current


def _offered(text: str | None) -> str | None:
    """`offered(text)`, or None for no text or a text it cannot read: the offer is never a failure (the status line
    already names the typos, and Polish says what is wrong with a sentence it refuses)."""
    if not text:
        return None
    try:
        return offered(text)
    except Exception:  # noqa: BLE001 — see above
        return None


def take_offer(offered_text: str | None, literal: str | None):
    """The offer's click: its sentence into the box (the button goes). A page opened from a shared link shows the
    button without the session's sentence: it is worked out again from the box."""
    return offered_text or _offered(literal) or literal or "", gr.Button(visible=False)


def refusal_offer(text: str | None):
    """After a refusal: the button for the sentence Polish's refusal names: without the simile it holds ("Polish “The
    sky was blue.” instead"), else with its typos corrected where that gives a place for a simile ("The nigth was vry
    drak." → "The night was very dark."); nothing else (a sentence in Spanish refused as such has no English typos to
    correct: a visitor was offered "El perry era my rápido.")."""
    try:
        other = (without_simile(text) or respelled_with_place(text)) if text else None
    except Exception:  # noqa: BLE001 — the offer is never a failure
        other = None
    return polish_offer(None, other) if other else (gr.Button(visible=False), "")


#: the longest offered sentence a button label shows whole (a longer one is cut there, with "…")
OFFER_SHOWN = 80


def polish_offer(text: str | None, other: str | None = None):
    """After a run: the button that polishes another sentence instead, and that sentence — the sentence with its
    likely typos corrected ("The room was vrey hot." → "Polish “The room was very hot.” instead"), else without the
    simile it already holds ("The sky was as blue as the sea." → "Polish “The sky was blue.” instead"); hidden for
    neither. `other`: that sentence, worked out already."""
    other = other or _offered(text)
    if not other:
        return gr.Button(visible=False), ""
    shown = other if len(other) <= OFFER_SHOWN else other[:OFFER_SHOWN - 1].rstrip() + "…"
    return gr.Button(value=f"Polish “{shown}” instead", visible=True), other


def build_polish_tab() -> dict:
    """Returns the components other tabs wire to: {"literal", "candidates_table", "candidates", "polished",
    "send_button", "plain"}. `candidates` is a gr.State holding the list of candidate sentences (best first),
    `polished` the sentence they were made for, `plain` the Details table (a shared link restores it, not the
    state)."""
    with gr.Tab(tab_title("similes"), id="polish"):
        gr.Markdown("Turn a **literal sentence** into similes: \"was very loud\" → \"was as loud as thunder\".")
        tab_guide("polish")
        notice = role_notice("writer", "lm", "parser")
        if notice:
            gr.Markdown(notice)
        with gr.Row():
            # the sentence and the buttons first: on a phone the options come after them, not before
            with gr.Column(scale=3):
                literal = limited_textbox(MAX_CHARS, label="Literal sentence", value="He yelps and howls.",
                                          max_lines=3, info=f"up to {MAX_CHARS} characters")
                with gr.Row(elem_id="polish-buttons"):
                    go = gr.Button("Polish", variant="primary", min_width=90, elem_id="polish-go")
                    stop = gr.Button("Stop", variant="stop", min_width=70)
                    send = gr.Button(SEND_LABEL, interactive=False, elem_id="polish-send", min_width=130)
                stale = gr.Markdown(elem_id="polish-stale")
                # after a run on a sentence with likely typos, or on one that holds a simile: polish the corrected
                # sentence, or the sentence without its simile, in one click
                # full size: a visitor did not see the small one under the buttons, and said there was no fix
                respell = gr.Button("Polish the corrected sentence", visible=False, elem_id="polish-respell",
                                    variant="secondary")
                # under the buttons, beside the options: the space the options' column leaves on a wide screen
                examples(EXAMPLES_LITERAL, [literal], "Literal sentences", run=go)
            with gr.Column(scale=2):
                strategies = gr.CheckboxGroup(list(STRATEGIES), value=list(DEFAULT_STRATEGIES),
                                              label="Sources of vehicles")
                with gr.Row():
                    n = gr.Slider(1, MAX_N, value=10, step=1, label="Candidates")
                    seed = gr.Number(value=0, precision=0, label="Seed")
                with gr.Row():
                    domain = gr.Dropdown(list(DOMAINS), value="any", label="Image domain (writer)",
                                         info="a hint to the writer, which puts images apt for the quality "
                                              "first and follows it loosely")
                    register = gr.Radio(list(REGISTERS), value="plain", label="Register (writer)")
                gr.Markdown(SOURCES_NOTE + "\n\n" + SOURCES_DETAILS, elem_classes=["studio-note"])
        status = gr.Markdown(elem_id="polish-status", label="Status")
        table = gr.Dataframe(headers=SCREEN_COLUMNS, datatype=["markdown", "str", "number"], interactive=False,
                             elem_id="polish-table", elem_classes=["studio-fit-table"],
                             column_widths=["59%", "22%", "19%"], max_height=1400,
                             wrap=True, label="Candidates, best first (after a run, the status line above says "
                                              "by what; inserted phrase in bold; click a row to see its components)")
        gr.Markdown(SCORE_NOTE, elem_classes=["studio-note"])
        downloads = gr.File(label="Candidates (CSV and JSON)", file_count="multiple")
        with gr.Accordion("Details: every number, as the API returns it", open=False):
            plain = gr.Dataframe(headers=COLUMNS, datatype=["str", "str", "str", "str", "number", "number"],
                                 interactive=False, wrap=True, elem_classes=["studio-wide-table", "studio-text-1"],
                                 label="Candidates (plain text)")
            gr.Markdown(DETAILS_NOTE, elem_classes=["studio-note"])
        candidates = gr.State([])
        polished = gr.State("")  # the sentence (as typed) the candidates were made for
        offsets = gr.State([])  # where each candidate's inserted phrase starts (its bold on screen)
        respelled_text = gr.State("")  # the sentence the offer polishes (polish_offer; "" without one)
        gr.Markdown("### Components of a simile")
        with gr.Row():
            sentence = limited_textbox(MAX_SENTENCE_CHARS, label="Simile sentence", value=EXAMPLES_SIMILE[0][0],
                                       scale=3, max_lines=3, info=f"up to {MAX_SENTENCE_CHARS:,} characters")
            show = gr.Button("Show components", scale=1, elem_id="components-go")
        examples(EXAMPLES_SIMILE, [sentence], "Similes (and literal 'like')", run=show)
        parts_status = gr.Markdown(elem_id="components-status")
        parts_verdict = gr.Markdown(elem_id="components-verdict")
        highlighted = gr.HighlightedText(label="Topic / vehicle / event / property", color_map=COLOURS,
                                         elem_id="components-parts",
                                         show_legend=True, combine_adjacent=False)
        details = gr.JSON(label="Components")
        literal_limit = (literal, "literal sentence", MAX_CHARS)
        polish_outputs = [plain, candidates, downloads, status, polished, offsets]
        # the earlier result goes first (an error or a Stop leaves none of it on screen); the progress and an error's
        # mark sit on the table, and a failed run's status line says why
        cleared = (None, None, [], None, "", gr.update(interactive=False), "")
        # under the buttons, where the eye is (on a laptop the table starts below the fold): the run's progress bar
        # (an earlier note that the list is out of date goes)
        start = start_run("Polishing…", *cleared[:-1], BELOW_NOTE)
        start_outputs = [table, plain, candidates, downloads, polished, send, stale, status]
        send_args = dict(fn=send_state, inputs=[candidates, literal, polished], outputs=[send, stale], api_name=False,
                         queue=False, show_progress="hidden")
        # the offered sentence into the box, then the same run as Polish
        respelling = respell.click(take_offer, inputs=[respelled_text, literal], outputs=[literal, respell],
                                   api_name=False, queue=False, show_progress="hidden")
        runs = [after_limit_check(trigger, literal_limit, clears=(start_outputs, cleared)).success(
                    start, outputs=start_outputs, api_name=False,
                    queue=False, show_progress="hidden").success(
                    cancellable(run_polish), inputs=[literal, strategies, n, seed, domain, register],
                    outputs=polish_outputs, api_name=api_name, show_progress_on=[table, stale])
                for trigger, api_name in ((go.click, "polish"), (literal.submit, False), (respelling.success, False))]
        hide_respell = dict(fn=lambda: (gr.Button(visible=False), ""), outputs=[respell, respelled_text],
                            api_name=False, queue=False, show_progress="hidden")
        for trigger in (go.click, literal.submit):  # a new run: no offer until it has its result
            trigger(**hide_respell)
        for run in runs:
            run.success(polish_offer, inputs=polished, outputs=[respell, respelled_text], api_name=False,
                        queue=False, show_progress="hidden")
            run.success(screen_table, inputs=[plain, offsets], outputs=table, api_name=False, queue=False,
                        show_progress="hidden").then(None, js=SHOW_RESULT_JS, api_name=False, queue=False)
            run.success(**send_args)
            run.failure(failed_run(None, None, ""), outputs=[table, plain, stale, status], api_name=False,
                        queue=False)
            # a refused sentence that holds a simile: polish it without ("The sky was blue.")
            run.failure(refusal_offer, inputs=literal, outputs=[respell, respelled_text], api_name=False, queue=False,
                        show_progress="hidden")
        # Stop cancels the run: the worker sees `cancelled()` at its next strategy or batch and ends
        stop.click(stopped_line("no candidates for this sentence; press Polish to run it again."), inputs=status,
                   outputs=status, cancels=runs, api_name=False, queue=False)
        literal.change(**send_args)
        parts = dict(fn=run_components, inputs=[sentence], outputs=[highlighted, details], status=parts_status,
                     busy="Finding the components…")
        section_run(show.click, **parts, api_name="components", checks=((sentence, "sentence", MAX_SENTENCE_CHARS),))
        # the verdict follows the JSON, and goes with it (a refusal or a new run empties both)
        details.change(components_verdict, inputs=details, outputs=parts_verdict, api_name=False, queue=False,
                       show_progress="hidden")
        section_run(table.select(candidate_selected, inputs=[candidates, sentence], outputs=sentence,
                                 api_name=False).then, **parts, api_name=False, scroll_to_output=True)
    return {"literal": literal, "candidates_table": table, "candidates": candidates, "polished": polished,
            "send_button": send, "plain": plain}
