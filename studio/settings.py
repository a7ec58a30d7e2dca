"""Every setting the studio reads from the environment, in one typed object: `current()`.

`from_environ()` is the one place that reads `os.environ` (tests/test_settings.py counts the modules that do). Each
field names its variable, type, default and meaning; docs/models.md's table of settings is generated from them
(`markdown_table()`). `current()` returns the settings of the environment as it is now: parsed once, and again only
when a variable it reads has changed (a CLI's `--profile`, or a test's `monkeypatch.setenv`).

A bad value does not stop the others: reading that one field raises the error that names the variable
(ConfigError, or InputError for the image cache), where the value is used, as before this module existed."""
from __future__ import annotations

import os
import types
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Callable, Mapping

from .errors import InputError


class ConfigError(ValueError):
    """A setting that cannot be honoured (unknown profile, unknown role, a malformed value)."""


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")
MODEL_PREFIX = "STUDIO_MODEL_"


# parsers: the raw value (None when unset) -> the typed value, or an error naming the variable

def _on_unless_0(name: str, raw: str | None) -> bool:
    return (raw if raw is not None else "1") != "0"

def on_switch(name: str, meaning: str):
    """A knob that is on unless set to 0."""
    return knob(name, True, "0 to turn off", "on", meaning, _on_unless_0)



def _truthy(name: str, raw: str | None) -> bool:
    return str(raw or "").strip().lower() in _TRUE


def _text(name: str, raw: str | None) -> str | None:
    return raw or None


def _stripped(name: str, raw: str | None) -> str:
    return (raw or "").strip()


def _path(name: str, raw: str | None) -> Path | None:
    return Path(raw) if raw else None


def _path_if_set(name: str, raw: str | None) -> Path | None:
    return Path(raw) if raw is not None else None


def _threads(name: str, raw: str | None) -> int | None:
    return int(raw) if raw and raw.isdigit() and int(raw) > 0 else None


def _gib(name: str, raw: str | None) -> float | None:
    if raw in (None, ""):
        return None
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of GiB, not {raw!r}") from None


def _megabytes(name: str, raw: str | None) -> float:
    value = (raw or "").strip()
    try:
        return float(value) if value else 512.0
    except ValueError:
        raise InputError(f"{name} must be a number of megabytes, not {value!r}.") from None


def _queue(name: str, raw: str | None) -> int | None:
    value = (raw or "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"{name} must be a whole number of requests of at least 1, not {value!r}.")
    return int(value)


def _admin(name: str, raw: str | None) -> bool:
    value = (raw or "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name} must be 1 (admin actions on) or 0 (off), not {value!r}.")


def _port(name: str, raw: str | None) -> int:
    try:
        return int(raw if raw is not None else "7860")
    except ValueError:
        raise ConfigError(f"{name} must be a port number, not {raw!r}") from None


def _spin(name: str, raw: str | None) -> str:
    return raw if raw is not None else "300"


def knob(env: str, default, kind: str, shown: str, meaning: str, parse: Callable):
    """A field read from variable `env`: its type as the table shows it, its default as shown, and its meaning."""
    return field(default=default, metadata={"env": env, "type": kind, "default": shown, "meaning": meaning,
                                            "parse": parse})


@dataclass(frozen=True)
class StudioSettings:
    """The environment's settings. Defaults are what an empty environment gives."""

    # -- which models serve
    profile: str | None = knob(
        "STUDIO_PROFILE", None, "auto \\| hub \\| offline \\| tiny", "`profile` in studio.toml, else auto",
        "which models serve; auto: hub on a Space (`SPACE_ID`) or when the hub models are in the local HF cache, "
        "else offline (never probes the network; `HF_HUB_OFFLINE=1` forces offline)", _text)
    models: Mapping[str, str] = field(default_factory=lambda: types.MappingProxyType({}), metadata={
        "env": "STUDIO_MODEL_<ROLE>", "type": "hub id or local path", "default": "the profile's model",
        "meaning": "per-role override (roles: `studio.models.config.ROLES`), e.g. `STUDIO_MODEL_DIFFUSION=/models/"
                   "sd-turbo`, `STUDIO_MODEL_CLIP=/models/vit_base_patch32_clip_224.openai` (an open_clip folder) or "
                   "`ViT-B-32-quickgelu:/models/open_clip_model.safetensors`, "
                   "`STUDIO_MODEL_SENTIMENT=vader`; wins over `[models]` in studio.toml"})
    config: Path | None = knob(
        "STUDIO_CONFIG", None, "path", "studio.toml in the project",
        "the optional TOML file with `profile`, `cache_dir`, `max_memory_gb` and `[models]` (variables win over it)",
        _path_if_set)
    cache_dir: Path | None = knob(
        "STUDIO_CACHE_DIR", None, "path", "`cache_dir` in studio.toml, else ~/.cache/figurative-studio",
        "where converted weights, int8 exports, self-check verdicts, embeddings and images are cached; a converted "
        "file is keyed by the source file's name, size and a hash of its first and last MiB (not its folder), so "
        "another clone or venv on the machine reuses it", _path)
    max_memory_gb: float | None = knob(
        "STUDIO_MAX_MEMORY_GB", None, "GiB", "`max_memory_gb` in studio.toml, else none",
        "memory budget: the least recently used models are unloaded to stay under it", _gib)
    shared_data: Path | None = knob(
        "STUDIO_SHARED_DATA", None, "path", "../shared/data beside the project",
        "the research data folder for builds, training and evaluation (`studio/shared_data.py`)", _path)
    # -- the app
    admin: bool = knob(
        "STUDIO_ADMIN", False, "1 \\| 0", "0",
        "operator mode: the Models tab gets Load/Unload (and the API `/load_model`, `/unload_model`)", _admin)
    queue_max: int | None = knob(
        "STUDIO_QUEUE_MAX", None, "whole number ≥ 1", "64 (`studio.ui.app.QUEUE_MAX_SIZE`)",
        "requests waiting beyond this get a busy answer", _queue)
    image_cache_mb: float = knob(
        "STUDIO_IMAGE_CACHE_MB", 512.0, "MB", "512",
        "bound of Imagine's on-disk image cache (least recently used first out; 0 keeps none)", _megabytes)
    import_at_start: bool = on_switch(
        "STUDIO_IMPORT_AT_START",
        "`app.py` imports torch / transformers / sentence-transformers (no model) in the background at start; "
        "0 leaves them to the first request")
    # -- accelerated forms and threads (docs/acceleration.md)
    llamacpp: bool = on_switch(
        "STUDIO_LLAMACPP",
        "serve the offline LMs with llama.cpp; 0: on torch (`scripts/setup.sh` then does not build llama.cpp)")
    onnx: bool = on_switch(
        "STUDIO_ONNX",
        "serve the retrieval embedder with int8 ONNX Runtime; 0: with torch")
    int8_recipe: str = knob(
        "STUDIO_INT8_RECIPE", "", "u8s8-7bit \\| u8u8 \\| u8s8", "the ladder, best first",
        "serve only this int8 form (still checked; to measure one form)", _stripped)
    lm_4bit: bool = on_switch(
        "STUDIO_LM_4BIT",
        "serve the offline LM's 4-bit layers on torch's int4 kernel (where llama.cpp does not); 0: float32")
    lm_int8: bool = on_switch(
        "STUDIO_LM_INT8",
        "int8 prompt copies of the 4-bit LM on a CPU without bf16; 0: float32 prompts")
    bf16: bool = on_switch(
        "STUDIO_BF16",
        "compute in bfloat16 where the CPU has it natively; 0: nothing in bfloat16")
    selfcheck_cache: bool = on_switch(
        "STUDIO_SELFCHECK_CACHE",
        "trust a cached self-check verdict; 0: check every accelerated form again at each load")
    torch_threads: int | None = knob(
        "STUDIO_TORCH_THREADS", None, "whole number ≥ 1", "every core",
        "torch intra-op threads (`bench/torch_threads.py`)", _threads)
    onnx_threads: int | None = knob(
        "STUDIO_ONNX_THREADS", None, "whole number ≥ 1", "every core", "ONNX Runtime's threads", _threads)
    lm_threads: int | None = knob(
        "STUDIO_LM_THREADS", None, "whole number ≥ 1", "every core",
        "threads of a llama.cpp call (OpenMP spins only briefly, so two requests at once share the cores)", _threads)
    # -- read by the scripts and tests, not by studio/
    installer: str = knob(
        "STUDIO_INSTALLER", "uv", "uv \\| pip", "uv",
        "what `make setup` (scripts/setup.sh) installs the requirements with: uv, several times faster, given the "
        "sources pip is configured with (`scripts/uv_options.py`), and pip if uv fails; pip: pip only",
        lambda name, raw: (raw or "uv").strip() or "uv")
    prepare: bool = on_switch(
        "STUDIO_PREPARE",
        "`make setup` (scripts/setup.sh) does the one-time work of `models --prepare`; 0 leaves it to the first "
        "request")
    screenshots: Path | None = knob(
        "STUDIO_SCREENSHOTS", None, "path", "a temporary folder", "where the browser tests save screenshots", _path)
    screenshot_copy: Path | None = knob(
        "STUDIO_SCREENSHOT_COPY", None, "path", "none", "a folder the browser tests copy their screenshots to",
        _path)
    # -- other programs' variables the studio reads
    hf_hub_offline: bool = knob(
        "HF_HUB_OFFLINE", False, "1 \\| 0", "0", "the Hugging Face hub is unreachable: the auto profile is offline",
        _truthy)
    space_id: str | None = knob(
        "SPACE_ID", None, "text", "unset", "set on a Hugging Face Space: the auto profile is hub", _text)
    gradio_server_name: str = knob(
        "GRADIO_SERVER_NAME", "127.0.0.1", "host", "127.0.0.1", "where `python app.py` listens",
        lambda name, raw: raw if raw is not None else "127.0.0.1")
    gradio_server_port: int = knob(
        "GRADIO_SERVER_PORT", 7860, "port", "7860", "the port `python app.py` listens on", _port)
    malloc_arena_max: str | None = knob(
        "MALLOC_ARENA_MAX", None, "whole number", "2 (set by `app.py`)",
        "glibc's malloc arenas; `app.py` limits them to 2 unless this is set", _text)
    gomp_spincount: str = knob(
        "GOMP_SPINCOUNT", "300", "whole number", "300 (set for llama.cpp)",
        "how long OpenMP threads spin before they sleep; llama.cpp gets 300 unless this is set", _spin)

    #: {field: (error class, message)} of the values that did not parse: reading such a field raises its error
    problems: Mapping[str, tuple[type, str]] = field(default_factory=lambda: types.MappingProxyType({}),
                                                     repr=False, compare=False)

    def __getattribute__(self, name: str):
        if not name.startswith("_") and name != "problems":
            problem = object.__getattribute__(self, "problems").get(name)
            if problem:
                raise problem[0](problem[1])
        return object.__getattribute__(self, name)

    def __repr__(self) -> str:
        problems = object.__getattribute__(self, "problems")
        shown = (f"{f.name}=<invalid: {problems[f.name][1]}>" if f.name in problems
                 else f"{f.name}={object.__getattribute__(self, f.name)!r}" for f in knobs())
        return f"StudioSettings({', '.join(shown)})"

    def switch(self, env: str) -> bool:
        """The on/off switch read from variable `env` (e.g. "STUDIO_ONNX")."""
        return getattr(self, _FIELD_OF[env])


def knobs() -> list:
    """The fields read from a variable, in the table's order."""
    return [f for f in fields(StudioSettings) if "env" in f.metadata]


_FIELD_OF = {f.metadata["env"]: f.name for f in knobs()}
#: the variables read one by one (STUDIO_MODEL_<ROLE> are found by their prefix)
NAMES = tuple(name for name in _FIELD_OF if "<" not in name)


def from_environ(env: Mapping[str, str] = os.environ) -> StudioSettings:
    """The settings of `env`: the one place the studio reads its environment."""
    values, problems = {}, {}
    for f in knobs():
        name = f.metadata["env"]
        if name.startswith(MODEL_PREFIX):
            values[f.name] = types.MappingProxyType({
                k[len(MODEL_PREFIX):].lower(): v.strip() for k, v in sorted(env.items())
                if k.startswith(MODEL_PREFIX) and v})
            continue
        try:
            values[f.name] = f.metadata["parse"](name, env.get(name))
        except (ValueError, InputError) as exc:
            problems[f.name] = (type(exc), str(exc))
    return StudioSettings(**values, problems=types.MappingProxyType(problems))


_current: tuple[tuple, StudioSettings] | None = None


def _snapshot(env: Mapping[str, str]) -> tuple:
    """The values `from_environ` reads, to tell whether they changed."""
    while True:
        try:
            return (tuple(map(env.get, NAMES)),
                    tuple(sorted((k, env.get(k)) for k in env if k.startswith(MODEL_PREFIX))))
        except RuntimeError:  # another thread set a variable while this one iterated: read again
            continue


def current() -> StudioSettings:
    """The settings of the environment now: parsed at the first call, again only when a variable read changed."""
    global _current
    key = _snapshot(os.environ)
    cached = _current
    if cached is None or cached[0] != key:
        cached = _current = (key, from_environ(os.environ))
    return cached[1]


def export(name: str, value: str) -> None:
    """Set a variable for the rest of this process and its children (the CLI's --profile, GOMP_SPINCOUNT for
    llama.cpp); `current()` reads it at its next call."""
    os.environ[name] = value


def child_environ(**extra: str) -> dict[str, str]:
    """The environment for a child process: this one's, with `extra` on top."""
    return {**os.environ, **extra}


def markdown_table() -> str:
    """docs/models.md's table of settings, generated from the fields."""
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for f in knobs():
        m = f.metadata
        rows.append(f"| `{m['env']}` | {m['type']} | {m['default']} | {m['meaning']} |")
    return "\n".join(rows)
