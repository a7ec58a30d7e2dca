"""The model registry: the only place that names or loads a model.

    from studio.models import get
    embedder = get("embedder")          # loads on first use
    vectors = embedder.encode(["a text"])
"""
from .config import PROFILES, ROLES, ConfigError, Settings, cache_dir
from .registry import (FAILED, LOADING, NOT_LOADED, READY, UNAVAILABLE, ModelUnavailable, Registry, UnknownRole, get,
                       get_registry, set_registry, using_registry)
from .roles import (NLI_LABELS, ClipModel, DiffusionModel, Embedder, Generation, LanguageModel, NLIModel, Parser,
                    RenderDefaults, SentimentModel, TextFeatures)

__all__ = [
    "PROFILES", "ROLES", "ConfigError", "Settings", "cache_dir", "FAILED", "LOADING", "NOT_LOADED", "READY",
    "UNAVAILABLE", "ModelUnavailable", "Registry", "UnknownRole", "get", "get_registry", "set_registry",
    "using_registry", "NLI_LABELS",
    "ClipModel", "DiffusionModel", "Embedder", "Generation", "LanguageModel", "NLIModel", "Parser", "RenderDefaults",
    "SentimentModel", "TextFeatures",
]
