"""Shared fixtures: the tiny diffusion role wrapped so that tests can see (and hold) the work it does."""
from __future__ import annotations

import threading
import time

import pytest

from studio.models import Registry, Settings, get_registry, set_registry

STEP_S = 0.05  # slows every denoising step so that a job is long enough to be cancelled mid-way


class CountingDiffusion:
    """Wraps the tiny diffusion role: counts denoising steps and renders running at once."""

    def __init__(self, role):
        self.role, self.steps, self.active, self.max_active = role, 0, 0, 0
        self.lock = threading.Lock()
        self.gate = threading.Event()  # renders wait here until a test opens it
        self.gate.set()

    def __getattr__(self, name):
        return getattr(self.role, name)

    def render(self, prompt, on_step=None, **kwargs):
        def counted(i, n):
            with self.lock:
                self.steps += 1
            time.sleep(STEP_S)
            if on_step is not None:
                on_step(i, n)

        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            self.gate.wait(timeout=60)
            return self.role.render(prompt, on_step=counted, **kwargs)
        finally:
            with self.lock:
                self.active -= 1


@pytest.fixture
def counting_diffusion():
    previous, registry = get_registry(), Registry(Settings.from_env("tiny"))
    counter = CountingDiffusion(registry.get("diffusion"))
    entry = registry._entries["diffusion"]
    entry.model = counter
    set_registry(registry)
    yield counter
    set_registry(previous)


def wait_for(condition, timeout=30.0, what="the server"):
    deadline = time.time() + timeout
    while not condition():
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
