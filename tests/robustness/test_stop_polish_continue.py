"""Issue 19 item 5: Stop on Polish and Continue ends the work itself (the Stop buttons cancel the event; the API's
job.cancel() is the same cancellation): the worker thread sees it at its next decoding step or strategy."""
from __future__ import annotations

import threading
import time

import pytest

from .conftest import wait_for

STEP_S = 0.05


@pytest.fixture
def slow_draws(monkeypatch):
    """Every sampled token of the continuation decoder takes STEP_S and is counted."""
    from studio.continuation import decoding

    real, counter = decoding._draw, {"n": 0}
    lock = threading.Lock()

    def draw(*args, **kwargs):
        time.sleep(STEP_S)
        with lock:
            counter["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(decoding, "_draw", draw)
    return counter


def test_cancelled_continue_stops_decoding(client, slow_draws):
    # 10 samples × up to 60 tokens ≈ 30 s of draws if nothing stopped it
    job = client.submit("The night was dark and the [wind howled like a wolf].", "plain", 10, 7, 50, 1.5, 60,
                        api_name="/continue")
    wait_for(lambda: slow_draws["n"] >= 20, what="decoding to start")
    job.cancel()
    stopped_at = slow_draws["n"]
    time.sleep(30 * STEP_S)
    assert slow_draws["n"] <= stopped_at + 10, "decoding went on after Stop (at most the step under way finishes)"
    assert stopped_at < 600


def test_cancelled_polish_stops_before_the_next_strategy(client, monkeypatch):
    from studio.similes import polish as P

    from studio.ui.common import cancelled

    calls, real_insertion, returned = [], P.vehicles_by_insertion, threading.Event()

    def slow_insertion(*args, **kwargs):
        # busy until the server has taken the Stop (at most 20 s): a fixed 3 s raced the cancel on a loaded CI machine
        calls.append("insertion")
        deadline = time.monotonic() + 20
        while not cancelled() and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            return real_insertion(*args, **kwargs)
        finally:
            returned.set()

    def counted_retrieval(*args, **kwargs):
        calls.append("retrieval")
        return []

    monkeypatch.setattr(P, "vehicles_by_insertion", slow_insertion)
    monkeypatch.setattr(P, "vehicles_by_retrieval", counted_retrieval)
    job = client.submit("The old house creaked in the wind.", ["insertion", "retrieval"], 10, 0, api_name="/polish")
    wait_for(lambda: "insertion" in calls, what="polishing to start")
    job.cancel()
    wait_for(returned.is_set, what="the strategy under way to finish")
    time.sleep(1)
    assert calls == ["insertion"], "the next strategy ran after Stop"
