"""The continuation judge's head (studio.continuation.judge): scorers over frozen `embedder` features, stored in
assets/continuation/judge/ as judge.json (members, input size, the embedder it was trained on, metrics) and
judge.safetensors. The registry serves it as the `judge` role (loaders/judge.py); training saves it here."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..atomic import atomic_write_bytes
from .heads import HeadConfig, build_module
from .specs import JUDGE_HEAD

JUDGE_DIR = JUDGE_HEAD  # where `train judge --legacy` writes and the `judge` role reads


@dataclass
class JudgeConfig:
    members: list[dict]  # {"name", "hidden"} per averaged scorer
    input_dim: int
    embedder: str = ""
    notes: str = ""
    metrics: dict = field(default_factory=dict)

    def head_config(self, member: dict) -> HeadConfig:
        return HeadConfig("single", self.input_dim, int(member["hidden"]), ["plausibility"])


def save_judge(folder: Path, members: list[tuple[str, int, object]], *, embedder: str, notes: str,
               metrics: dict) -> None:
    """members: (name, hidden, torch module). Written atomically, like the other heads."""
    from safetensors.torch import save

    cfg = JudgeConfig([{"name": n, "hidden": h} for n, h, _ in members], in_features(members[0][2]), embedder,
                      notes, metrics)
    state = {f"{i}.{k}": v.detach().cpu().contiguous()
             for i, (_, _, module) in enumerate(members) for k, v in module.state_dict().items()}
    atomic_write_bytes(Path(folder) / "judge.safetensors", save(state), mode=0o644)
    atomic_write_bytes(Path(folder) / "judge.json", json.dumps(asdict(cfg), indent=1).encode(), mode=0o644)


def load_judge(folder: Path) -> tuple[JudgeConfig, list]:
    from safetensors.torch import load_file

    folder = Path(folder)
    cfg = JudgeConfig(**json.loads((folder / "judge.json").read_text()))
    state = load_file(str(folder / "judge.safetensors"))
    modules = []
    for i, member in enumerate(cfg.members):
        module = build_module(cfg.head_config(member))
        prefix = f"{i}."
        module.load_state_dict({k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)})
        module.eval()
        modules.append(module)
    return cfg, modules


def has_judge(folder: Path) -> bool:
    return (Path(folder) / "judge.json").is_file() and (Path(folder) / "judge.safetensors").is_file()


def in_features(module) -> int:
    import torch.nn as nn

    return (module if isinstance(module, nn.Linear) else module[0]).in_features


@dataclass
class JudgeHead:
    """What the registry's `judge` role holds: the config and the scorers (torch modules)."""
    config: JudgeConfig
    modules: list
    model_id: str
    backend: str = "pairwise judge head (torch)"
    #: the embedder the head was trained on, when the profile's `embedder` is another one (else None)
    own_embedder: object = None

    @property
    def weights_mb(self) -> float:
        from .registry import _weights_mb

        own = _weights_mb(self.own_embedder) if self.own_embedder is not None else 0.0
        return own + sum(p.numel() * p.element_size() for m in self.modules for p in m.parameters()) / 2**20


def load_judge_role(spec, registry) -> JudgeHead:
    from .loaders.common import LoadError

    folder = Path(spec.model_id)
    if not has_judge(folder):
        raise LoadError(f"no judge in {folder}", "run `python -m studio train judge --legacy`", unavailable=True)
    cfg, modules = load_judge(folder)
    return JudgeHead(cfg, modules, str(folder), f"pairwise judge head over the embedder's features ({cfg.notes})",
                     _own_embedder(cfg, registry))


def _own_embedder(cfg, registry):
    """The embedder the judge was trained on, when the profile's `embedder` is another (its features would mean
    nothing) and it can be loaded here (the offline MiniLM ships in a package that requirements.txt installs, so a
    Space has it too); None otherwise, and always in the tiny profile."""
    from .specs import spec_for

    current = spec_for(registry.profile, "embedder", registry.settings.overrides.get("embedder")).model_id
    if registry.profile == "tiny" or not cfg.embedder or cfg.embedder == current:
        return None
    from .loaders.text import float32_sentence_transformer

    try:
        return float32_sentence_transformer(cfg.embedder, "the judge's embedder")
    except Exception:  # the package missing: the judge is unavailable, as before
        return None
