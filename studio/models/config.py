"""Which profile and which model per role: env vars win over an optional studio.toml.

Never touches the network: the `auto` profile is decided from SPACE_ID, HF_HUB_OFFLINE and
what is already in the local Hugging Face cache.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

from ..paths import PROJECT_ROOT
from ..settings import ConfigError, current

PROFILES = ("hub", "offline", "tiny")
ROLES = ("embedder", "retrieval_embedder", "proverbs_encoder", "proverbs_adapter", "lm", "writer", "polisher",
         "polish_writer", "continuation_generator", "judge_cross", "simile_components", "polish_ranker", "nli",
         "sentiment", "clip", "diffusion", "parser", "language", "spelling")


def _toml_settings(path: Path | None = None) -> dict:
    path = path or current().config or PROJECT_ROOT / "studio.toml"
    if not path.is_file():
        return {}
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    return data.get("studio", data)


def cache_dir() -> Path:
    """Where converted weights, embeddings and images are cached (created on demand)."""
    env = current().cache_dir or _toml_settings().get("cache_dir")
    path = Path(env) if env else Path.home() / ".cache" / "figurative-studio"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _hub_models_cached() -> bool:
    """True when the hub profile's text models are already in the local HF cache (no network)."""
    from .specs import HUB_CACHE_PROBES

    try:
        from huggingface_hub import try_to_load_from_cache
    except Exception:
        return False
    for repo_id, filename in HUB_CACHE_PROBES:
        hit = try_to_load_from_cache(repo_id, filename)
        if not isinstance(hit, str):
            return False
    return True


def resolve_profile(requested: str | None = None) -> tuple[str, str]:
    """Return (profile, why)."""
    settings, env = _toml_settings(), current()
    value = (requested or env.profile or settings.get("profile") or "auto").strip().lower()
    if value in PROFILES:
        return value, f"STUDIO_PROFILE={value}" if env.profile else f"profile = {value}"
    if value != "auto":
        raise ConfigError(f"unknown profile {value!r}: choose one of auto, {', '.join(PROFILES)} (STUDIO_PROFILE)")
    if env.hf_hub_offline:
        return "offline", "auto: HF_HUB_OFFLINE=1"
    if env.space_id:
        return "hub", "auto: running on a Hugging Face Space (SPACE_ID set)"
    if _hub_models_cached():
        return "hub", "auto: the hub models are in the local cache"
    return "offline", "auto: no Space and no cached hub models"


@dataclass
class Settings:
    profile: str
    profile_reason: str
    overrides: dict[str, str] = field(default_factory=dict)
    max_memory_gb: float | None = None
    #: serve the float32 reference forms (no int8, int4 or bfloat16; loaders.common.reference_forms): numbers that
    #: every x86 CPU computes alike up to float32 rounding; what the evaluations' committed samples are computed on
    reference: bool = False

    @classmethod
    def from_env(cls, profile: str | None = None) -> "Settings":
        chosen, why = resolve_profile(profile)
        toml = _toml_settings()
        overrides = {k.lower(): str(v) for k, v in (toml.get("models") or {}).items()}
        env = current()
        overrides.update({role: env.models[role] for role in ROLES if role in env.models})
        unknown = set(overrides) - set(ROLES)
        if unknown:
            raise ConfigError(f"unknown role(s) in [models]: {', '.join(sorted(unknown))}; roles are {', '.join(ROLES)}")
        max_gb, budget = env.max_memory_gb, toml.get("max_memory_gb")
        if max_gb is None and budget not in (None, ""):
            try:
                max_gb = float(budget)
            except ValueError as exc:
                raise ConfigError(f"STUDIO_MAX_MEMORY_GB must be a number of GiB, not {budget!r}") from exc
        return cls(profile=chosen, profile_reason=why, overrides=overrides, max_memory_gb=max_gb)
