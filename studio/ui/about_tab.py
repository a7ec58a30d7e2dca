"""About tab: what the studio does, the papers behind it, and the profile in use."""
from __future__ import annotations

import gradio as gr

from ..models import get_registry
from ..results import fmt, headline, load_results, with_interval

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


def _cell(text) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def figures_text(results: list[dict] | None = None) -> str:
    """*How well it works*: the headline figure of every evaluation (results/*.json, as in the README's Results),
    without the commands and commits the README gives."""
    results = load_results() if results is None else results
    if not results:
        return ("## How well it works\n\nNo measured figures ship with this copy of the studio (its `results/` "
                "folder is missing); `python -m studio eval all` measures them.")
    rows = ["| capability | what was measured | split | n | studio | the paper's |", "|---|---|---|---|---|---|"]
    for r, f in headline(results):
        anchor = f.get("anchor")
        paper = f"{fmt(anchor['value'])} ({_cell(anchor['source'])})" if anchor else "—"
        rows.append(f"| {_cell(r['name'])} | {_cell(f['metric'])} | {_cell(f['split'])} | {f['n']} | "
                    f"{with_interval(f)} | {paper} |")
    dates = sorted(r["date"][:10] for r in results)
    runs = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    profiles = ", ".join(sorted({r.get("profile", "?") for r in results}))
    return "\n".join([
        "## How well it works",
        "",
        f"Measured on the {profiles} profile. The split says on what: *test*, data set apart from every choice; "
        "*grouped*, all 81 of HAUSER's rated similes, pooled by literal; *validation*, ePiC's own validation part; "
        "*blind read* and *benchmark stories*, the share of generated lines a strict reader kept, reading them "
        "without knowing what wrote them or their rank. [a, b] is a 95 % interval; \"N others: [a, b]\" is "
        "where the figure may land on another set of N items, as a held-out set would.",
        "",
        *rows,
        "",
        f"From the studio's `results/*.json` (runs of {runs}); the README gives the command "
        f"behind each figure."])


def build_about_tab() -> None:
    with gr.Tab("About", id="about"):
        gr.Markdown(ABOUT)
        gr.Markdown(profile_text)
        gr.Markdown(figures_text())
