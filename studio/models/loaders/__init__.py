"""Backends: each turns a ModelSpec into a role object. Imported lazily so that nothing heavy loads
before a feature asks for it."""
from __future__ import annotations

import importlib

#: backend name -> (module, function); the function takes (spec, registry) and returns a Role
LOADERS = {
    "sentence_transformers": ("text", "load_sentence_transformer"),
    "alias": ("text", "load_alias"),
    "onnx_int8": ("onnx_text", "load_onnx_int8"),
    "transformers_nli": ("text", "load_transformers_nli"),
    "transformers_sentiment": ("text", "load_transformers_sentiment"),
    "pair_nli": ("..pair_nli", "load_pair_nli"),
    "embedding_head_or_vader": ("text", "load_head_sentiment_or_vader"),
    "embedding_head_sentiment": ("text", "load_head_sentiment"),
    "vader": ("text", "load_vader"),
    "transformers_lm": ("lm", "load_transformers_lm"),
    "gguf_lm": ("lm", "load_gguf_lm"),
    "gguf_writer": ("lm", "load_gguf_writer"),
    "open_clip": ("vision", "load_open_clip"),
    "diffusers": ("vision", "load_diffusers"),
    "spacy": ("parser", "load_spacy"),
    "langid": ("language", "load_langid"),
    "pyspellchecker": ("language", "load_pyspellchecker"),
    "embedder_variant": ("..variants", "load_variant_role"),
    "simile_reranker": ("simile_reranker", "load_simile_reranker"),
    "polish_ranker": ("simile_reranker", "load_polish_ranker"),
    "lm_variant": ("..lm_delta", "load_lm_variant_role"),
    "writer_variant": ("..lm_delta", "load_writer_variant_role"),
    "pair_encoder_judge": ("..pair_encoder", "load_pair_encoder_role"),
    "proverbs_adapter": ("..proverbs_head", "load_adapter_role"),
    "tiny_embedder": ("tiny", "load_tiny_embedder"),
    "tiny_lm": ("tiny", "load_tiny_lm"),
    "tiny_writer": ("tiny", "load_tiny_writer"),
    "tiny_head": ("tiny", "load_tiny_head"),
    "tiny_clip": ("tiny", "load_tiny_clip"),
    "tiny_diffusion": ("tiny", "load_tiny_diffusion"),
}


def loader_for(backend: str):
    module, func = LOADERS[backend]  # a loader module here, or a relative name ("..variants")
    return getattr(importlib.import_module(module if module.startswith(".") else f".{module}", __name__), func)
