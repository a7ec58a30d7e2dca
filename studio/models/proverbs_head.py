"""The proverbs scorer's learned head (studio.proverbs.scorer): a linear adapter, per-proverb vectors and channel
weights, as plain safetensors arrays in assets/proverbs/ — scorer.* fitted on the retrieval embedder's
embeddings (three encoder passes per query) and scorer_onepass.* fitted on the fine-tuned encoder's (one pass).
The registry serves both as the `proverbs_adapter` role; `python -m studio train proverbs` writes them."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .specs import PROVERBS_ASSETS

SCORER_WEIGHTS = PROVERBS_ASSETS / "scorer.safetensors"
SCORER_CONFIG = PROVERBS_ASSETS / "scorer.json"
#: the adapter fitted on the fine-tuned encoder's own narrative embeddings: with it a query is one encoder pass
ONE_PASS_WEIGHTS = PROVERBS_ASSETS / "scorer_onepass.safetensors"
ONE_PASS_CONFIG = PROVERBS_ASSETS / "scorer_onepass.json"


@dataclass
class TrainedParts:
    model_id: str
    quote_ids: list[str]
    adapter: np.ndarray  # (d, d)
    prototypes: np.ndarray  # (n_trained, d) mean training-narrative embedding per proverb
    offsets: np.ndarray  # (n_trained, d) learned correction of each proverb vector
    mix: np.ndarray  # (3,) weights of text, meaning and prototype in a proverb vector
    weights: np.ndarray  # (6,) channel weights
    scale: float  # softmax temperature (inverse)
    config: dict = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.adapter, self.prototypes, self.offsets, self.mix, self.weights))


def read_adapter(weights_path: Path = SCORER_WEIGHTS, config_path: Path = SCORER_CONFIG) -> TrainedParts | None:
    """The arrays of one adapter file pair, or None when it is absent."""
    if not (Path(weights_path).is_file() and Path(config_path).is_file()):
        return None
    from safetensors.numpy import load_file

    cfg = json.loads(Path(config_path).read_text())
    t = load_file(str(weights_path))
    return TrainedParts(cfg["model_id"], cfg["quote_ids"], t["adapter"], t["prototypes"], t["offsets"], t["mix"],
                        t["weights"], float(t["scale"][0]), cfg)


@dataclass
class AdapterHead:
    """What the registry's `proverbs_adapter` role holds: both adapters (either may be None)."""
    three_pass: TrainedParts | None
    one_pass: TrainedParts | None
    model_id: str
    backend: str = "linear adapter (numpy)"

    @property
    def weights_mb(self) -> float:
        return sum(p.nbytes for p in (self.three_pass, self.one_pass) if p is not None) / 2**20


def load_adapter_role(spec, registry) -> AdapterHead:
    from .loaders.common import LoadError

    three, one = read_adapter(), read_adapter(ONE_PASS_WEIGHTS, ONE_PASS_CONFIG)
    if three is None and one is None:
        raise LoadError(f"no learned proverbs adapter in {spec.model_id}", "run `python -m studio train proverbs`",
                        unavailable=True)
    forms = [name for name, p in (("three-pass", three), ("one-pass", one)) if p is not None]
    return AdapterHead(three, one, spec.model_id, f"linear adapters ({' and '.join(forms)}), numpy")
