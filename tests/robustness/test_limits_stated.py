"""Every text input states its limit next to it and counts its characters against it, the limit is the very
constant the code enforces, and one character more gets a clear message naming that limit (never a silent cut)."""
from __future__ import annotations

import pytest
from gradio_client.exceptions import AppError

from studio.similes.analysis import MAX_SENTENCE_CHARS
from studio.continuation.story import MAX_NARRATIVE_CHARS as CONTINUE_MAX
from studio.continuation.judge import MAX_OPTION_CHARS
from studio.hauser.scorer import MAX_CANDIDATES
from studio.hauser.scorer import MAX_CHARS as HAUSER_MAX
from studio.imagine.compare import MAX_TEXT_CHARS as IMAGINE_MAX
from studio.imagine.render import MAX_SEEDS, MAX_SIZE
from studio.proverbs.service import MAX_NARRATIVE_CHARS as PROVERBS_MAX
from studio.similes.polish import MAX_CHARS as POLISH_MAX
from studio.similes.polish import MAX_N

#: (api_name, label of the text input, the constant the code enforces); the other inputs keep their defaults
TEXT_INPUTS = [
    ("/polish", "Literal sentence", POLISH_MAX),
    ("/components", "Simile sentence", MAX_SENTENCE_CHARS),
    ("/rerank", "Literal sentence", HAUSER_MAX),
    ("/imagine", "Text A (e.g. the literal sentence or the reference)", IMAGINE_MAX),
    ("/proverbs", "Narrative", PROVERBS_MAX),
    ("/continue", "Narrative", CONTINUE_MAX),
    ("/judge", "Continuation 1", MAX_OPTION_CHARS),
    ("/judge", "Continuation 2", MAX_OPTION_CHARS),
]


def _endpoint(client, api_name):
    return client.view_api(return_format="dict", print_info=False)["named_endpoints"][api_name]


def _component(client, api_name, label):
    info = client.config
    dep = next(d for d in info["dependencies"] if d.get("api_name") == api_name.lstrip("/"))
    by_id = {c["id"]: c for c in info["components"]}
    return next(by_id[i] for i in dep["inputs"] if by_id[i]["props"].get("label") == label)


def _stated(props) -> str:
    return " ".join(str(props.get(key) or "") for key in ("label", "info"))


@pytest.mark.parametrize("api_name,label,limit", TEXT_INPUTS, ids=[t[0] for t in TEXT_INPUTS])
def test_text_limit_is_stated_and_enforced(client, api_name, label, limit):
    props = _component(client, api_name, label)["props"]
    assert not props.get("max_length")  # the page never cuts a paste silently; the handler refuses it
    counts = [str(c["props"].get("value")) for c in client.config["components"]
              if "studio-count" in (c["props"].get("elem_classes") or [])]
    assert any(count.endswith(f" / {limit:,} characters") for count in counts), counts  # the live count's start
    if api_name != "/imagine":  # the Imagine tab states all its limits in one note under its inputs
        assert f"{limit:,}" in _stated(props), _stated(props)
    params = _endpoint(client, api_name)["parameters"]
    args = [p.get("parameter_default") if p.get("parameter_has_default") else p.get("example_input") for p in params]
    position = next(i for i, p in enumerate(params) if p["label"] == label)
    args[position] = "a" * (limit + 1)
    with pytest.raises(AppError, match=f"limit is {limit:,}"):
        client.predict(*args, api_name=api_name)


def test_imagine_note_states_seeds_and_size(client):
    notes = " ".join(str(c["props"].get("value") or "") for c in client.config["components"] if c["type"] == "markdown")
    assert f"1–{MAX_SEEDS} seeds" in notes and f"up to {MAX_SIZE} px" in notes and f"{IMAGINE_MAX:,} characters" in notes


def test_candidate_counts_are_stated(client):
    labels = [str(c["props"].get("label")) for c in client.config["components"]]
    polish_n = next(c for c in client.config["components"] if c["props"].get("label") == "Candidates")
    assert polish_n["props"]["maximum"] == MAX_N
    assert any(f"at most {MAX_CANDIDATES})" in label for label in labels)
