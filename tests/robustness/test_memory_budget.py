"""The memory budget (STUDIO_MAX_MEMORY_GB) holds while several roles take turns: the registry's accounted size
stays within it, the least recently used roles are evicted, an evicted role reloads on demand, and a request
still holding an evicted model finishes with it."""
from __future__ import annotations

import numpy as np
import pytest

from studio.models import NOT_LOADED, READY, Registry, Settings, get_registry, set_registry

#: roles whose weights the tiny profile builds in code, each with a call that exercises it
USES = {
    "embedder": lambda m: m.encode(["a wolf howls at the moon"]),
    "lm": lambda m: np.array([len(g.text) for g in m.generate(["He yelps"], max_new_tokens=3, seed=0)[0]]),
    "diffusion": lambda m: np.asarray(m.render("a wolf", seed=0, steps=1)),
    "clip": lambda m: m.encode_text(["a wolf"]).features,
}


def _accounted(registry) -> tuple[float, list[str]]:
    ready = [r for r in registry.status() if r["state"] == READY]
    return sum(r["memory_mb"] or 0.0 for r in ready), [r["role"] for r in ready]


@pytest.fixture(scope="module")
def sizes_and_outputs():
    """Each role's accounted size and output, measured without a budget."""
    registry = Registry(Settings.from_env("tiny"))
    outputs = {role: use(registry.get(role)) for role, use in USES.items()}
    return {r["role"]: r["memory_mb"] for r in registry.status() if r["role"] in USES}, outputs


def test_budget_holds_and_evicts_least_recently_used(sizes_and_outputs):
    sizes, outputs = sizes_and_outputs
    assert all(sizes[role] > 0 for role in USES), f"every role is accounted: {sizes}"
    # room for the largest role and the smallest, not for all: every turn of the largest must evict
    budget_mb = max(sizes.values()) + min(sizes.values()) * 1.5
    assert budget_mb < sum(sizes.values())
    settings = Settings.from_env("tiny")
    settings.max_memory_gb = budget_mb / 1024
    registry = Registry(settings)

    recency, evictions = [], 0
    turns = ["embedder", "lm", "diffusion", "clip", "embedder", "lm", "clip", "diffusion", "embedder"]
    for role in turns:
        was_loaded = {r["role"] for r in registry.status() if r["state"] == READY}
        output = USES[role](registry.get(role))
        np.testing.assert_allclose(output, outputs[role], atol=1e-5, err_msg=f"{role} reloaded differently")
        recency = [r for r in recency if r != role] + [role]
        used_mb, ready = _accounted(registry)
        assert used_mb <= budget_mb + 1e-6, f"{used_mb:.2f} MB accounted over a {budget_mb:.2f} MB budget"
        assert role in ready
        # the roles still loaded are always the most recently used ones
        assert set(ready) == set(recency[len(recency) - len(ready):]), (ready, recency)
        evictions += len(was_loaded - set(ready))
    assert evictions >= 3


def test_request_holding_an_evicted_model_finishes(sizes_and_outputs):
    sizes, outputs = sizes_and_outputs
    settings = Settings.from_env("tiny")
    settings.max_memory_gb = max(sizes.values()) / 1024  # one role at a time
    registry = Registry(settings)
    embedder = registry.get("embedder")  # a request got the model...
    registry.get("clip")  # ...then another request's role pushed it out of the budget
    assert {r["role"]: r["state"] for r in registry.status()}["embedder"] == NOT_LOADED
    np.testing.assert_allclose(embedder.encode(["a wolf howls at the moon"]), outputs["embedder"], atol=1e-5)


def test_models_tab_reports_the_accounting(admin_client, sizes_and_outputs):
    sizes, _ = sizes_and_outputs
    settings = Settings.from_env("tiny")
    settings.max_memory_gb = max(sizes.values()) / 1024
    previous, registry = get_registry(), Registry(settings)
    set_registry(registry)
    try:
        admin_client.predict("clip", api_name="/load_model")
        table = admin_client.predict("embedder", api_name="/load_model")
    finally:
        set_registry(previous)
    rows = {row[0]: dict(zip(table["headers"], row)) for row in table["data"]}
    assert rows["embedder"]["state"] == READY and rows["clip"]["state"] == NOT_LOADED
    assert rows["embedder"]["memory_mb"] == pytest.approx(sizes["embedder"], abs=0.1)
