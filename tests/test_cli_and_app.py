"""The CLI entry point, `import app`, and the running app through gradio_client."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPECTED_ROLES = ["embedder", "retrieval_embedder", "proverbs_encoder", "proverbs_adapter", "lm", "writer", "polisher", "continuation_generator", "judge", "judge_cross", "simile_components", "polish_ranker", "nli", "sentiment", "clip", "diffusion", "parser"]


def run_cli(*args, env=None):
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "studio", *args], cwd=ROOT, env=full_env, capture_output=True,
                          text=True, timeout=120)


def test_models_json_offline_lists_all_roles():
    proc = run_cli("models", "--json", env={"STUDIO_PROFILE": "offline"})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    roles = {r["role"]: r for r in data["roles"]}
    assert data["profile"] == "offline" and list(roles) == EXPECTED_ROLES
    for role in ("clip", "diffusion"):
        assert roles[role]["available"] is False and roles[role]["reason"] and roles[role]["fix"]


def test_bad_cli_input_is_one_line_and_nonzero():
    for args in (["no-such-command"], ["eval", "no-such-target"], ["--profile", "sideways", "models"]):
        proc = run_cli(*args)
        assert proc.returncode == 2
        assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr


def test_import_app_and_building_the_demo_load_no_model():
    code = ("import sys, app; assert 'gradio' not in sys.modules; demo = app.demo; "
            "heavy = [m for m in ('torch', 'transformers', 'spacy', 'sentence_transformers', "
            "'diffusers', 'open_clip') if m in sys.modules]; print(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_models_api(client, admin_client):
    table = client.predict(api_name="/models")
    roles = [row[0] for row in table["data"]]
    assert roles == EXPECTED_ROLES
    table = admin_client.predict("sentiment", api_name="/load_model")
    column = table["headers"].index("state")
    state = {row[0]: row[column] for row in table["data"]}
    assert state["sentiment"] == "ready"
