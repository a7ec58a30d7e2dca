"""The model libraries (not the models) imported ahead of the first request.

Importing torch, transformers and sentence-transformers takes ~5 s, more than loading a small model from disk.
The registry still loads every model on first use; `app.py` only moves the library imports to start-up, in a
background thread, so the first request after start waits for its model and not for Python's imports."""
from __future__ import annotations

import importlib
import threading
import time

from ..settings import current
from .registry import LOAD_LOCK

LIBRARIES = ("torch", "transformers", "sentence_transformers")


def import_backends() -> dict[str, float]:
    """Import the model libraries now; seconds per library (0 for one already imported). Each import holds the
    registry's load lock, so a role loading in another thread (a first request) never sees a library half made."""
    spent = {}
    for name in LIBRARIES:
        started = time.perf_counter()
        try:
            with LOAD_LOCK:
                importlib.import_module(name)
        except ImportError:  # the first request will report what is missing, as it would have
            pass
        spent[name] = round(time.perf_counter() - started, 3)
    return spent


def import_backends_in_background() -> threading.Thread | None:
    """Start the imports in a daemon thread (STUDIO_IMPORT_AT_START=0: leave them to the first request)."""
    if not current().import_at_start:
        return None
    thread = threading.Thread(target=import_backends, name="import-model-libraries", daemon=True)
    thread.start()
    return thread
