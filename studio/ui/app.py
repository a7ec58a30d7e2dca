"""Compose the tabs into one Blocks app. Each capability declares its tab in studio/capabilities.py."""
from __future__ import annotations

import importlib

import gradio as gr

from ..capabilities import tabs
from ..settings import current
from .help import INTRO, select_tab_from_link
from .session_files import MAX_AGE_S, end_session

#: (module, builder) in display order, from studio/capabilities.py; each builder creates one gr.Tab inside the
#: current Blocks
TABS = [tuple(tab.split(":")) for tab in tabs()]

QUEUE_MAX_SIZE = 64  # requests waiting beyond this get a "busy" answer instead of waiting forever
QUEUE_MAX_ENV = "STUDIO_QUEUE_MAX"
DEFAULT_CONCURRENCY = 2  # one per core on the target machine
UPLOAD_MAX_BYTES = 5_000_000  # refused by the server before any handler reads it (the CSV reader's own limit is lower)
UPLOAD_SWEEP_S = MAX_AGE_S  # uploaded and generated files older than this are deleted, checked as often
#: .studio-wide-table (Rerank's scores, the Models roles): a wide table keeps readable columns and scrolls inside its
#: own box on a phone, never the page; fixed cell widths there instead of the percentages, which squeeze 11 columns
#: into 330 px (a studio-text-N class widens the Nth, text column). No CSS comments in CSS: Gradio's CSS scoping drops the rule after one.
_CELLS = ".studio-wide-table .header-cell, .studio-wide-table .body-cell, .studio-wide-table td"
_RERANK = "#rerank-table .header-cell, #rerank-table .body-cell, #rerank-table td"
_RERANK_1 = ("#rerank-table .header-cell:nth-child(1), #rerank-table .body-cell:nth-child(1), "
             "#rerank-table td:nth-child(1)")
_RERANK_2 = ("#rerank-table .header-cell:nth-child(2), #rerank-table .body-cell:nth-child(2), "
             "#rerank-table td:nth-child(2)")
_RERANK_3 = ("#rerank-table .header-cell:nth-child(3), #rerank-table .body-cell:nth-child(3), "
             "#rerank-table td:nth-child(3)")


#: a wide table's own sideways scrollbar is always drawn (Gradio hides it), and on a phone a .studio-phone-only note
#: above it says to swipe: its columns are never out of sight without a sign.
#: .studio-examples (every tab's clickable examples, `common.examples`): on a phone their table fits the screen, its
#: columns in equal parts and their words wrapped (Rerank's two columns of long text ran off the right edge)
#: .studio-fit-table (Polish's, Proverbs', Continue's and the Models tables on screen): few columns that all fit the
#: screen, a phone's too; cells wrap between words, and on a phone a smaller font and padding keep the numbers legible
_FIT = ".studio-fit-table .header-cell, .studio-fit-table .body-cell, .studio-fit-table td, .studio-fit-table th"


def _text_column(n: int) -> str:
    """A table marked studio-text-N keeps its Nth column (the text) 240 px wide on a phone."""
    return ", ".join(f".studio-text-{n} {cell}:nth-child({n})" for cell in (".header-cell", ".body-cell", "td"))


def _fixed(px: int) -> str:
    return f"width: {px}px !important; min-width: {px}px !important; max-width: {px}px !important"


#: HighlightedText's own style breaks lines anywhere (word-break: break-all): "with h / er face" on screen even
#: when the spans are whole words. Lines break between words; only a word wider than the box is split.
_HIGHLIGHT_TEXT = ".token-container, .token-container .token, .token-container .text"

CSS = f"""
.studio-note {{font-size: 0.9em; opacity: 0.8}}
#polish-stale:has(.progress-text) {{min-height: 3.2em}}
{_HIGHLIGHT_TEXT} {{word-break: normal !important; overflow-wrap: break-word !important}}
.studio-wide-table table {{min-width: 900px}}
.studio-wide-table .virtual-table-viewport {{overflow-x: auto !important; scrollbar-width: thin !important;
  scrollbar-color: var(--color-accent) var(--background-fill-secondary) !important}}
.studio-phone-only {{display: none}}
{_FIT}, .studio-fit-table .cell-wrap {{word-break: normal !important; overflow-wrap: break-word !important;
  font-family: var(--font) !important}}
@media (max-width: 700px) {{
  .studio-phone-only {{display: block}}
  .studio-scroll-table table {{display: block; overflow-x: auto}}
  .studio-examples table {{table-layout: fixed; width: 100% !important}}
  .studio-examples td, .studio-examples th {{word-break: normal !important; overflow-wrap: break-word !important;
    white-space: normal !important}}
  button[role=tab] {{padding: 0 8px !important}}
  .studio-wide-table .virtual-table-viewport {{overflow-x: scroll !important}}
  {_FIT} {{font-size: 13px !important; padding: 4px 2px !important}}
  #models-table .header-cell, #models-table .body-cell {{font-size: 12px !important}}
  .studio-fit-table .cell-wrap {{padding: 2px !important}}
  {_CELLS} {{{_fixed(110)}; flex: none !important}}
  #rerank-table table {{min-width: 0 !important}}
  {_RERANK} {{{_fixed(84)}}}
  {_RERANK_1} {{{_fixed(46)}}}
  {_RERANK}, #rerank-table .cell-wrap {{font-family: var(--font) !important; font-size: 13px !important;
    word-break: normal !important; overflow-wrap: break-word !important; padding: 4px 2px !important}}
  {_RERANK_2} {{{_fixed(110)}}}
  {_RERANK_3} {{{_fixed(72)}}}
  {_text_column(1)}, {_text_column(2)}, {_text_column(3)} {{{_fixed(240)}}}
}}
.studio-scroll-table th, .studio-scroll-table td {{word-break: normal !important; overflow-wrap: normal !important}}
.studio-panel code {{white-space: normal; overflow-wrap: anywhere}}
#proverbs-proverb input {{text-overflow: ellipsis; padding-right: 2.2em !important}}
.studio-panel {{border: 1px solid var(--border-color-accent); border-radius: var(--radius-lg); padding: 4px 16px;
               background: var(--background-fill-secondary)}}
"""


def queue_max_size() -> int:
    """QUEUE_MAX_SIZE, or STUDIO_QUEUE_MAX (a Space with more cores waits longer; the tests flood a tiny queue)."""
    return current().queue_max or QUEUE_MAX_SIZE  # a ConfigError naming QUEUE_MAX_ENV when malformed


def build_demo(admin: bool | None = None) -> gr.Blocks:
    """`admin` None reads STUDIO_ADMIN (the Models tab's Load/Unload exist only when it is on)."""
    options = {} if admin is None else {"build_models_tab": {"admin": admin}}
    with gr.Blocks(title="Figurative Language Studio", delete_cache=(UPLOAD_SWEEP_S, UPLOAD_SWEEP_S)) as demo:
        gr.Markdown(INTRO, elem_id="studio-intro")
        link_note = gr.Markdown(elem_id="studio-link-note", elem_classes=["studio-note"])
        with gr.Tabs(overflow_behavior="wrap") as tabs:  # a phone shows every tab by name, on two rows, not "⋯"
            built = {builder: getattr(importlib.import_module(module), builder)(**options.get(builder, {}))
                     for module, builder in TABS}
        if built.get("build_polish_tab") and built.get("build_rerank_tab"):
            from .rerank_tab import wire_from_polish

            wire_from_polish(built["build_polish_tab"], built["build_rerank_tab"], tabs)
        # a shared link (?deep_link=…&tab=…) opens on the tab it was copied from; ?tab= takes a tab's id or label
        names = {}
        for tab in tabs.children:
            names.setdefault(str(tab.id).lower(), tab.id)
            names.setdefault(str(tab.label).lower(), tab.id)
        demo.load(select_tab_from_link(names), outputs=[tabs, link_note], api_name=False, queue=False,
                  show_progress="hidden")
        if built.get("build_rerank_tab"):  # a link copied while a CSV was read saved Rerank disabled: not for its page
            demo.load(lambda: gr.update(interactive=True), outputs=built["build_rerank_tab"]["button"], api_name=False,
                      queue=False, show_progress="hidden")
        demo.unload(end_session)  # a closed browser tab takes its uploads and downloads with it
    # a component whose value is a function (the profile lines, the Models table, a tab's notice) is refreshed by a
    # load event Gradio names after the function ("/lambda_4", "/status_table"): page plumbing, not an endpoint
    for dep in demo.fns.values():
        if dep.api_visibility == "public" and any(event == "load" for _, event in dep.targets):
            dep.api_visibility = "private"
    demo.queue(max_size=queue_max_size(), default_concurrency_limit=DEFAULT_CONCURRENCY)
    return demo


def launch_kwargs() -> dict:
    return {"theme": gr.themes.Soft(), "css": CSS, "max_file_size": UPLOAD_MAX_BYTES}


#: how long `launch` waits for the app's first answer on this machine
FIRST_ANSWER_S = 60.0


def _answers(url: str, deadline_s: float = FIRST_ANSWER_S) -> bool:
    """Whether the local server answers within `deadline_s`: Gradio's own check gives up after one 3-second request,
    and this app's first answer (its page config, about 90 events) can take longer on a busy 2-core machine; launch
    then failed with "When localhost is not accessible, a shareable link must be created"."""
    import time

    import httpx

    deadline = time.monotonic() + deadline_s
    while True:
        try:
            if httpx.head(url, timeout=10, verify=False).status_code in (200, 301, 302, 303, 307, 308, 401):
                return True
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)


def launch(demo: gr.Blocks, **kwargs):
    """`demo.launch(**launch_kwargs(), **kwargs)`, waiting up to FIRST_ANSWER_S for the server's first answer instead
    of Gradio's 3 seconds."""
    from gradio import networking

    quick = networking.url_ok
    networking.url_ok = _answers
    try:
        return demo.launch(**{**launch_kwargs(), **kwargs})
    finally:
        networking.url_ok = quick
