"""Cancelling a long job (a render) through gradio_client stops the work and frees the render slot at once."""
from __future__ import annotations

import time
import uuid

from .conftest import STEP_S, wait_for


def test_cancelled_render_stops_and_frees_its_slot(client, counting_diffusion):
    max_steps = counting_diffusion.defaults.max_steps
    total = 2 * 5 * max_steps  # two texts, five seeds
    text = f"a wolf howls at a {uuid.uuid4().hex[:8]} moon"  # never in the image cache
    job = client.submit(text, text + " like a ghost", 5, 0, max_steps, 0, "model default", api_name="/imagine")
    wait_for(lambda: counting_diffusion.steps >= 3)
    job.cancel()  # returns once the server has cancelled the event
    stopped_at = counting_diffusion.steps
    time.sleep(10 * STEP_S)
    assert counting_diffusion.steps <= stopped_at + 1, "the cancelled render kept running"
    assert counting_diffusion.active == 0 and stopped_at < total

    after = client.predict("a red apple", "a green pear " + text, 1, 0, 1, 0, "model default", api_name="/imagine")
    assert after[1] and counting_diffusion.max_active == 1, "a second render ran beside the cancelled one"
