"""The imagine capability's front door: what the Imagine tab and the `imagine` command use — imagine two texts and
compare them (`imagine_pair`), rank k texts against one (`imagine_top_k`), the limits they state beside their
inputs, and which of its models this profile cannot serve (read from the registry's status: nothing is loaded to
find out). The work is in compare.py, render.py (Stable Diffusion) and scores.py (CLIP's similarities)."""
from __future__ import annotations

from ..models import UNAVAILABLE, get_registry
from .compare import MAX_TEXT_CHARS, MAX_TOP_K, ImagineResult, TopKResult, imagine_pair, imagine_top_k
from .render import MAX_GUIDANCE, MAX_SEEDS, MAX_SIZE, SIZE_STEP, RenderCancelled
from .scores import IMAGE_RANGE, TEXT_IMAGE_RANGE, outside_unit_interval

#: the registry's roles Imagine renders and compares with
ROLES = ("diffusion", "clip")

__all__ = ["IMAGE_RANGE", "TEXT_IMAGE_RANGE", "MAX_TEXT_CHARS", "MAX_TOP_K", "MAX_GUIDANCE", "MAX_SEEDS", "MAX_SIZE",
           "SIZE_STEP", "ROLES", "ImagineResult", "TopKResult", "RenderCancelled", "imagine_pair", "imagine_top_k",
           "outside_unit_interval", "unavailable_roles", "profile_name"]


def unavailable_roles() -> list[dict]:
    """The status rows of clip and diffusion that this profile cannot serve at all (state "unavailable": nothing to
    load or retry)."""
    return [row for row in get_registry().status() if row["role"] in ROLES and row["state"] == UNAVAILABLE]


def profile_name() -> str:
    """The model profile in use ("offline", "hub", "tiny")."""
    return get_registry().profile
