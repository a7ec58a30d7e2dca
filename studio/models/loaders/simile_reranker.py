"""Roles served from a small JSON file of weights this repository ships: the `simile_components` role (the learned
vehicle boundary, a linear reranker trained by `python -m studio train simile-components`, used by
studio/figures/component_model.py) and the `polish_ranker` role (Polish's keep, a logistic model fitted by
`python -m studio train polish-ranker`, used by studio/similes/aptness.py)."""
from __future__ import annotations

from pathlib import Path

from .common import LoadError


class JsonWeights:
    """A role whose model is a JSON file of weights: nothing to load beyond the file, nothing to close."""
    role = ""
    backend = ""
    checks = ()
    weights_mb = 0.0

    def __init__(self, weights: dict, meta: dict, model_id: str):
        self.weights, self.meta, self.model_id = weights, meta, model_id

    def close(self) -> None:
        pass


class SimileReranker(JsonWeights):
    """The `simile_components` role: the learned vehicle boundary's weights (studio/figures/component_model.py)."""
    role = "simile_components"
    backend = "linear reranker over parse features (components.json)"


class PolishRanker(JsonWeights):
    """The `polish_ranker` role: P(a writer keeps a Polish candidate), a logistic model's weights
    (studio/similes/aptness.py). Its features include the `embedder`'s cosines, so it serves only beside the embedder
    it was fitted with. `reread`: the weights of the writer's reread (aptness.REREAD_FEATURES), None when the file
    has none or they were fitted with another writer than this profile's."""
    role = "polish_ranker"
    backend = "logistic model over the polisher's score and embedder cosines (polish_ranker.json)"

    def __init__(self, weights: dict, meta: dict, model_id: str, reread: dict | None = None):
        super().__init__(weights, meta, model_id)
        self.reread = reread


def _read(spec, command: str) -> dict:
    import json

    path = Path(spec.model_id)
    if not path.is_file():
        raise LoadError(f"no {path.name} in {path.parent}", f"run `{command}`", unavailable=True)
    return json.loads(path.read_text(encoding="utf-8"))


def load_simile_reranker(spec, registry) -> SimileReranker:
    data = _read(spec, "python -m studio train simile-components")
    return SimileReranker(data["vehicle_end"], data.get("meta", {}), spec.model_id)


def load_polish_ranker(spec, registry) -> PolishRanker:
    data = _read(spec, "python -m studio train polish-ranker")
    fitted_with, served = data.get("meta", {}).get("embedder"), registry.spec("embedder").model_id
    if fitted_with != served:
        raise LoadError(f"{Path(spec.model_id).name} was fitted with the embedder {fitted_with!r}, not this "
                        f"profile's {served!r}", "Polish ranks by the polisher's score instead; refit with "
                        "`python -m studio train polish-ranker` under this profile", unavailable=True)
    meta = data.get("meta", {})
    reread = data.get("reread") if meta.get("writer") == registry.spec("writer").model_id else None
    return PolishRanker(data["weights"], meta, spec.model_id, reread)
