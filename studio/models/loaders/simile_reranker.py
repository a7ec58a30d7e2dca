"""The `simile_components` role: the learned vehicle boundary's weights, a JSON file of a linear reranker
(trained by `python -m studio train simile-components`, used by studio/similes/component_model.py)."""
from __future__ import annotations

from pathlib import Path

from .common import LoadError


class SimileReranker:
    """The `simile_components` role: the learned vehicle boundary's weights (studio/similes/component_model.py)."""
    role = "simile_components"
    backend = "linear reranker over parse features (components.json)"
    checks = ()
    weights_mb = 0.0

    def __init__(self, weights: dict, meta: dict, model_id: str):
        self.weights, self.meta, self.model_id = weights, meta, model_id

    def close(self) -> None:
        pass


def load_simile_reranker(spec, registry) -> SimileReranker:
    import json

    path = Path(spec.model_id)
    if not path.is_file():
        raise LoadError(f"no {path.name} in {path.parent}", "run `python -m studio train simile-components`",
                        unavailable=True)
    data = json.loads(path.read_text(encoding="utf-8"))
    return SimileReranker(data["vehicle_end"], data.get("meta", {}), str(path))


class PolishRanker:
    """The `polish_ranker` role: P(a writer keeps a Polish candidate), a logistic model's weights
    (studio/similes/aptness.py). Its features include the `embedder`'s cosines, so it serves only beside the embedder
    it was fitted with."""
    role = "polish_ranker"
    backend = "logistic model over the polisher's score and embedder cosines (polish_ranker.json)"
    checks = ()
    weights_mb = 0.0

    def __init__(self, weights: dict, meta: dict, model_id: str):
        self.weights, self.meta, self.model_id = weights, meta, model_id

    def close(self) -> None:
        pass


def load_polish_ranker(spec, registry) -> PolishRanker:
    import json

    path = Path(spec.model_id)
    if not path.is_file():
        raise LoadError(f"no {path.name} in {path.parent}", "run `python -m studio train polish-ranker`",
                        unavailable=True)
    data = json.loads(path.read_text(encoding="utf-8"))
    fitted_with, served = data.get("meta", {}).get("embedder"), registry.spec("embedder").model_id
    if fitted_with != served:
        raise LoadError(f"{path.name} was fitted with the embedder {fitted_with!r}, not this profile's {served!r}",
                        "Polish ranks by the polisher's score instead; refit with `python -m studio train "
                        "polish-ranker` under this profile", unavailable=True)
    return PolishRanker(data["weights"], data.get("meta", {}), str(path))
