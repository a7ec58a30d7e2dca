"""About tab: what the studio does, the papers behind it, and the profile in use."""
from __future__ import annotations

import gradio as gr

from ..models import get_registry
from ..results import fmt, load_results, with_interval

ABOUT = """
# Figurative Language Studio

Explore similes, proverbs and idioms with methods from four research papers:

| Capability | Paper |
|---|---|
| **Polish** a literal sentence into similes | HAUSER's simile polishing task (He et al., ACL 2023) |
| **Rerank** simile candidates on relevance, logical and sentiment consistency, creativity, informativeness | *HAUSER: Towards Holistic and Automatic Evaluation of Simile Generation*, He et al., ACL 2023 |
| **Imagine** two texts with Stable Diffusion and compare them with CLIP | *ImaginE: An Imagination-Based Automatic Evaluation Metric for Natural Language Generation*, Zhu et al. |
| **Proverbs** for a narrative, with aligned spans | *ePiC: Employing Proverbs in Context as a Benchmark for Abstract Language Understanding*, Ghosh & Srivastava, ACL 2022 |
| **Continue** a narrative that ends in an idiom or simile | *It's not Rocket Science: Interpreting Figurative Language in Narratives*, Chakrabarty, Choi & Shwartz, TACL 2022 |

Every model comes from one lazily loaded registry (see the **Models** tab): nothing loads until a feature needs it.
**Imagine** (and Rerank's *Imagine top k*) needs a text-to-image and a CLIP model, which the *offline* profile does
not have: there it is off, and its tab says what the operator sets to turn it on.
"""


def profile_text() -> str:
    registry = get_registry()
    return f"**Model profile in use:** `{registry.profile}` ({registry.settings.profile_reason})."


#: an evaluation's name (results/NAME.json) → the part of the studio it measures
CAPABILITY = {"hauser": "Rerank (HAUSER)", "nli": "Rerank: logic", "sentiment": "Rerank: sentiment",
              "components": "Components", "polish": "Polish", "polish-read": "Polish", "polish-ranker": "Polish",
              "continuation": "Continue", "continuation-read": "Continue", "proverbs": "Proverbs",
              "language": "English check", "spelling": "Typo notice"}


def _cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def figures_text(results: list[dict] | None = None, in_use: str | None = None) -> str:
    """*How well it works*: the headline figure of every evaluation (results/*.json, as the README's table has them),
    without the commands and commits the README gives. `in_use`: the profile the app serves, said when the figures
    were measured on another. A file it cannot read is left out (and said), never an error."""
    skipped = 0
    if results is None:
        try:
            results = load_results()
        except (OSError, ValueError):
            results, skipped = [], 1
    # the studio's figure right after what was measured: on a phone the columns after the third are off screen
    rows = ["| part | what was measured | studio | split | n | compared with |", "|---|---|---|---|---|---|"]
    dates, profiles = set(), set()
    for r in results:
        try:
            lines = [(f"| {_cell(CAPABILITY.get(r['name'], r['name']))} | {_cell(f['metric'])} | "
                      f"{with_interval(f)} | {_cell(f.get('split', '—'))} | {_cell(f.get('n', '—'))} | "
                      + (f"{fmt(f['anchor']['value'])} ({_cell(f['anchor']['source'])})" if f.get("anchor") else "—")
                      + " |") for f in r["figures"] if f.get("headline", True)]
        except (KeyError, TypeError, ValueError):
            skipped += 1
            continue
        rows += lines
        dates.add(str(r.get("date") or "")[:10])
        profiles |= {str(r["profile"])} if r.get("profile") else set()
    if len(rows) == 2:
        return ("## How well it works\n\nNo measured figures ship with this copy of the studio (`results/` holds "
                "none it can read); `python -m studio eval all` measures them.")
    dates.discard("")
    runs = "" if not dates else f" (runs of {min(dates)}" + (f" to {max(dates)})" if len(dates) > 1 else ")")
    measured = " and ".join(sorted(profiles))
    other = bool(profiles) and in_use is not None and in_use not in profiles
    return "\n".join([
        "## How well it works",
        "",
        (f"Measured with the models of the {measured} profile{'s' if len(profiles) > 1 else ''}"
         + (f", not the {in_use} profile this app serves: its models may do better or worse" if other else "")
         + ". " if profiles else "")
        + "The split says on what: *test*, data held out from every choice; *grouped*, all 81 of HAUSER's rated "
        "similes, pooled by literal; *validation*, ePiC's own validation part; *blind read* and *benchmark "
        "stories*, the share of generated lines a strict reader kept, reading them without knowing what wrote them "
        "or their rank. [a, b] is a 95 % interval; \"N others: [a, b]\" is where the figure may land on another set "
        "of N items, as a held-out set would.",
        "",
        *rows,
        "",
        f"From the studio's `results/*.json`{runs}"
        + (f"; {skipped} file{'s' if skipped > 1 else ''} could not be read" if skipped else "")
        + "; the README gives the command behind each figure."])


def build_about_tab() -> None:
    with gr.Tab("About", id="about"):
        gr.Markdown(ABOUT)
        gr.Markdown(profile_text)
        gr.Markdown(figures_text(in_use=get_registry().profile), elem_classes=["studio-scroll-table"])
