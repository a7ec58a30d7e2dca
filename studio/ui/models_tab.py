"""Models tab: per role, the profile, model, state, load time and memory. Visitors see a read-only status; the
Load and Unload buttons (and their API endpoints) exist only when the operator sets STUDIO_ADMIN=1."""
from __future__ import annotations

import os
from pathlib import Path

import gradio as gr
import pandas as pd

from ..capabilities import tabs_using
from ..models import ROLES, ModelUnavailable, get_registry
from ..settings import current
from .common import escape, guarded, inform, warn
from .help import tab_guide

COLUMNS = ["role", "used_by", "model", "backend", "state", "self_check", "load_seconds", "memory_mb", "reason", "fix"]
#: every column at 1400 px, headers unbroken; long model paths, reasons and fixes wrap (the details table)
COLUMN_WIDTHS = ["9%", "8%", "12%", "11%", "7%", "16%", "7%", "7%", "11%", "12%"]
#: the table on screen: five narrow columns that fit a phone; the rest is under *Details*
SCREEN_COLUMNS = ["role", "used by", "state", "load (s)", "RAM (MB)"]
SCREEN_KEYS = ["role", "used_by", "state", "load_seconds", "memory_mb"]
ADMIN_ENV = "STUDIO_ADMIN"
#: what each column on screen means, shown under the table
SCREEN_NOTE = ("*used by*: the tabs that ask for the model; *state*: not loaded (it loads the first time a tab needs "
               "it) / loading / ready / unavailable (this setup cannot serve it) / failed; *load (s)*: how long its "
               "last load took, in seconds; *RAM (MB)*: the memory it holds while loaded. Which model each role "
               "is, how it was checked on this computer's processor, and what would make an unavailable one "
               "available are under *Details*.")
#: what each column of the details table means
COLUMNS_NOTE = ("*used_by*: the tabs that ask for the role; *state*: not loaded / loading / ready / unavailable (this profile cannot serve the role) / failed; "
                "*self_check*: each accelerated form (int8, int4, bf16) tried on this CPU and whether it agreed with "
                "float32 (the served form last); *load_seconds*: how long the last load took; "
                "*memory_mb*: the memory the loaded model holds (roles over one llama.cpp file share its "
                "weights, and each counts them); "
                "*reason* and *fix*: why a role cannot serve and what the operator sets to change that.")


def admin_enabled() -> bool:
    """True when the operator set STUDIO_ADMIN=1 (off by default: on a Space the visitor is not the operator)."""
    return current().admin  # a ConfigError naming ADMIN_ENV for a value other than 1/true/yes/on or 0/false/no/off


def _self_check(checks: list[dict]) -> str:
    """The accelerated forms tried on this CPU and their verdicts, in a line (the served form last)."""
    return "; ".join(f"{v['form']}: {'passed' if v['passed'] else 'FAILED'} ({v.get('measure', 'measured')} "
                     f"{v['value']:.3f}; needs {v['tolerance']})" for v in checks)


#: the project's folder: a model shipped in it is shown by its path inside it ("assets/heads/nli-cross"), never
#: by where the server keeps it
PROJECT = str(Path(__file__).resolve().parents[2]) + os.sep


def _project_relative(value):
    return value.replace(PROJECT, "") if isinstance(value, str) else value


def status_table() -> pd.DataFrame:
    rows = [{**row, "used_by": ", ".join(tabs_using(row["role"])) or "—", "self_check": _self_check(row.get("self_check") or [])}
            for row in get_registry().status()]
    return pd.DataFrame(rows, columns=COLUMNS).map(_project_relative)


def screen_table(full: pd.DataFrame | dict | None = None) -> pd.DataFrame:
    """The screen's five columns of the status table (`full`, or the registry's now)."""
    if isinstance(full, dict):
        full = pd.DataFrame(full.get("data") or [], columns=full.get("headers") or COLUMNS)
    full = status_table() if full is None else full
    table = full[SCREEN_KEYS].copy()
    table["role"] = table["role"].str.replace("_", " ")  # "continuation generator" wraps between its words
    table["load_seconds"] = pd.to_numeric(table["load_seconds"], errors="coerce").round(1)
    table["memory_mb"] = pd.to_numeric(table["memory_mb"], errors="coerce").round(0)
    table.columns = SCREEN_COLUMNS
    return table


def unavailable_markdown() -> str:
    """The roles this setup cannot serve, each with its reason, under the table (plain text)."""
    rows = [row for row in get_registry().status() if not row["available"]]
    if not rows:
        return ""
    return "**Unavailable here:** " + "; ".join(
        f"*{row['role']}* ({', '.join(tabs_using(row['role'])) or 'no tab'}): {escape(_project_relative(row['reason']))}"
        for row in rows) + "."


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
        inform(f"{role} is ready.")
    except ModelUnavailable as exc:
        warn(exc.message)
    return status_table()


@guarded
def unload_role(role: str):
    if role not in ROLES:
        raise gr.Error(f"Unknown role {role!r}.")
    get_registry().unload(role)
    return status_table()


def build_models_tab(admin: bool | None = None) -> None:
    """`admin` None reads STUDIO_ADMIN. Without admin the Load/Unload events are never created: they are neither
    in the page nor in the API."""
    admin = admin_enabled() if admin is None else admin
    with gr.Tab("Models", id="models") as tab:
        tab_guide("models", share=False)
        gr.Markdown(profile_markdown)
        table = gr.Dataframe(value=screen_table, headers=SCREEN_COLUMNS, interactive=False, wrap=True,
                             label="Model roles", elem_id="models-table", elem_classes=["studio-fit-table"],
                             column_widths=["27%", "20%", "25%", "12%", "16%"], max_height=1200)
        gr.Markdown(SCREEN_NOTE, elem_classes=["studio-note"])
        gr.Markdown(unavailable_markdown, elem_classes=["studio-note"])
        with gr.Accordion("Details: models, self-checks, reasons and fixes", open=False):
            full = gr.Dataframe(value=status_table, headers=COLUMNS, interactive=False, wrap=True,
                                label="Model roles, every column", column_widths=COLUMN_WIDTHS, max_height=1200,
                                elem_classes=["studio-wide-table"])
            gr.Markdown(COLUMNS_NOTE, elem_classes=["studio-note"])
        with gr.Row():
            if admin:
                role = gr.Dropdown(choices=list(ROLES), value="embedder", label="Role")
                load = gr.Button("Load", variant="primary")
                unload = gr.Button("Unload")
            refresh = gr.Button("Refresh")
        if admin:
            gr.Markdown("**Operator mode** (`STUDIO_ADMIN=1`): Load and Unload change the models for every user. "
                        "Models load on first use; loading here only warms them up. Profiles and per-role overrides "
                        "are set with `STUDIO_PROFILE` and `STUDIO_MODEL_<ROLE>` (see the README).")
            load.click(load_role, inputs=role, outputs=full, api_name="load_model", concurrency_id="models",
                       concurrency_limit=1).then(screen_table, inputs=full, outputs=table, api_name=False,
                                                 queue=False)
            unload.click(unload_role, inputs=role, outputs=full, api_name="unload_model", concurrency_id="models",
                         concurrency_limit=1).then(screen_table, inputs=full, outputs=table, api_name=False,
                                                   queue=False)
        else:
            gr.Markdown("A read-only status: each model loads the first time a feature needs it and is shared by "
                        "every visitor. The operator chooses profiles and models (`STUDIO_PROFILE`, "
                        "`STUDIO_MODEL_<ROLE>`) and can enable Load/Unload with `STUDIO_ADMIN=1` (see the README).")
        # the API's /models is the full table; the screen's is drawn from it
        refresh.click(status_table, outputs=full, api_name="models").then(
            screen_table, inputs=full, outputs=table, api_name=False, queue=False)
        # opening the tab shows the states as they are now (the models other tabs loaded since the page opened)
        tab.select(status_table, outputs=full, api_name=False, queue=False, show_progress="hidden").then(
            screen_table, inputs=full, outputs=table, api_name=False, queue=False, show_progress="hidden")
