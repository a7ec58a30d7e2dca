"""One settings object (studio/settings.py): the only module that reads the environment, every variable in one table
in docs/models.md, and today's names, defaults and errors."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from studio import settings
from studio.errors import InputError
from studio.models.config import ROLES, ConfigError
from studio.settings import StudioSettings, current, from_environ, markdown_table

ROOT = Path(__file__).resolve().parents[1]
READS_ENVIRONMENT = re.compile(r"os\.environ|getenv|\benviron\b")
#: Python names in studio/capabilities.py that look like variables but are not read from the environment
NOT_VARIABLES = {"STUDIO_TABS", "STUDIO_COMMANDS", "STUDIO_TARGETS", "STUDIO_EVALUATIONS"}


def _sources():
    yield ROOT / "app.py"
    yield ROOT / "Makefile"
    for folder in ("studio", "scripts", "bench", "tests"):
        yield from sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".sh"))


def test_the_environment_is_read_in_at_most_three_modules():
    readers = sorted(str(p.relative_to(ROOT)) for p in [ROOT / "app.py", *sorted((ROOT / "studio").rglob("*.py"))]
                     if READS_ENVIRONMENT.search(p.read_text(encoding="utf-8")))
    assert "studio/settings.py" in readers
    assert len(readers) <= 3, readers


def test_the_table_in_docs_is_generated_from_the_settings():
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- settings:start -->\n(.*?)\n<!-- settings:end -->", text, re.S)
    assert found, "docs/models.md lost its <!-- settings:start --> … <!-- settings:end --> block"
    assert found.group(1) == markdown_table(), (
        "docs/models.md's table of settings is stale: paste the output of "
        "`python -c \"from studio.settings import markdown_table; print(markdown_table())\"` between its markers")


def test_every_studio_variable_in_the_code_is_in_the_table():
    in_table = {f.metadata["env"] for f in settings.knobs()}
    used = set()
    for path in _sources():
        used.update(re.findall(r"STUDIO_[A-Z0-9_]*[A-Z0-9]", path.read_text(encoding="utf-8", errors="replace")))
    models = {name for name in used if name.startswith(settings.MODEL_PREFIX)}
    missing = used - models - in_table - NOT_VARIABLES - {"STUDIO_MODEL"}
    assert not missing, f"add these to studio/settings.py (and the table): {sorted(missing)}"
    assert {m[len(settings.MODEL_PREFIX):].lower() for m in models} <= set(ROLES) | {"role"}
    for f in settings.knobs():
        assert f.metadata["type"] and f.metadata["default"] and f.metadata["meaning"], f.name


def test_an_empty_environment_gives_the_defaults():
    empty = from_environ({})
    assert empty == StudioSettings()
    assert (empty.profile, empty.cache_dir, empty.max_memory_gb, dict(empty.models)) == (None, None, None, {})
    assert (empty.admin, empty.queue_max, empty.image_cache_mb, empty.import_at_start) == (False, None, 512.0, True)
    assert all(empty.switch(name) for name in ("STUDIO_ONNX", "STUDIO_BF16", "STUDIO_LM_4BIT", "STUDIO_LM_INT8"))
    assert (empty.lm_threads, empty.torch_threads, empty.onnx_threads, empty.gomp_spincount) == (None, None, None,
                                                                                                  "300")


def test_values_parse_as_before():
    s = from_environ({"STUDIO_ONNX": "0", "STUDIO_BF16": "false", "STUDIO_LM_THREADS": "3",
                      "STUDIO_TORCH_THREADS": "0", "STUDIO_ONNX_THREADS": "two", "STUDIO_MODEL_LM": " /m ",
                      "STUDIO_MODEL_CLIP": "", "STUDIO_ADMIN": " Yes ", "STUDIO_QUEUE_MAX": " 5 ",
                      "STUDIO_IMAGE_CACHE_MB": "1.5", "STUDIO_INT8_RECIPE": " u8u8 ", "HF_HUB_OFFLINE": "true"})
    assert not s.onnx and s.bf16  # only "0" switches a form off
    assert (s.lm_threads, s.torch_threads, s.onnx_threads) == (3, None, None)  # not a whole number ≥ 1: every core
    assert dict(s.models) == {"lm": "/m"}
    assert (s.admin, s.queue_max, s.image_cache_mb, s.int8_recipe, s.hf_hub_offline) == (True, 5, 1.5, "u8u8", True)


@pytest.mark.parametrize("name, value, error, message", [
    ("STUDIO_ADMIN", "maybe", ConfigError, "STUDIO_ADMIN must be 1"),
    ("STUDIO_QUEUE_MAX", "0", ConfigError, "STUDIO_QUEUE_MAX must be a whole number"),
    ("STUDIO_IMAGE_CACHE_MB", "lots", InputError, "STUDIO_IMAGE_CACHE_MB must be a number of megabytes"),
    ("STUDIO_MAX_MEMORY_GB", "much", ConfigError, "STUDIO_MAX_MEMORY_GB must be a number of GiB"),
])
def test_a_bad_value_raises_where_it_is_read_and_spares_the_others(name, value, error, message):
    s = from_environ({name: value, "STUDIO_PROFILE": "tiny"})
    field = next(f.name for f in settings.knobs() if f.metadata["env"] == name)
    with pytest.raises(error, match=message):
        getattr(s, field)
    assert s.profile == "tiny" and "invalid" in repr(s)


def test_current_follows_the_environment(monkeypatch):
    monkeypatch.setenv("STUDIO_LM_THREADS", "2")
    first = current()
    assert first.lm_threads == 2 and current() is first  # parsed once while nothing changes
    monkeypatch.setenv("STUDIO_LM_THREADS", "5")
    monkeypatch.setenv("STUDIO_MODEL_WRITER", "/w")
    assert current().lm_threads == 5 and current().models["writer"] == "/w"
