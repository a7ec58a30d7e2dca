"""The model libraries imported at start-up, with no model loaded."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from studio.models import preimport


def test_start_up_imports_the_libraries_and_loads_no_model():
    code = ("import sys; from studio.models import get_registry; from studio.models.preimport import "
            "import_backends_in_background as f; t = f(); t.join(); "
            "print(all(m in sys.modules for m in ('torch', 'transformers', 'sentence_transformers')), "
            "[r['state'] for r in get_registry().status() if r['state'] != 'not loaded' and r['available']])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=Path(__file__).resolve().parents[1], env={**os.environ, "STUDIO_PROFILE": "offline"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "[]"]


def test_start_up_imports_can_be_left_to_the_first_request(monkeypatch):
    monkeypatch.setenv("STUDIO_IMPORT_AT_START", "0")
    assert preimport.import_backends_in_background() is None


def test_a_missing_library_is_left_for_the_first_request_to_report(monkeypatch):
    monkeypatch.setattr(preimport, "LIBRARIES", ("torch", "no_such_library_xyz"))
    assert set(preimport.import_backends()) == {"torch", "no_such_library_xyz"}


def test_an_import_at_start_waits_for_a_role_that_is_loading(monkeypatch):
    """A role loading in a request thread and the start-up imports never import a library at the same time."""
    import threading

    from studio.models.registry import LOAD_LOCK

    monkeypatch.setattr(preimport, "LIBRARIES", ("json",))
    with LOAD_LOCK:  # a role is loading
        thread = threading.Thread(target=preimport.import_backends, daemon=True)
        thread.start()
        thread.join(timeout=0.5)
        assert thread.is_alive()
    thread.join(timeout=10)
    assert not thread.is_alive()
