"""The queue is bounded: with every slot busy and the queue full, a request gets a clear "queue full" answer at
once instead of waiting forever, and the server answers normally once the work drains."""
from __future__ import annotations

import uuid

import pytest
from conftest import free_port
from gradio_client import Client
from gradio_client.utils import QueueError

from studio.models.config import ConfigError
from studio.ui import app as studio_app

from .conftest import wait_for

QUEUE_MAX = 2


@pytest.fixture
def small_queue_app(monkeypatch, counting_diffusion):
    monkeypatch.setenv(studio_app.QUEUE_MAX_ENV, str(QUEUE_MAX))
    demo = studio_app.build_demo()
    port = free_port()
    studio_app.launch(demo, server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    yield demo, Client(f"http://127.0.0.1:{port}/", verbose=False)
    counting_diffusion.gate.set()
    demo.close()


def _render(client, text):
    text = f"{text} {uuid.uuid4().hex[:8]}"  # never in the image cache, so every request renders
    return client.submit(text, text + " like a wolf", 1, 0, 1, 0, "model default", api_name="/imagine")


def test_excess_requests_get_queue_full_and_the_server_recovers(small_queue_app, counting_diffusion):
    demo, client = small_queue_app
    assert demo._queue.max_size == QUEUE_MAX
    counting_diffusion.gate.clear()  # renders hold their slot until the gate opens
    running = _render(client, "a moon over the queue test")
    wait_for(lambda: counting_diffusion.active == 1, what="the first render to start")
    waiting = [_render(client, f"a queued moon {i}") for i in range(QUEUE_MAX)]
    wait_for(lambda: len(demo._queue) == QUEUE_MAX, what="the queue to fill")

    for i in range(3):
        with pytest.raises(QueueError, match="(?i)queue is full"):
            _render(client, f"one moon too many {i}").result(timeout=30)

    counting_diffusion.gate.set()
    for job in [running, *waiting]:
        assert job.result(timeout=60)[1], "an accepted request did not finish"
    summary = client.predict("a quiet room", "a room as quiet as a tomb", 1, 0, 1, 0, "model default",
                             api_name="/imagine")[1]
    assert "ImaginE" in summary
    assert counting_diffusion.max_active == 1


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_bad_queue_size_is_refused(monkeypatch, value):
    monkeypatch.setenv(studio_app.QUEUE_MAX_ENV, value)
    with pytest.raises(ConfigError, match=studio_app.QUEUE_MAX_ENV):
        studio_app.queue_max_size()
