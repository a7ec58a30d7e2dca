"""The words a first-time visitor reads: the two-line first screen, each tab's "How to read this" (collapsed), and
the button that copies a shareable link to a tab's result. All the text lives here; a tab adds both with one call,
`tab_guide(tab_id)`, so the tab modules stay about their feature."""
from __future__ import annotations

import time
from types import SimpleNamespace

import gradio as gr
from gradio.utils import get_icon_path

#: the first screen, above the tabs: what the studio does, in two lines (no user text here)
INTRO = ("# Figurative Language Studio\n"
         "Type a sentence or a short story and explore its figurative language: turn a plain sentence into similes "
         "and rank them, picture two texts, find the proverb a story tells, continue a story that ends in an idiom "
         "or a simile.  \n"
         "These five tabs have examples (a click runs one), a **How to read this** note, and **Copy a link** to share "
         "what you see. **Imagine** needs a text-to-image and a CLIP model: it is off in the *offline* profile, with "
         "nothing to share.")

HELP = {
    "polish": """
**What to do.** Type a plain (literal) sentence in English or click an example, keep the sources ticked, press
**Polish**. **Stop** ends a long run; the line above the table then says it stopped. A greeting ("Hello."), a
sentence that already holds a simile, or one in another language is refused with the reason; for a simile, a button
under **Polish** offers the sentence without it ("Polish “The sky was blue.” instead"). A likely typo is
named above the table with the corrected sentence ("verry sofft": did you mean "very soft"?); the sentence is polished
as typed, and a button under **Polish** ("Polish “… very soft.” instead") polishes the corrected one.

**What you see.** Each row is one candidate: the sentence with the inserted simile phrase in **bold**, the source
that proposed it (with **KB ✓**, below) and **keep**; the phrase and the **score** (shown as *fluency* when no keep
model is served) are under *Details*. **keep** (0–1) is the keep model's estimate of how likely a writer is to keep
the candidate, learned from our blind reads (readers judged thousands of candidates usable or not): it weighs the
score with how close the vehicle is to "something ADJ" or "something that VERB", to the sentence and to its subject.
Read it as an order more than a chance: on sentences no reader saw, a strict reader kept far fewer lines than keep
says. The list is best first by keep (with the *writer* source, the knowledge base's images for
an adjective and then the writer's come first, in their own order; the status line says so): before it is cut, the
writer model reads the 20 best candidates again (the image table's images among them) and their keep takes in how
likely it finds the simile in the sentence. Keep runs high on new sentences: the line above the table says how many
of Polish's lines a strict reader of new sentences kept. Where the keeps of four or more lines sum to under a
quarter, it says few apt images were found: rewording the sentence may help more than another seed. Should the
writer model fail to reread, the image table's images (source *images*) come first and have no keep. The **score**
(0–1) is how readily the polisher writes this simile for this sentence (the geometric mean of its per-token
probabilities over the phrase and the word after it; higher reads more fluently; long sentences get low scores
throughout). **KB ✓** after the source marks an "as ADJ as" simile whose vehicle the simile
knowledge base knows for that adjective ("as sweet as honey"); keep takes the mark into account.
An "as ADJ as" simile whose vehicle suits the opposite adjective better ("as heavy as a feather"), or a "like" simile
whose vehicle suits the opposite of the sentence's manner adverb ("walked slowly … like a deer": the polisher or the
simile knowledge base finds the vehicle fast), is left out. None is
dropped for a low keep or score (a list shorter than asked says why). Without the ranker (the hub and tiny profiles)
keep is empty and candidates are ranked by the score, KB ✓ counting double. Neither number says how creative a
simile is: **Send to Rerank** scores that (it waits for a Polish of the sentence in the box: candidates made for
another sentence are never scored against this one). The line above the table says how many candidates came out of
the number asked, and why any are missing (too few distinct vehicles from the chosen sources, near duplicates merged).

**Click a row** to see its simile's parts below (topic, vehicle, event, property); or type any simile in
*Components of a simile*, where a detector also says whether the comparison is a simile: it reads the wording and
knows only which nouns are kinds of which ("Fruits like apples are healthy." compares like with like), so a few
literal comparisons pass ("He speaks English like a native speaker.") and a few similes do not ("She ran like the
wind."). The CSV and JSON downloads hold every candidate with its numbers.
""",
    "rerank": """
**What to do.** A literal sentence, then one simile candidate per line (or a CSV with columns `literal,candidate`,
or separated by semicolons or tabs;
several literal sentences are scored separately and picked from the list above the table). Press **Rerank**.

**What you see.** The **winner** with its topic, vehicle and event coloured, then a table sorted by **rank** (1 = best).
**quality** (0–1) mixes three criteria, each normalized among *these* candidates (0 = worst here, 1 = best here):
**relevance** (how strongly the knowledge base links topic and vehicle, plus how naturally the writer model expects the vehicle where it stands), **logic** (1 − the chance the simile
contradicts the literal sentence; an ironic “as loud as a whisper” is judged as what it means, “very soft”, and the
evidence says so; after “The river was not slow.”, “as slow as a snail” contradicts it and “as fast as a cheetah”
agrees) and **sentiment** (whether the simile keeps the sentence's tone). **creativity**: higher for a
vehicle neither the knowledge base nor the language model expects, lower for common ones, also compared within the
list (0–1 on screen; the raw value, unbounded, is in the details and the CSV). **image words** (informativeness): the
vehicle's length in words. *no simile* marks a candidate without one (ranked last), *contradicts* one the meaning
check is at least 90 % sure contradicts the literal sentence, *off the sentence* one that keeps less than a quarter of
the literal sentence's content words and means little like it (a line of another sentence), *no words* an image
that is an emoji or a sign (“🍋”, “a 🍋”), which the knowledge base cannot know, *offensive image* an image that
names a people or holds a slur or an obscenity (the four ranked after the others). With a single candidate there is
nothing to compare, so the 0–1 columns stay empty.
*Why these scores* says in words what the knowledge base and the models found; its *Details* hold the raw evidence.

The sliders weigh quality's parts (α : β : γ) and the three rankings; the two buttons set both, the paper's weights
or the served ones. A moved weight applies at the next **Rerank**. **Relevance** chooses how the knowledge base
counts a topic and its image: *Eq. 2* adds up the properties its similes give the pair, each by how often and how
surely; *Eq. 3* counts how often the pair is compared at all. They differ only where the knowledge base knows the
pair; where it does not, the writer model's fit decides, so many lists come out the same. Click a column title to
sort. The CSV holds every
raw number, unrounded. *Imagine top k* pictures the best similes (when the studio has an image model).
""",
    "imagine": """
**What to do.** Type two texts (or click an example): a literal sentence and its simile, or a reference and a
hypothesis. Press **Imagine**; more seeds = more pictures per text and a steadier score, but slower.

**What you see.** Pictures of A and B side by side, one row per seed. **ImaginE_image** compares the two pictures;
**ImaginE_text&image** compares each text with the other text's picture. Both are CLIP cosines rescaled to about 0–1
(higher = the two texts evoke more similar images); the raw cosine is shown beside them, and values outside 0–1 are
shown as computed. The text-metric table adds ImaginE to BLEU, ROUGE-L and an embedding cosine (all 0–1).
""",
    "proverbs": """
**What to do.** Type a short story (a few sentences; at least 3 words, since a proverb sums up a story) or click an
example, press **Recommend proverbs**.

**What you see.** The proverbs that fit best, ranked. **fit (%)** is each proverb's share among *all* the
catalog's proverbs (they add up to 100 %), so with hundreds of proverbs 5 % can be a clear winner; the themes, the raw
score behind it and the ids are under *Details*. A dated or offensive proverb carries a note. **Choose a proverb** under *Aligned spans* (or press **Align**): each colour pairs a phrase of the
proverb with the part of your story it matches; **similarity** is how close they are in meaning (up to 1).
*Similar narratives* ranks other stories (one per line, or the examples) by how alike their proverbs are.
""",
    "continue": """
**What to do.** Type a story that ends in an idiom or a simile (mark it with `[ ]` if you like, e.g.
`… she decided to [wing it].`) or click an example. Choose a **mode**: *writer* (the default: the writer model, a
1.5 B instruction-tuned model, told the idiom's meaning when it is known), *tuned* (a small generator trained on the
benchmark's stories), *plain*, *literal* (uses the expression's meaning) or *context* (uses guesses about the
narrator). The last four rebuild the paper's systems on the small language model, for comparison: they often miss the
figure's sense, and *context* tends to write about "the narrator" instead of continuing the story. Press
**Continue**; **Stop** ends it early.

**What you see.** The expression found (highlighted) and its meaning, then one-sentence continuations, best first.
In writer mode the writer draws 6 sentences at once and 3 are shown: whole sentences first, then those that do not
reuse the idiom's own words or add a new simile, then by **p(plausible)**, the judge's probability (0–1) that it is a
plausible next sentence, a sentence that only says the story's last sentence again moved down by how close it is to it
(*why here* says so). In tuned mode the generator draws a pool of samples (*Samples drawn*, under Sampling) and the
best are shown, ranked by **fluency** (how naturally the sentence follows the story: the language model's mean log-probability per token,
closer to 0 is better) plus a little of **p(plausible)**, the judge's probability (0–1) that it is a plausible next
sentence; the other modes are ranked by p(plausible). **samples** says how many of the samples drawn gave that same
sentence; the line above says when fewer distinct sentences came than asked. Expect to pick: a strict reader keeps
only some of the sentences shown (how many, on stories the studio never saw, is under About, *How well it works*).
*Judge* compares two continuations you write for the same story.
""",
    "models": """
**What you see.** Every model role the studio uses, its state (*not loaded* until a feature first needs it, then
*ready*), the model, how it is served, its load time and memory. *unavailable* says why, and what the operator sets
to change it. Press **Refresh** to update. Visitors cannot load or unload models: they are shared by everyone.
""",
}
SHARE_LABEL = "Copy a link to this result"
SHARE_COPIED = "Link copied: it opens this tab with what you see"
#: the query parameter that names the tab a shared link opens
TAB_PARAM = "tab"


def share_link_js(tab_id: str) -> str:
    """Gradio's deep link script (gr.DeepLinkButton's: the server stores a snapshot of the page's components under a
    hash and the script copies the page's URL with `?deep_link=<hash>`), with the tab added (`&tab=<tab_id>`), so the
    link opens that tab (`select_tab_from_link`). A subclass of DeepLinkButton would be served as a custom component
    whose frontend does not exist, so the script goes on a plain button."""
    js = gr.DeepLinkButton.get_share_link(SimpleNamespace(elem_id=f"{tab_id}-share"), SHARE_LABEL, SHARE_COPIED)
    marker = "navigator.clipboard.writeText(currentUrl.toString());"
    if marker not in js:
        raise RuntimeError("gradio's deep link script changed: studio/ui/help.py must follow it")
    return js.replace(marker, f"currentUrl.searchParams.set('{TAB_PARAM}', '{tab_id}');\n{marker}")


def share_button(tab_id: str, **kwargs) -> gr.Button:
    """The deep link button of a tab: copies the link, says so, and shows its label again a moment later."""
    button = gr.Button(SHARE_LABEL, size="sm", elem_id=f"{tab_id}-share", elem_classes=["studio-share"],
                       icon=get_icon_path("link.svg"), **kwargs)  # Gradio's own link icon (an emoji needs a font)
    button.click(None, js=share_link_js(tab_id), outputs=[button], api_visibility="private")
    button.click(lambda: time.sleep(2) or SHARE_LABEL, outputs=[button], queue=False, api_visibility="private",
                 show_progress="hidden")
    return button


def tab_guide(tab_id: str, share: bool = True, note: str = "") -> None:
    """Under a tab's title: "How to read this" (collapsed; `note` above the tab's help: a tab that is off here) and,
    for a tab with results, the share button."""
    with gr.Row(equal_height=True):
        with gr.Column(scale=4):
            with gr.Accordion("How to read this", open=False, elem_id=f"{tab_id}-help"):
                gr.Markdown((f"{note}\n\n" if note else "") + HELP[tab_id].strip())
        if share:
            share_button(tab_id, scale=1, min_width=200)


#: the note above the tabs when a link names a tab the studio does not have (the link's value is not shown)
UNKNOWN_TAB_NOTE = "⚠️ The link names a tab this studio does not have, so the first tab is shown."


def select_tab_from_link(tabs: dict[str, str]):
    """The page-load handler of a shared link (`?tab=…`): `tabs` maps each tab's id and label, in lower case, to its
    id (the first tab first). A tab named by its id or label, in any case, opens; any other value opens the first tab
    with UNKNOWN_TAB_NOTE; no value changes nothing. Returns (the Tabs' update, the note)."""

    def select(request: gr.Request = None):
        tab = (request.query_params.get(TAB_PARAM) or "").strip() if request else ""
        if not tab:
            return gr.update(), ""
        if tab.lower() in tabs:
            return gr.Tabs(selected=tabs[tab.lower()]), ""
        return gr.Tabs(selected=next(iter(tabs.values()))), UNKNOWN_TAB_NOTE

    return select
