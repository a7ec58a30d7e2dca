"""Rerank tab: HAUSER scores of simile candidates for a literal sentence, and their combined ranking."""
from __future__ import annotations

import csv
import math
from collections import Counter

import gradio as gr
import pandas as pd

from ..capabilities import tab_title
from ..errors import InputError
from ..hauser.service import (CONTRADICTION_GATE, DEFAULT_QUALITY_PARTS, DEFAULT_RANK_WEIGHTS, MAX_CANDIDATES,
                              MAX_CHARS, MAX_CSV_BYTES, MAX_CSV_ROWS, PAPER_QUALITY_PARTS, PAPER_RANK_WEIGHTS,
                              RerankResult, Settings, candidates_from_lines, groups_from_csv, ratio, rerank,
                              rerank_many, wordless_image, masked)
from .imagine_tab import build_imagine_topk
from .common import (after_limit_check, escape, escape_markdown, examples, failed_run, guarded, highlight_pieces,
                     limited_textbox, role_notice, shorten, spaced, start_run, table_rows, warn)
from .help import tab_guide
from .session_files import json_download, new_download, track

#: every column of a scored row: the CSV download (raw and normalized criteria, components); its "flag" is the
#: screen's (`flags_shown`), "no_simile_reason" the row's own "flag" (why no simile was found)
COLUMNS = ["rank", "candidate", "quality", "creativity", "informativeness", "relevance", "relevance_norm",
           "logical_consistency", "logical_consistency_norm", "sentiment_consistency", "sentiment_consistency_norm",
           "topic", "vehicle", "event", "kb_level", "nli_verdict", "evidence", "flag", "no_simile_reason",
           "contradicts", "off_sentence", "no_words", "offensive"]
#: what the page shows: (title on screen, row key, decimals or None for text) — short titles, numbers rounded. The 0–1
#: columns are relative within the list ("…_rel": creativity min-max scaled here for the screen only, as the paper
#: scales the quality criteria); the raw criteria, topic, event and KB match are in the details and the download
#: the flag beside the candidate: on a phone the columns after the first four are off to the right, and a visitor
#: read "as loud as thunder" with the winner's quality and no sign of its "contradicts"
SCREEN = [("rank", "rank", 0), ("candidate", "candidate", None), ("flag", "flag_short", None),
          ("quality", "quality", 2), ("creativity", "creativity_rel", 2), ("relevance", "relevance_norm", 2),
          ("logic", "logical_consistency_norm", 2), ("sentiment", "sentiment_consistency_norm", 2),
          ("image words", "informativeness", 0)]
SCREEN_COLUMNS = [title for title, _, _ in SCREEN]
DATATYPES = ["number" if digits is not None else "str" for _, _, digits in SCREEN]
COLUMN_WIDTHS = ["6%", "34%", "10%", "8%", "9%", "9%", "7%", "9%", "8%"]
#: the columns that compare the candidates with each other (empty for a single candidate)
RELATIVE = ("quality", "creativity_rel", "relevance_norm", "logical_consistency_norm", "sentiment_consistency_norm")
#: the table's title: how to read its 0–1 columns
TABLE_LABEL = ("Scores, best first. The 0–1 columns compare these candidates with each other: 1 = the best of this "
               "list, 0 = the weakest of it, not a grade on a fixed scale (raw values in the details and the CSV)")
#: under the table when only one candidate was scored
SINGLE_NOTE = ("One candidate: the 0–1 columns compare candidates with each other, so with nothing to compare they "
               "are left empty. Add other candidates to rank it; its raw scores are in *Details* below and in the CSV.")
#: the status line when no candidate holds a simile (a ✅ and a winner said the opposite)
NO_SIMILE_NOTE = ("⚠️ {n} simile the extractor finds (a comparison with “like”, “as … as”, “as if” …): there is "
                  "no image to score, so the order means nothing and there is no winner. Add similes to rank them.")
COLOURS = {"topic": "#7cb5ec", "vehicle": "#f7a35c", "event": "#90ed7d"}
#: what each number in the table means, shown under it (the formulas are in the "How to read this" guide and
#: docs/hauser.md)
SCORES_NOTE = (
    "**rank**: 1 = best, the three rankings (by quality, creativity and image words) combined by the rank weights "
    f"set above (served rank weights {ratio(DEFAULT_RANK_WEIGHTS)}, so quality leads"
    + (" and image words are shown but not counted" if not DEFAULT_RANK_WEIGHTS[2] else "")
    + f"; the paper's {ratio(PAPER_RANK_WEIGHTS)} is a button away). "
    "Each 0–1 column compares the candidates of *this list* (1 = the best here, 0 = the weakest here; 0.5 when "
    "they all tie): **quality** mixes relevance, logic and sentiment by the quality weights α : β : γ set above "
    "(served quality weights " + ratio(DEFAULT_QUALITY_PARTS)
    + (", so sentiment is shown but not counted unless γ is set" if not DEFAULT_QUALITY_PARTS[2] else "")
    + "). **creativity**: how "
    "unexpected the image is — rarely used in the knowledge base's similes and unexpected for a language "
    "model. **relevance**: how often similes link this subject with this image (or give the image the "
    "quality the sentence names), and how naturally a larger language model expects this image where it stands. "
    "**logic**: how sure a meaning check is that the simile does not contradict the "
    "literal sentence (an ironic “as loud as a whisper” is checked as “very soft”, any other “as P as” simile as “very "
    "P”). **sentiment**: whether the "
    "simile keeps the sentence's tone. **image words**: how many words the image (the vehicle) has; longer "
    "images carry more detail. **flag**: “no simile” when the line holds no comparison (ranked last), “contradicts” "
    "when the meaning check is at least 90 % sure the simile contradicts the literal sentence (ranked after the "
    "others: a rare image is creative, but not of use; not when the simile takes the place of words of the sentence, "
    "“walked like a snail” for “walked slowly”, and the check cannot tell its image's sense: a dropped word reads "
    "as a contradiction, and *Why these scores* says so), “off the sentence” when the line keeps less than a "
    "quarter of the literal sentence's content words and means little like it (a line of another sentence; ranked "
    "after the others), “no words” "
    "when its image is an emoji or a sign (“🍋”, “a 🍋”), which the knowledge base cannot know (ranked after the "
    "others: its creativity and relevance say nothing), “offensive image” when its image names a people or holds "
    "a slur or an obscenity (ranked after the others, whatever its scores). *Why these "
    "scores* under the chart says it in words for each candidate.")
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


def highlight_winner(group: RerankResult) -> list[tuple[str, str | None]]:
    """The best candidate with its first simile's topic, vehicle and event marked (plain text, no HTML); a line
    saying there is no winner when no candidate holds a simile."""
    best = min(group.candidates, key=lambda c: c["rank"])
    text = best["candidate"]
    first = next((s for s in best["similes"] if s.get("vehicle")), None)
    if best.get("has_simile") is False:  # every candidate is flagged "no simile" (they go last): no winner
        return [("No candidate holds a simile: there is no winner.", None)]
    if first is None:
        return [(text, None)]
    return highlight_pieces(text, [(a, b, part) for part, (a, b) in first["spans"].items() if part in COLOURS])


def screen_rows(rows: list[dict]) -> list[dict]:
    """The rows as the screen reads them (their `creativity_rel`: creativity relative within the list, from the
    capability), and, for a single candidate, no relative value at all (there is nothing to compare it with; the raw
    values stay in the details and the CSV)."""
    if len(rows) != 1:
        return rows
    return [{**rows[0], **{key: None for key in RELATIVE}}]


def criteria_chart(rows: list[dict]):
    """The 0–1 columns per candidate (relative within the list: top), the image's words (bottom)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rows = screen_rows(rows)
    # a cut says so; escaped, as Plotly renders a tag in a tick label ("<b>x</b>" in bold)
    labels = [f"#{r['rank']} {escape(shorten(r['vehicle'] or r['candidate'], 30))}" for r in rows]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1, row_heights=[0.7, 0.3],
                        subplot_titles=("1 = best in this list, 0 = weakest", "words in the image"))
    for key, name in (("quality", "quality"), ("creativity_rel", "creativity"), ("relevance_norm", "relevance"),
                      ("logical_consistency_norm", "logic"), ("sentiment_consistency_norm", "sentiment")):
        fig.add_trace(go.Bar(name=name, x=labels, y=[r[key] for r in rows]), row=1, col=1)
    fig.add_trace(go.Bar(name="image words", x=labels, y=[r["informativeness"] for r in rows]), row=2, col=1)
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    words = max([r["informativeness"] or 0 for r in rows] + [1])  # a count of words: whole ticks, no "0.5", at most 6
    fig.update_yaxes(rangemode="tozero", dtick=max(1, math.ceil(words / 5)), row=2, col=1)
    # the names run slanted under the bars, with room made for them (`automargin`), and the legend sits above the
    # chart, to the right: below it, it covered the names; the plot's own title, not the page's label, names it (on
    # a phone the legend wraps to the left, where the label covered it)
    fig.update_xaxes(tickangle=-35, automargin=True)
    # the tool bar keeps the download and the home (reset) button: on a phone its ten icons covered the chart's title
    fig.update_layout(modebar_remove=["zoom", "pan", "select", "lasso", "zoomin", "zoomout", "autoscale",
                                      "togglespikelines", "hovercompare", "togglehover"])
    fig.update_layout(barmode="group", height=600, margin=dict(l=40, r=20, t=110, b=40),
                      title=dict(text="Criteria per candidate", x=0, xanchor="left", y=0.99, yanchor="top"),
                      legend=dict(orientation="h", x=1, xanchor="right", y=1.07, yanchor="bottom"))
    return fig


def _downloads(groups: list[RerankResult], request: gr.Request | None = None) -> list[str]:
    """Every scored group: `rerank-….csv` (its rows, each with its literal sentence and the backends used; the flag
    as the screen shows it) and `rerank-….json` ({"groups": [...]}, each group as `score --batch` writes it, without
    its line number: the settings, the backends and every candidate's criteria, similes and evidence)."""
    path = new_download(request, "rerank", "csv")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["literal"] + COLUMNS + ["nli_backend", "sentiment_backend", "kb"])
        writer.writeheader()
        for group in groups:
            backends = group.backends
            for row in group.rows:
                shown = {**row, "flag": flags_shown(row), "no_simile_reason": row["flag"]}
                writer.writerow({"literal": group.literal, **{k: shown[k] for k in COLUMNS},
                                 "nli_backend": backends["nli"], "sentiment_backend": backends["sentiment"],
                                 "kb": backends["kb"]})
    return [str(path), json_download(request, "rerank", {"groups": [group.to_dict() for group in groups]})]


def _backends_markdown(group: RerankResult) -> str:
    b, s = group.backends, group.settings
    return (f"**Backends** — logical consistency: {escape(b['nli'])}; sentiment: {escape(b['sentiment'])}; "
            f"relevance/creativity: {escape(b['kb'])} (Eq. {s['relevance'][2:]}); LM back-off of relevance, the "
            f"vehicle's fit (λ = {s.get('lm_relevance', 0):g}): {escape(b.get('writer') or 'off')}; of creativity, "
            f"its surprisal (μ = {s.get('lm_creativity', 0):g}): {escape(b.get('lm') or 'off')}; "
            f"components: {escape(b['parser'])}.  \n"
            f"α, β, γ = {s['alpha']:.3f}, {s['beta']:.3f}, {s['gamma']:.3f}; rank weights "
            f"{ratio(s['rank_weights'])}. *kb_level* says how each lookup matched the KB "
            "(exact phrase, head noun, embedding neighbour, the stated property, none).")


def _raw_evidence_markdown(group: RerankResult) -> str:
    """Per candidate, best first: the scorer's own evidence line (KB pairs with counts and source files, the LM's
    log-probabilities, the NLI verdict) and its raw criteria. Every piece of text escaped (candidates are typed)."""
    raw = {row["rank"]: row for row in group.rows}
    lines = ["**Raw evidence and scores** (the KB pairs, properties and vehicles behind relevance and creativity — "
             "top 3 with counts and the source files —, the writer's log-probability of the vehicle in the sentence, "
             "the small language model's after “Like”, the NLI verdict on literal → candidate; then the raw criteria: "
             "relevance (higher = a more usual comparison; unbounded, often negative), "
             "logical consistency 0–1, sentiment consistency −1…1, creativity unbounded):"]
    for c in group.ranked():
        text = shorten(c["candidate"], 90)
        row = raw[c["rank"]]
        numbers = ", ".join(f"{name} {row[key]:.3f}" for name, key in (
            ("relevance", "relevance"), ("logical consistency", "logical_consistency"),
            ("sentiment consistency", "sentiment_consistency"), ("creativity", "creativity"),
            ("informativeness", "informativeness")) if row[key] is not None)
        lines.append(f"- #{c['rank']} {escape_markdown(text)}: "
                     f"{escape_markdown(row['evidence'] or c['flag'] or '—')}"
                     + (f" · {escape_markdown(numbers)}" if numbers else "")
                     + (f" · KB match: {escape_markdown(row['kb_level'])}" if row["kb_level"] else ""))
    return "\n".join(lines)


def _quote(text: str | None) -> str:
    return f"“{escape_markdown(text or '')}”"


def _count(n: float) -> tuple[int, str]:
    """A KB count as a writer reads it: whole, and "about" when the KB weighs its matches (a near match counts less
    than an exact one)."""
    whole = max(1, round(n))
    return whole, ("" if abs(n - round(n)) < 1e-9 else "about ")


def _times(n: float) -> str:
    whole, about = _count(n)
    return about + ("once" if whole == 1 else "twice" if whole == 2 else f"{whole:,} times")


def _pair_vehicle(matched: dict) -> str:
    """The image of a matched KB pair ("it ~ inside of a pocket" → "inside of a pocket"), as written."""
    pair = matched.get("written") or matched.get("pair") or ""
    return pair.split("~", 1)[-1].strip()


def _plain_image(image: str) -> str:
    """An image without its article or case, to tell the candidate's own from another's."""
    words = (image or "").lower().split()
    return " ".join(words[1:] if words[:1] in (["a"], ["an"], ["the"]) else words)


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def explain_candidate(c: dict) -> str:
    """A scored candidate's evidence as sentences a writer reads (no counts of files, no log-probabilities): what
    the knowledge base and the language model know of its image, and whether it keeps the literal meaning."""
    if c["flag"]:
        return "No comparison was found in this line, so it is ranked last."
    ev, said = c.get("evidence") or {}, []
    for pair in ev.get("relevance", []):
        written = pair.get("written") or {}  # the candidate's own words, not the KB's lemma ("lightne")
        topic = (written.get("topic") or pair.get("topic")) if pair.get("topic") else None
        vehicle = (written.get("vehicle") or pair.get("vehicle")) if pair.get("vehicle") else None
        if not vehicle:
            continue
        if pair["level"] == "none" or not topic:
            said.append(f"No simile in the knowledge base compares {_quote(topic) if topic else 'the subject'} with "
                        f"{_quote(vehicle)}.")
        elif pair["level"] == "property":
            n = sum(m["n"] for m in pair["matched"])
            # the images the property was found for: the candidate's own, or ones close to it ("the inside of a
            # cow" was said to be called "dark" twice, and in the next sentence to be no image in the KB)
            found = list(dict.fromkeys(_pair_vehicle(m) for m in pair["matched"]))
            own = all(_plain_image(v) in (_plain_image(vehicle), _plain_image(pair["vehicle"])) for v in found)
            close = "an image close to it" if len(found) == 1 else "images close to it"
            called = _quote(vehicle) if own else f"{close}, " + _and(_quote(v) for v in found[:3]) + ","
            said.append(f"No simile in the knowledge base compares {_quote(topic)} with {_quote(vehicle)}, but "
                        f"similes call {called} {_quote(pair['property'])} {_times(n)}.")
        else:
            n = sum(m["n"] for m in pair["matched"])
            qualities = [t["property"] for t in pair["triplets"]]
            how = {"exact": "", "head": " (by its main word)", "embedding": " (by a word of close meaning)"}.get(
                pair["level"], "")
            said.append(f"Similes compare {_quote(topic)} with {_quote(vehicle)}{how} {_times(n)} in the knowledge "
                        "base" + (f", for being {', '.join(_quote(q) for q in qualities)}." if qualities else "."))
    for veh in ev.get("creativity", []):
        if not veh["vehicle"]:
            continue
        name = veh.get("written") or veh["vehicle"]
        if veh["level"] == "none":
            said.append(f"{_quote(name)} is never an image in the knowledge base: an unusual choice.")
        else:
            n = sum(m["n"] for m in veh["matched"])
            whole, about = _count(n)
            similes = f"{about}{whole:,} simile{'s' if whole != 1 else ''} there"
            kind = ": a familiar image." if n >= 20 else "." if n >= 5 else ": a rare image."
            found = [m["vehicle"] for m in veh["matched"]][:3]
            if veh["level"] == "exact" or found == [veh["vehicle"]]:
                said.append(f"{_quote(name)} is the image of {similes}{kind}")
            else:  # matched by its main word or by a word of close meaning
                shown = [m.get("written") or m["vehicle"] for m in veh["matched"]][:3]
                said.append(f"{_quote(name)} itself is no image in the knowledge base, but "
                            f"{', '.join(_quote(v) for v in shown)} {'is' if len(shown) == 1 else 'are'} the image of "
                            f"{similes}{kind}")
    first = next((s for s in c.get("similes", []) if s.get("vehicle")), {})
    if wordless_image(first.get("vehicle")):
        said.append(f"Its image, {_quote(first['vehicle'])}, is a sign, not words: the knowledge base cannot know "
                    "it, so its creativity says little"
                    + (", and it is ranked with the flagged lines, after the others." if c.get("no_words") else "."))
    if c.get("offensive"):
        said.append(f"Its image, {_quote(masked(first.get('vehicle') or ''))}, names a people or holds a slur or an "
                    "obscenity: the studio ranks it with the flagged lines, after the others, whatever its scores.")
    fit = c.get("fit") or {}
    if fit:  # the writer's mean log-probability per token of the vehicle after the sentence's words (median ≈ −3)
        how = "a natural" if fit["fit"] >= -2 else "an unlikely" if fit["fit"] < -4.5 else "a possible"
        said.append(f"The writer model finds {_quote(fit['vehicle'])} {how} image where it stands in the sentence; "
                    "relevance adds this to what the knowledge base says.")
    irony = c.get("irony") or {}
    if irony:
        said.append(f"It reads as ironic (the image suits {_quote(irony['antonym'])} better than "
                    f"{_quote(irony['property'])}), so it was checked as meaning "
                    f"{_quote(irony['reading'].rstrip('. '))}.")
        if irony.get("states_property"):  # a contradiction by construction: the NLI's own verdict is not the reason
            said.append(f"The literal sentence itself says {_quote(irony['property'])}, so the simile contradicts "
                        "it, and it is ranked after every candidate that is not a contradiction, whatever its "
                        "creativity.")
            return " ".join(s for s in said if s)
    stand = c.get("stand_in") or {}
    if stand.get("antonym"):  # a "like" image in the place of the literal's adverb that suits its opposite
        why = (f"similes call its image {_quote(stand['antonym'])}, the opposite of {_quote(stand['adjective'])}"
               if stand.get("by") == "kb" else
               f"its image suits {_quote(stand['antonym'])} better than {_quote(stand['adjective'])}")
        said.append(f"It takes the place of {_quote(stand['adverb'])}, but {why}, so the simile contradicts "
                    "the sentence, and it is ranked after every candidate that is not a contradiction, whatever its "
                    "creativity.")
        return " ".join(s for s in said if s)
    if stand.get("unsure"):
        said.append(f"It takes the place of {_quote(stand['adverb'])}, but the language models cannot tell whether "
                    f"its image suits {_quote(stand['adjective'])} or its opposite, so it was checked as written, "
                    "and a contradiction found there does not rank it last (a dropped word reads as one).")
    elif stand:
        said.append(f"It takes the place of {_quote(stand['adverb'])}, and its image suits that, so it was checked "
                    f"as meaning {_quote(stand['reading'].rstrip('. '))}.")
    if c.get("opposite"):  # a sincere simile of the literal's antonym: the same contradiction by construction
        said.append(f"The literal sentence itself says {_quote(c['opposite'])}, the opposite of the simile's "
                    "property, so the simile contradicts it, and it is ranked after every candidate that is not a "
                    "contradiction, whatever its creativity.")
        return " ".join(s for s in said if s)
    negated = c.get("negated") or {}
    if negated.get("verdict") == "contradicts":  # the literal negates what the simile says: by construction
        said.append(f"The literal sentence itself says {_quote(negated['said'])}, so the simile contradicts it, and "
                    "it is ranked after every candidate that is not a contradiction, whatever its creativity.")
        return " ".join(s for s in said if s)
    if negated:
        said.append(f"The literal sentence itself says {_quote(negated['said'])}, and the simile pictures the "
                    "opposite of what it negates, so it agrees with it.")
        return " ".join(s for s in said if s)
    nli = c.get("nli") or {}
    stated = c.get("nli_read") if not stand and not (c.get("irony") or {}) else ""
    if nli and stated and nli["verdict"] != "contradiction":
        # "as bitter as sugar" is checked as "very bitter": a visitor read "says what the literal sentence says" as a
        # verdict on the image
        said.append(f"A meaning check of what it states, {_quote(stated.rstrip('. '))}, finds that it "
                    + ("says what the literal sentence says" if nli["verdict"] == "entailment" else
                       "neither contradicts nor repeats the literal sentence")
                    + "; whether the image has that property is for relevance to say.")
    elif nli:
        said.append({"entailment": "A meaning check finds that it says what the literal sentence says.",
                     "neutral": "A meaning check finds that it neither contradicts nor repeats the literal sentence.",
                     "contradiction": "A meaning check finds that it "
                                      + ("contradicts" if nli["contradiction"] >= CONTRADICTION_GATE
                                         else "may contradict")
                                      + f" the literal sentence (about {nli['contradiction']:.0%} sure)."
                     }.get(nli["verdict"], ""))
    if nli and nli["verdict"] != "contradiction" and c.get("logical_consistency_norm") == 0 \
            and not c.get("contradicts"):
        # the columns are min-max within the list: its 0 is the least sure agreement here, not a failed check
        said.append("Its 0 in the logic column only means that it is the least clearly consistent of these "
                    "candidates.")
    if c.get("contradicts"):
        said.append("So sure a contradiction is ranked after every candidate that is not one, whatever its "
                    "creativity.")
    if c.get("off_sentence"):
        said.append("It keeps less than a quarter of the literal sentence's content words and means little like "
                    "it, so it reads as a line of another sentence and is ranked after the candidates that rewrite "
                    "this one.")
    return " ".join(s for s in said if s) or "—"


def _explanation_markdown(group: RerankResult) -> str:
    """What the page shows under the chart: the candidates' scores in words, best first, then the raw evidence, the
    backends and the settings in a collapsed details block."""
    lines = ["**Why these scores**, best first:"]
    for c in group.ranked():
        text = shorten(c["candidate"], 90)
        lines.append(f"- #{c['rank']} *{escape_markdown(text)}* — {explain_candidate(c)}")
    return ("\n".join(lines) + "\n\n<details><summary>Details: raw evidence, backends and settings</summary>\n\n"
            + _raw_evidence_markdown(group) + "\n\n" + _backends_markdown(group) + "\n\n</details>")


def _settings(alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance) -> Settings:
    return Settings.from_parts((alpha, beta, gamma), (w_quality, w_creativity, w_inform), relevance)


def _warn_flagged(scored: list[RerankResult]) -> None:
    if any(c["flag"] for g in scored for c in g.candidates):
        warn("Some candidates hold no simile; they are flagged and ranked last.")
    if any(c.get("contradicts") for g in scored for c in g.candidates):
        warn("Some candidates contradict their literal sentence; they are flagged and ranked after the others.")
    if any(c.get("off_sentence") for g in scored for c in g.candidates):
        warn("Some candidates keep less than a quarter of their literal sentence's content words and mean little "
             "like it; they are flagged “off the sentence” and ranked after the others.")
    note = repeated_note(scored)
    if note:
        warn(note)


def repeated_note(scored: list[RerankResult]) -> str:
    """A warning quoting each candidate given more than once in one literal's group (and, for a CSV's groups, naming
    its literal sentence by its number in the "Literal sentence shown" picker), or "". Each line is still scored:
    the table and the download keep one row per line given."""
    repeats = []
    for number, group in enumerate(scored, start=1):
        counts = Counter(c["candidate"] for c in group.candidates)
        where = f" for literal sentence {number} (“{shorten(group.literal, 50)}”)" if len(scored) > 1 else ""
        repeats += [f"“{shorten(text)}” is given {n} times{where}" for text, n in counts.items() if n > 1]
    if not repeats:
        return ""
    more = f"; and {len(repeats) - 3} more" if len(repeats) > 3 else ""
    return "; ".join(repeats[:3]) + more + ". Each line is scored and kept in the table."


def group_label(number: int, group: RerankResult) -> str:
    """The choice naming a scored group in the "Literal sentence shown" dropdown (plain text)."""
    literal = shorten(group.literal)
    n = len(group.candidates)
    return f"{number}. {literal} ({n} candidate{'s' if n != 1 else ''})"


def show_group(group: RerankResult):
    """What the page shows for one scored group: table, winner, chart, explanation (with the details)."""
    rows = group.rows
    return screen_table(rows), highlight_winner(group), criteria_chart(rows), _explanation_markdown(group)


def screen_table(rows: list[dict]) -> pd.DataFrame:
    """The rows as the page shows them: SCREEN's titles and columns, numbers rounded, relative columns empty for a
    single candidate."""
    def cell(row, key, digits):
        if key == "flag_short":  # the reasons are in the note and the CSV
            return flags_shown(row)
        value = row[key]
        if digits is None or value is None:
            return value
        return int(value) if digits == 0 else round(float(value), digits)

    return pd.DataFrame([[cell(r, key, digits) for _, key, digits in SCREEN] for r in screen_rows(rows)],
                        columns=SCREEN_COLUMNS)


#: the flags whose candidates the ranking puts after the others
MOVED_FLAGS = ("no simile", "contradicts", "off the sentence", "no words", "offensive image")


def flags_shown(row: dict) -> str:
    """The flag column of a candidate: "no simile", else every other flag that holds, joined ("contradicts, off the
    sentence": the status line's warnings name each, so the table shows each)."""
    if row["flag"]:
        return "no simile"
    return ", ".join(name for name, on in (("contradicts", row.get("contradicts")),
                                           ("off the sentence", row.get("off_sentence")),
                                           ("no words", row["no_words"] if "no_words" in row
                                            else wordless_image(row["vehicle"])),
                                           ("offensive image", row.get("offensive"))) if on)


def scale_note(table, groups=None, shown=None) -> str:
    """The status line after a scoring: why the 0–1 columns are empty for a single candidate, else how many were
    scored and how many go last for a flag (and which first); nothing without a table. With a CSV's `groups` (more
    than one literal sentence) and the picker's `shown` label: which of them the table shows, and where the others
    are."""
    rows = table_rows(table)
    if not rows:
        return ""
    flag = SCREEN_COLUMNS.index("flag")
    if all(str(row[flag] or "").strip() == "no simile" for row in rows):
        note = NO_SIMILE_NOTE.format(n="The candidate holds no" if len(rows) == 1 else
                                     f"None of the {len(rows)} candidates holds a")
    elif len(rows) == 1:
        note = SINGLE_NOTE
    else:
        flagged = sum(any(part.strip() in MOVED_FLAGS for part in str(row[flag] or "").split(",")) for row in rows)
        note = (f"✅ Scored {len(rows)} candidates, best first by the three rankings combined (by the rank weights)"
                + (f"; {flagged} flagged (no simile, contradicts, off the sentence, no words or offensive image) "
                   f"{'goes' if flagged == 1 else 'go'} after the others" if flagged else "")
                + ". *Why these scores*, under the chart, says it in words.")
    if groups and len(groups) > 1:
        labels = [group_label(i + 1, g) for i, g in enumerate(groups)]
        k = labels.index(shown) + 1 if shown in labels else 1
        note += (f" The CSV held {len(groups)} literal sentences: this is number {k}; *Literal sentence shown* "
                 f"picks another, and the download holds {'both' if len(groups) == 2 else f'all {len(groups)}'}.")
    return note


#: the status line when a weight or the relevance choice differs from what the table was scored with
STALE_NOTE = ("⚠️ The settings changed after this table was scored: press **Rerank** to order the candidates by "
              "them (the table still shows the order of the settings it was scored with, named under *Why these "
              "scores*).")
def weights_changed(table, scored_with, groups, shown, *knobs):
    """The status line when a weight slider, a weights button or the relevance choice moves: `picked_status` over a
    scored table whose settings were recorded (`scored_with`, kept when its run began); no change without either."""
    return picked_status(table, scored_with, groups, shown, *knobs) if table_rows(table) and scored_with \
        else gr.update()


def picked_status(table, scored_with, groups, shown, *knobs) -> str:
    """The status line over a table (after a scoring, or when the CSV's picker shows another of its literals):
    `STALE_NOTE` while the knobs differ from the settings it was scored with, else `scale_note`. The picker shows
    groups scored together, so a note that they wait for Rerank stays (it was replaced by "✅ Scored…")."""
    if table_rows(table) and scored_with and list(knobs) != list(scored_with):
        return STALE_NOTE
    return scale_note(table, groups, shown)


@guarded
def run_rerank(literal, candidates_text, alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance,
               loaded=None, request: gr.Request = None, progress=gr.Progress()):
    """The /rerank endpoint: one literal sentence's candidates (one per line) scored; the capability checks them.
    `loaded` (the page's state, not an API parameter): the groups of the CSV uploaded last. While the boxes hold one
    of them as the CSV's run or the picker put it there, every group is scored again (new weights apply to the whole
    file, and the picker and the download keep every literal) and that one is shown."""
    settings = _settings(alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance)
    progress(0.0, desc="scoring")
    shown = csv_group_in_boxes(literal, candidates_text, loaded)
    if shown is not None:
        scored = rerank_many(loaded, settings, progress=lambda f, what: progress(f, desc=what))
        return show_scored(scored, shown, request, texts_key(literal, candidates_text))
    group = rerank(literal, candidates_from_lines(candidates_text), settings,
                   progress=lambda f, what: progress(f, desc=what))
    return show_scored([group], 0, request, texts_key(literal, candidates_text))


def csv_group_in_boxes(literal: str | None, candidates_text: str | None, loaded) -> int | None:
    """The index of the uploaded CSV's group that the text boxes hold unchanged (its literal, and its candidates in
    any order), or None: typed or edited text is scored on its own."""
    lines = sorted(candidates_from_lines(candidates_text))
    for i, (group_literal, candidates) in enumerate(loaded or []):
        if group_literal == (literal or "").strip() and sorted(candidates) == lines:
            return i
    return None


def texts_key(literal: str | None, candidates_text: str | None) -> list[str]:
    """The texts a table is scored for, as they read: the literal sentence, then the candidate lines sorted (their
    order changes no score), runs of spaces as one; what `other_text_note` compares with the boxes."""
    return [spaced(literal), *sorted(spaced(line) for line in candidates_from_lines(candidates_text))]


#: under Rerank when the table on screen scored other text than the boxes hold (Gradio drops a press of Rerank
#: while a run is on: a visitor typed another sentence, pressed again, and read the first one's table under it)
OTHER_TEXT_NOTE = ("⚠️ The table below scored other text than the boxes hold now: press **Rerank** to score what "
                   "they hold.")


def other_text_note(literal, candidates_text, scored_texts, table) -> str:
    """`OTHER_TEXT_NOTE` while a table is on screen and the boxes differ from the texts it scored (`scored_texts`,
    `texts_key` of them, which the run returns beside its table); "" otherwise."""
    if table_rows(table) and scored_texts and texts_key(literal, candidates_text) != list(scored_texts):
        return OTHER_TEXT_NOTE
    return ""


def show_scored(scored: list[RerankResult], shown: int, request: gr.Request | None, texts: list[str]):
    """The outputs of a scoring run (see `build_rerank_tab`): group `shown` on screen, every group in the download;
    the picker of groups is offered when there are several; `texts`, the boxes' texts the group shown was scored
    for (`texts_key`)."""
    _warn_flagged(scored)
    table, winner, chart, backends = show_group(scored[shown])
    labels = [group_label(i + 1, g) for i, g in enumerate(scored)]
    picker = gr.update(choices=labels, value=labels[shown], visible=len(scored) > 1,
                       label=f"Literal sentence shown ({len(scored)} scored from the CSV; all in the download)")
    return (table, winner, chart, _downloads(scored, request), backends, picker, scored if len(scored) > 1 else [],
            texts)


def clear_results():
    """Before an uploaded file is read: nothing from the earlier input stays on screen (a bad file then leaves the
    results empty, under its error), and the earlier file's groups are forgotten."""
    return None, None, None, None, "", gr.update(choices=[], value=None, visible=False), [], None, []


#: after a refused file's own message
FILE_REFUSED = "The boxes above keep what they held: Rerank scores those, not this file."


@guarded
def run_csv(path, alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance, request: gr.Request = None,
            progress=gr.Progress()):
    """Score every literal sentence of an uploaded CSV (grouped by literal, in file order); the first group is shown
    and the dropdown picks another. The download holds every group."""
    if not path:
        raise InputError("No file was uploaded.")
    track(request, path)
    try:
        groups = groups_from_csv(path)
    except InputError as exc:  # said plainly: a Rerank pressed next scores the boxes, which a visitor took for the file
        raise InputError(f"{exc} {FILE_REFUSED}") from None
    settings = _settings(alpha, beta, gamma, w_quality, w_creativity, w_inform, relevance)
    progress(0.0, desc="scoring")
    scored = rerank_many(groups, settings, progress=lambda f, what: progress(f, desc=what))
    first = scored[0]
    # the groups as scored (each text cleaned as the boxes get it), for a later Rerank of the whole file
    loaded = [(g.literal, [c["candidate"] for c in g.candidates]) for g in scored]
    shown = "\n".join(c["candidate"] for c in first.candidates)  # into the boxes
    return (*show_scored(scored, 0, request, texts_key(first.literal, shown)), loaded, first.literal, shown)


def pick_group(groups: list[RerankResult], label: str | None):
    """The dropdown: show the chosen group (its literal and candidates fill the text boxes, so Imagine top k and a
    re-run use it)."""
    labels = [group_label(i + 1, g) for i, g in enumerate(groups or [])]
    if not groups or label not in labels:
        return (gr.update(),) * 7
    group = groups[labels.index(label)]
    table, winner, chart, backends = show_group(group)
    candidates = "\n".join(c["candidate"] for c in group.candidates)
    return table, winner, chart, backends, group.literal, candidates, texts_key(group.literal, candidates)


#: the run button's label, given again with every update of the button (Gradio rebuilds a component from its
#: constructor on an update, so the copy a shared link restores read "Run")
RUN_LABEL = "Rerank"


def fill_from_polish(literal: str, candidates: list[str], polished: str | None = None, shown=None):
    """What the Polish tab's "Send to Rerank" button puts here: the candidates and the sentence they were made for.
    A box that no longer holds that sentence is refused (its candidates would be scored against another one). A page
    opened from a shared link has no candidates in the session: those of its plain table (`shown`, the Details
    table's value) are sent with the sentence the link restored (editing it disables the button)."""
    if not candidates and shown is not None:
        candidates = [str(row[0]) for row in table_rows(shown) if row and str(row[0] or "").strip()]
        polished = None
    if not candidates:
        raise gr.Error("There are no candidates to send: press Polish first.", title="Nothing to send")
    if polished is not None and (literal or "") != polished:
        raise gr.Error("The candidates were made for the previous sentence: press Polish for this one first.",
                       title="Candidates out of date")
    return literal or "", "\n".join(candidates)


#: what a scoring run clears first (and a refused input too): the outputs of `build_rerank_tab`'s `outputs`
CLEARED = (None, None, None, None, "", gr.update(choices=[], value=None, visible=False), [], None)


def scoring(after, inputs: list, outputs: list, status, api_name, scored_with=None, knobs=(), other=None):
    """Chain a scoring run after `after` (a listener such as `button.click` or `dependency.success`): the results it
    replaces are cleared first, the progress and an error's mark sit on the table (never on the input boxes), and
    the status line says it runs, then nothing (done) or why it gave no result. `scored_with`: a state that keeps
    the `knobs` (weights and relevance) the run starts with (`weights_changed` compares them). `other`: (note,
    literal box, candidates box), `finish`'s. Returns the run's dependency."""
    table = outputs[0]
    if scored_with is not None:
        after(lambda *values: list(values), inputs=list(knobs), outputs=scored_with, api_name=False, queue=False,
              show_progress="hidden")
    if other is not None:
        after(lambda: "", outputs=other[0], api_name=False, queue=False, show_progress="hidden")
    start = start_run("Scoring…", *CLEARED)
    run = after(start, outputs=[*outputs, status], api_name=False, queue=False, show_progress="hidden").success(
        run_rerank, inputs=inputs, outputs=outputs, api_name=api_name, show_progress_on=table)
    finish(run, table, status, picker=(outputs[6], outputs[5]), other=other, scored_texts=outputs[7])
    return run


def finish(run, table, status, picker=(), other=None, scored_texts=None) -> None:
    """After a scoring run: the status line when it succeeded (`scale_note`; `picker`: the CSV's scored groups and
    the dropdown that shows one), the reason (and no table) when it failed; `other` (note, literal box, candidates
    box): the note says when the boxes no longer hold the texts the table scored (`other_text_note`)."""
    run.success(scale_note, inputs=[table, *picker], outputs=status, api_name=False, queue=False,
                show_progress="hidden")
    run.failure(failed_run(None), outputs=[table, status], api_name=False, queue=False)
    if other is not None:
        note, literal, candidates = other
        for end in (run.success, run.failure):
            end(other_text_note, inputs=[literal, candidates, scored_texts, table], outputs=note, api_name=False,
                queue=False, show_progress="hidden")


def build_rerank_tab() -> dict:
    """Returns {"literal", "candidates", "rerank_inputs", "rerank_outputs", "status", "run", "button", "scored_with",
    "knobs"} for wiring
    from other tabs and the page (`button`: Rerank, which a CSV run disables while it reads the file)."""
    with gr.Tab(tab_title("hauser"), id="rerank"):
        gr.Markdown("Score simile candidates for a literal sentence with **HAUSER** (He et al., ACL 2023): quality = "
                    "α·relevance + β·logical consistency + γ·sentiment consistency (each scaled from 0, the weakest of "
                    "the candidates, to 1, the best of them), creativity (rare images) and informativeness (the "
                    "image's length in words); the candidates are ranked by each and the three rankings are combined "
                    "by the rank weights quality : creativity : image words (served rank weights "
                    f"{ratio(DEFAULT_RANK_WEIGHTS)}, which put quality first; the paper's {ratio(PAPER_RANK_WEIGHTS)} "
                    "also rewards rare and long images).")
        tab_guide("rerank")
        notice = role_notice("nli", "sentiment", "parser", "embedder", "lm", "writer")
        if notice:
            gr.Markdown(notice)
        with gr.Row():
            with gr.Column(scale=3):
                literal = limited_textbox(MAX_CHARS, label="Literal sentence", value=EXAMPLES[0][0], max_lines=3,
                                          info=f"up to {MAX_CHARS:,} characters")
                candidates = gr.Textbox(label=f"Candidates (one per line, at most {MAX_CANDIDATES})",
                                        info=f"each up to {MAX_CHARS:,} characters",
                                        value=EXAMPLES[0][1], lines=6)
                upload = gr.File(label=f"…or upload a CSV with columns literal,candidate (or ; or tab; at most "
                                       f"{MAX_CSV_BYTES // 1000} kB and {MAX_CSV_ROWS:,} rows; every literal "
                                       f"sentence is scored, up to {MAX_CANDIDATES} candidates each)",
                                 file_types=[".csv"], elem_id="rerank-upload")
            with gr.Column(scale=2):
                gr.Markdown("Quality weights α : β : γ in parts, divided by their sum (3 : 2 : 1 means α, β, γ = "
                            "0.5, 0.33, 0.17); rank weights quality : creativity : image words. Served: quality "
                            f"weights {ratio(DEFAULT_QUALITY_PARTS)} and rank weights "
                            f"{ratio(DEFAULT_RANK_WEIGHTS)}, which put the similes writers kept first more often "
                            f"than the paper's {ratio(PAPER_QUALITY_PARTS)} and {ratio(PAPER_RANK_WEIGHTS)} did (see "
                            "the HAUSER page of the docs).", elem_classes=["studio-note"])
                alpha = gr.Slider(0, 6, value=DEFAULT_QUALITY_PARTS[0], step=1, label="α (relevance), parts")
                beta = gr.Slider(0, 6, value=DEFAULT_QUALITY_PARTS[1], step=1, label="β (logical consistency), parts")
                gamma = gr.Slider(0, 6, value=DEFAULT_QUALITY_PARTS[2], step=1,
                                  label="γ (sentiment consistency), parts")
                with gr.Row():
                    paper = gr.Button("The paper's weights", size="sm", elem_id="rerank-paper-weights")
                    served = gr.Button("Served weights", size="sm", elem_id="rerank-served-weights")
                with gr.Row():
                    wq = gr.Slider(0, 5, value=DEFAULT_RANK_WEIGHTS[0], step=0.5, label="rank weight: quality")
                    wc = gr.Slider(0, 5, value=DEFAULT_RANK_WEIGHTS[1], step=0.5, label="creativity")
                    wi = gr.Slider(0, 5, value=DEFAULT_RANK_WEIGHTS[2], step=0.5, label="image words")
                relevance = gr.Radio([("Eq. 2: Σ n·P over KB triplets", "eq2"), ("Eq. 3: pair count n(t, v)", "eq3")],
                                     value="eq2", label="Relevance")
        run = gr.Button(RUN_LABEL, variant="primary", elem_id="rerank-go")
        other_text = gr.Markdown(elem_id="rerank-other-text", elem_classes=["studio-note"])
        examples(EXAMPLES, [literal, candidates], "Examples (from the HAUSER paper)", run=run)
        groups = gr.State([])  # the scored groups the picker shows
        loaded = gr.State([])  # the uploaded CSV's (literal, candidates) groups, which Rerank scores again
        status = gr.Markdown(elem_id="rerank-status", label="Status")
        group_choice = gr.Dropdown(choices=[], label="Literal sentence shown", visible=False, interactive=True,
                                   elem_id="rerank-group")
        winner = gr.HighlightedText(label="Winner: topic / vehicle / event", color_map=COLOURS, show_legend=True,
                                    elem_id="rerank-winner")
        gr.Markdown("↔ The table is wider than the screen: swipe it sideways for the scores (a scrollbar under it "
                    "shows where you are).", elem_classes=["studio-note", "studio-phone-only"],
                    elem_id="rerank-swipe")
        table = gr.Dataframe(headers=SCREEN_COLUMNS, datatype=DATATYPES, interactive=False, wrap=True,
                             column_widths=COLUMN_WIDTHS, elem_id="rerank-table", elem_classes=["studio-wide-table"],
                             label=TABLE_LABEL)
        gr.Markdown(SCORES_NOTE, elem_classes=["studio-note"])
        chart = gr.Plot(label="Criteria per candidate", show_label=False)
        backends = gr.Markdown(label="Why these scores", elem_id="rerank-why")
        download = gr.File(label="Scored table (CSV, every raw value; JSON with each candidate's evidence)",
                           file_count="multiple", elem_id="rerank-download")
        # page plumbing, not endpoints: the API takes the parts directly
        paper.click(lambda: (*PAPER_QUALITY_PARTS, *PAPER_RANK_WEIGHTS), None, [alpha, beta, gamma, wq, wc, wi],
                    queue=False, api_name=False)
        served.click(lambda: (*DEFAULT_QUALITY_PARTS, *DEFAULT_RANK_WEIGHTS), None, [alpha, beta, gamma, wq, wc, wi],
                     queue=False, api_name=False)
        scored_with = gr.State(None)  # the settings the table on screen was scored with (none before a run)
        knobs = [alpha, beta, gamma, wq, wc, wi, relevance]
        for knob in knobs:  # any move (a drag, the arrow keys, a button) against the table's own settings
            knob.change(weights_changed, [table, scored_with, groups, group_choice, *knobs], status, queue=False,
                        api_name=False, show_progress="hidden")
        scored_texts = gr.State(None)  # the texts the table on screen scored (`texts_key`), returned by its run
        inputs = [literal, candidates, *knobs, loaded]
        outputs = [table, winner, chart, download, backends, group_choice, groups, scored_texts]
        other = (other_text, literal, candidates)
        for box in (literal, candidates):  # typing, an example, a group the picker put there
            box.change(other_text_note, [literal, candidates, scored_texts, table], other_text, queue=False,
                       api_name=False, show_progress="hidden")
        scoring(after_limit_check(run.click, (literal, "literal sentence", MAX_CHARS),
                                  clears=([*outputs, other_text, status], (*CLEARED, ""))).success,
                inputs, outputs, status, "rerank", scored_with, knobs, other)
        # the CSV's run fills the input boxes too; a bad file's error marks the table, not them
        # Rerank waits for the file (its first step disables the button, the run's end enables it): pressed while
        # the CSV was read, it scored the boxes' earlier text, and its table came after the file's, under the
        # file's first literal (a visitor's sweep, 2026-12-05)
        upload.upload(lambda *values: (list(values), ""), inputs=knobs, outputs=[scored_with, other_text],
                      api_name=False, queue=False, show_progress="hidden")
        csv_run = upload.upload(start_run("Scoring the CSV…", *clear_results(), gr.update(interactive=False)),
                                outputs=[*outputs, loaded, run, status], api_name=False, queue=False).then(
            run_csv, inputs=[upload, *inputs[2:-1]], outputs=[*outputs, loaded, literal, candidates],
            api_name="rerank_csv", show_progress_on=table)
        finish(csv_run, table, status, picker=(groups, group_choice), other=other, scored_texts=scored_texts)
        # a refused file leaves the upload box: Rerank would otherwise seem to score it, while it scores the boxes
        csv_run.failure(lambda: (None, gr.Button(RUN_LABEL, interactive=True)), outputs=[upload, run], api_name=False,
                        queue=False, show_progress="hidden")
        csv_run.success(lambda: gr.Button(RUN_LABEL, interactive=True), outputs=run, api_name=False, queue=False,
                        show_progress="hidden")
        group_choice.input(pick_group, inputs=[groups, group_choice],
                           outputs=[table, winner, chart, backends, literal, candidates, scored_texts],
                           api_name=False).then(
            picked_status, inputs=[table, scored_with, groups, group_choice, *knobs], outputs=status, api_name=False,
            queue=False, show_progress="hidden")
        build_imagine_topk(literal, table)
    return {"literal": literal, "candidates": candidates, "rerank_inputs": inputs, "rerank_outputs": outputs,
            "status": status, "run": run_rerank, "button": run, "scored_with": scored_with, "knobs": knobs,
            "other": other}


def wire_from_polish(polish: dict, rerank: dict, tabs: gr.Tabs) -> None:
    """The Polish tab's "Send to Rerank" button: fill this tab, switch to it and score (generate → rerank in two
    clicks)."""

    def send(literal, candidates, polished, shown):
        text_literal, text_candidates = fill_from_polish(literal, candidates, polished, shown)
        return text_literal, text_candidates, gr.Tabs(selected="rerank")

    # the button is usable only while the Polish tab holds candidates for the sentence in its box (polish_tab.py)
    sent = polish["send_button"].click(
        send, inputs=[polish["literal"], polish["candidates"], polish["polished"], polish["plain"]],
        outputs=[rerank["literal"], rerank["candidates"], tabs], api_name=False)
    scoring(sent.success, rerank["rerank_inputs"], rerank["rerank_outputs"], rerank["status"], False,
            rerank["scored_with"], rerank["knobs"], rerank["other"])
