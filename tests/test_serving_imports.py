"""Serving never imports training or evaluation code: neither when a capability's serving module is imported nor
when it answers a request (a lazy import inside a request counts too)."""
from __future__ import annotations

import subprocess
import sys

import pytest

#: module names that belong to training or evaluation, never to serving
NOT_SERVING = (".train", ".finetune", ".evaluate", "studio.evaluation", ".train_heads", ".kb_build", "studio.cli")

CASES = {
    "proverbs": ("studio.proverbs.service",
                 "studio.proverbs.service.ranking('Maya put off her thesis all spring and had to write day and night "
                 "when the deadline came.', 3)"),
    "hauser": ("studio.hauser.scorer", ""),
    "similes": ("studio.similes.polish", ""),
    "continuation": ("studio.continuation.generate", ""),
    "judge": ("studio.continuation.judge", ""),
    "imagine": ("studio.imagine.compare", ""),
}


@pytest.mark.parametrize("capability", sorted(CASES))
def test_serving_imports_no_training_or_evaluation(capability):
    module, request = CASES[capability]
    code = (f"import sys, {module}\n{request}\n"
            f"print([m for m in sys.modules if m.startswith('studio') and any(k in m for k in {NOT_SERVING!r})])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={"STUDIO_PROFILE": "tiny", "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout
