"""Models tab: per role, the profile, model, state, load time and memory; load and unload buttons."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from ..models import ROLES, ModelUnavailable, get_registry
from .common import guarded

COLUMNS = ["role", "model", "backend", "state", "self_check", "load_seconds", "memory_mb", "reason", "fix"]


def _self_check(checks: list[dict]) -> str:
    """The accelerated forms tried on this CPU and their verdicts, in a line (the served form last)."""
    return "; ".join(f"{v['form']}: {'passed' if v['passed'] else 'FAILED'} ({v['value']:.3f}, needs {v['tolerance']})"
                     for v in checks)


def status_table() -> pd.DataFrame:
    rows = [{**row, "self_check": _self_check(row.get("self_check") or [])} for row in get_registry().status()]
    return pd.DataFrame(rows, columns=COLUMNS)


def profile_markdown() -> str:
    registry = get_registry()
    budget = registry.settings.max_memory_gb
    return (f"**Profile:** `{registry.profile}` — {registry.settings.profile_reason}. "
            f"Memory budget: {f'{budget:g} GiB' if budget else 'none (STUDIO_MAX_MEMORY_GB)'}.")


@guarded
def load_role(role: str):
    if role not in ROLES:
        raise gr.Error(f"Unknown role {role!r}.")
    try:
        get_registry().load(role)
        gr.Info(f"{role} is ready.")
    except ModelUnavailable as exc:
        gr.Warning(exc.message)
    return status_table()


@guarded
def unload_role(role: str):
    if role not in ROLES:
        raise gr.Error(f"Unknown role {role!r}.")
    get_registry().unload(role)
    return status_table()


def build_models_tab() -> None:
    with gr.Tab("Models", id="models"):
        gr.Markdown(profile_markdown)
        table = gr.Dataframe(value=status_table, headers=COLUMNS, interactive=False, wrap=True, label="Model roles")
        with gr.Row():
            role = gr.Dropdown(choices=list(ROLES), value="embedder", label="Role")
            load = gr.Button("Load", variant="primary")
            unload = gr.Button("Unload")
            refresh = gr.Button("Refresh")
        gr.Markdown("Models load on first use; loading here only warms them up. Profiles and per-role overrides are "
                    "set with `STUDIO_PROFILE` and `STUDIO_MODEL_<ROLE>` (see the README).")
        load.click(load_role, inputs=role, outputs=table, api_name="load_model", concurrency_id="models",
                   concurrency_limit=1)
        unload.click(unload_role, inputs=role, outputs=table, api_name="unload_model", concurrency_id="models",
                     concurrency_limit=1)
        refresh.click(status_table, outputs=table, api_name="models")
