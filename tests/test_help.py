"""The first screen, each tab's "How to read this" and the share link, without a browser: one module holds the text,
every tab with results has it, and a shared link's tab parameter selects only a real tab."""
from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from studio.ui.help import HELP, INTRO, TAB_PARAM, UNKNOWN_TAB_NOTE, select_tab_from_link, share_link_js


def test_intro_is_two_lines_and_every_tab_but_about_has_help():
    from studio.ui import build_demo

    assert len([line for line in INTRO.splitlines() if not line.startswith("#")]) == 2
    demo = build_demo(admin=False)
    config = demo.get_config_file()
    tab_ids = {c["props"].get("id") for c in config["components"] if c["type"] == "tabitem"}
    assert set(HELP) == tab_ids - {"about"}
    accordions = {c["props"].get("elem_id"): c["props"] for c in config["components"] if c["type"] == "accordion"}
    for tab in HELP:
        assert accordions[f"{tab}-help"]["open"] is False  # collapsed by default
    buttons = {c["props"].get("elem_id") for c in config["components"] if c["type"] == "button"}
    assert {f"{t}-share" for t in ("polish", "rerank", "imagine", "proverbs", "continue")} <= buttons
    assert "models-share" not in buttons
    assert not any(d.get("api_name") and "share" in str(d.get("api_name")) for d in config["dependencies"])


def test_the_share_script_adds_the_tab_to_gradios_deep_link():
    js = share_link_js("proverbs")
    assert "gradio_api/deep_link" in js and f"searchParams.set('{TAB_PARAM}', 'proverbs')" in js
    assert js.index("searchParams.set('tab'") < js.index("clipboard.writeText")


def _request(**params):
    return SimpleNamespace(query_params=params)


TABS = {"polish": "polish", "proverbs": "proverbs", "about": "about"}


def test_a_link_selects_a_tab_by_id_or_label_and_a_bad_one_the_first_with_a_note():
    select = select_tab_from_link(TABS)
    for name, tab in (("proverbs", "proverbs"), ("Proverbs", "proverbs"), (" ABOUT ", "about")):
        update, note = select(_request(tab=name))
        assert update.selected == tab and note == "", name
    for bad in ("about<script>", "../models", "bogus", "continue", "<b>x</b>"):
        update, note = select(_request(tab=bad))
        assert update.selected == "polish" and note == UNKNOWN_TAB_NOTE, bad
        assert "<" not in note
    for empty in (_request(), _request(tab=""), None):
        update, note = select(empty)
        assert not isinstance(update, gr.Tabs) and note == ""


def test_the_intro_and_about_say_that_imagine_is_off_offline():
    from studio.ui.about_tab import ABOUT

    assert ("**Imagine** needs a text-to-image and a CLIP model: it is off in the *offline* profile, with nothing to "
            "share.") in INTRO
    assert "*offline* profile does\nnot have: there it is off" in ABOUT
