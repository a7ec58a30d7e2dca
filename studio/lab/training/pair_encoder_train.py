"""Training-side helpers of pair_encoder.py's stored pair encoders: one optimiser step and the stored fine-tuned part."""
from __future__ import annotations

import json
from pathlib import Path

from ...atomic import atomic_write_bytes
from ...models.pair_folder import CONFIG, WEIGHTS


def train_step(model, opt, sched, loss) -> float:
    """One optimiser step of a pair-encoder training loop (gradients clipped at norm 1); the loss as a float."""
    import torch

    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    return float(loss.detach())


def save_pair_encoder(folder: Path, model, config: dict) -> None:
    from safetensors.torch import save

    state = {k: v.detach().to("cpu").half().contiguous() for k, v in model.trained_state(config["frozen_layers"]).items()}
    atomic_write_bytes(Path(folder) / WEIGHTS, save(state), mode=0o644)
    atomic_write_bytes(Path(folder) / CONFIG, json.dumps(config, indent=1).encode(), mode=0o644)


def save_low_rank_pair_encoder(folder: Path, model, config: dict, prior: dict | None = None) -> None:
    """A pair encoder trained as low-rank factors (studio.lab.proverbs.finetune.add_low_rank on its encoder): the
    factors, named as the plain model's products ("encoder.<product>.lora_A" / ".lora_B"), and the scorer. `prior`:
    factors of the same names merged into the base before training; they are stored beside the trained ones
    (A stacked over A, B beside B: B'A' = B₀A₀ + BA), so that the base plus the stored factors is the trained model."""
    import torch
    from safetensors.torch import save

    from ..proverbs.finetune import low_rank_state

    state = low_rank_state(model)
    for name in list(state) if prior is not None else ():
        if name not in prior:
            raise ValueError(f"the prior factors lack {name}")
        state[name] = torch.cat([prior[name].to(state[name].dtype), state[name]],
                                dim=0 if name.endswith(".lora_A") else 1).contiguous()
    for name, value in model.head.state_dict().items():
        state[f"head.{name}"] = value.detach().half().contiguous()
    atomic_write_bytes(Path(folder) / WEIGHTS, save(state), mode=0o644)
    atomic_write_bytes(Path(folder) / CONFIG, json.dumps(config, indent=1).encode(), mode=0o644)
