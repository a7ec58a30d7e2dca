"""The CLI entry point, `import app`, and the running app through gradio_client."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPECTED_ROLES = ["embedder", "retrieval_embedder", "proverbs_encoder", "proverbs_adapter", "lm", "writer",
                  "polisher", "polish_writer", "continuation_generator", "judge_cross", "simile_components",
                  "polish_ranker", "nli", "sentiment", "clip", "diffusion", "parser", "language", "spelling"]


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


def test_bad_cli_input_is_one_line_and_nonzero(capsys):
    """The CLI's main in this process (test_models_json_offline_lists_all_roles runs the real `python -m studio`)."""
    from studio.cli import main

    for args in (["no-such-command"], ["eval", "no-such-target"], ["--profile", "sideways", "models"]):
        capsys.readouterr()
        code = main(args)
        err = capsys.readouterr().err
        assert code == 2, args
        assert err.strip() and err.strip().count("\n") == 0 and "Traceback" not in err, (args, err)


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


def _documented_endpoints() -> dict[str, list[str]]:
    """docs/cli.md's API table: endpoint -> its inputs (an empty list for '–')."""
    import re

    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("\n## API\n", 1)[1]
    rows = re.findall(r"^\| `(/\w+)` \| ([^|]*) \|", section, flags=re.M)
    return {name: [] if inputs.strip() == "–" else [i.strip() for i in inputs.split(",")] for name, inputs in rows}


def test_every_api_endpoint_has_a_chosen_name_and_is_documented():
    import re

    from studio.ui import build_demo

    api = build_demo(admin=True).get_api_info()
    named = api["named_endpoints"]
    assert not api.get("unnamed_endpoints")
    for name, endpoint in named.items():
        assert not re.search(r"lambda|value_|_\d+$", name), name  # Gradio's names for unnamed events
        for output in endpoint["returns"]:
            assert not re.fullmatch(r"value_\d+", output["label"]), (name, output)  # an output with no label
    documented = _documented_endpoints()
    assert documented == {name: [p["parameter_name"] for p in endpoint["parameters"]]
                          for name, endpoint in named.items()}


def test_a_refused_input_logs_one_line_and_no_traceback(client, caplog, capfd):
    import logging

    import pytest
    from gradio_client.exceptions import AppError

    from studio.ui.polish_tab import MAX_SENTENCE_CHARS

    capfd.readouterr()
    with caplog.at_level(logging.INFO, logger="studio.ui"), pytest.raises(AppError, match="characters"):
        client.predict("word " * MAX_SENTENCE_CHARS, api_name="/components")
    refusals = [r for r in caplog.records if r.name == "studio.ui"]
    assert len(refusals) == 1 and "refused" in refusals[0].getMessage() and not refusals[0].exc_info
    assert "\n" not in refusals[0].getMessage()
    assert "Traceback" not in capfd.readouterr().err


def test_the_models_tab_shows_shipped_models_by_their_path_in_the_project(offline):
    from studio.ui.models_tab import status_table

    cells = [str(value) for value in status_table().to_numpy().ravel()]
    assert not [cell for cell in cells if str(ROOT) in cell]
    assert "assets/heads/sentiment" in cells


def test_launch_waits_for_a_slow_first_answer_where_gradio_gives_up():
    """A busy machine's first answer can take longer than Gradio's one 3-second try; `studio.ui.app.launch` waits."""
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from gradio import networking

    from conftest import free_port
    from studio.ui.app import _answers

    class Slow(BaseHTTPRequestHandler):
        def do_HEAD(self):
            time.sleep(4)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        assert not networking.url_ok(url)  # Gradio's own check: "When localhost is not accessible…"
        assert _answers(url, deadline_s=20)
    finally:
        server.shutdown()
    started = time.monotonic()
    assert not _answers(f"http://127.0.0.1:{free_port()}/", deadline_s=1)
    assert time.monotonic() - started < 5


def test_the_verdict_lines_follow_their_results():
    """Judge's sentence follows the bars, Show components' follows the JSON: each a change of that output, not an
    endpoint of its own (the /judge and /components answers keep their outputs)."""
    from studio.ui import build_demo

    demo = build_demo()
    by_id = {block._id: block for block in demo.blocks.values()}
    wired = set()
    for dep in demo.fns.values():
        for block_id, event in dep.targets:
            source = by_id.get(block_id)
            outs = [getattr(o, "elem_id", None) for o in dep.outputs]
            if event == "change" and source is not None and outs in (["judge-verdict"], ["components-verdict"]):
                assert dep.api_visibility != "public" and dep.fn.__name__ in ("judge_verdict_line",
                                                                              "components_verdict")
                wired.add((type(source).__name__, outs[0]))
    assert wired == {("Label", "judge-verdict"), ("JSON", "components-verdict")}


def test_the_judge_verdict_is_kept_with_the_texts_it_was_for():
    """The /judge run also stores the texts it judged (a State, so that a refusal or a new run clears them with the
    bars), its success checks the boxes against them, and each box's change does too."""
    from studio.ui import build_demo

    demo = build_demo()
    by_id = {block._id: block for block in demo.blocks.values()}
    judge = next(dep for dep in demo.fns.values() if dep.api_name == "judge")
    assert [type(o).__name__ for o in judge.outputs] == ["Label", "State"]
    checks = [dep for dep in demo.fns.values() if getattr(dep.fn, "__name__", "") == "other_texts_bars"]
    events = {(type(by_id[b]).__name__, event) for dep in checks for b, event in dep.targets if b in by_id}
    assert {"change"} == {event for kind, event in events if kind == "Textbox"} and len(checks) == 4
    assert any(dep.trigger_after == judge._id for dep in checks)  # after the run: a box edited meanwhile
