"""About tab: what the studio does, the papers behind it, and the profile in use."""
from __future__ import annotations

import gradio as gr

from ..models import get_registry

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


def build_about_tab() -> None:
    with gr.Tab("About", id="about"):
        gr.Markdown(ABOUT)
        gr.Markdown(profile_text)
