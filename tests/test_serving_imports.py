"""Serving never imports training or evaluation code: neither when a capability's serving module is imported nor
when it answers a request (a lazy import inside a request counts too)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from studio.capabilities import CAPABILITIES

#: module names that belong to training or evaluation, never to serving
NOT_SERVING = (".train", "_train", ".finetune", "lm_finetune", ".evaluate", ".train_heads", ".kb_build", "studio.cli",
               "nli_augment", "studio.lab")

#: a request to make after the import, where one runs without models beyond the tiny profile's
REQUESTS = {
    "studio.proverbs.service": "studio.proverbs.service.ranking('Maya put off her thesis all spring and had to write "
                               "day and night when the deadline came.', 3)",
}
#: every capability's serving modules, as declared in studio/capabilities.py
CASES = {module: REQUESTS.get(module, "") for c in CAPABILITIES for module in c.serving}


def test_every_capability_declares_its_serving_modules_and_they_exist():
    import importlib.util

    for c in CAPABILITIES:
        assert c.serving, c.name
        assert all(importlib.util.find_spec(m) is not None for m in c.serving), c.serving


def _imported_training_modules(code: str) -> list:
    """Run `code` in a fresh interpreter (tiny profile) and return the studio modules it imported that belong to
    training, evaluation or the command line."""
    code += f"\nimport sys\nprint([m for m in sys.modules if m.startswith('studio') and any(k in m for k in {NOT_SERVING!r})])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={"STUDIO_PROFILE": "tiny", "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("module", sorted(CASES))
def test_serving_imports_no_training_or_evaluation(module):
    assert _imported_training_modules(f"import {module}\n{CASES[module]}") == "[]"


def test_tab_modules_import_no_command_line_training_or_evaluation_code():
    from studio.capabilities import tabs

    modules = sorted({t.split(":")[0] for t in tabs()} | {"studio.ui.app"})
    assert _imported_training_modules(f"for m in {modules!r}: __import__(m)") == "[]"
