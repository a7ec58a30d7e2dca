"""studio/capabilities.py is the one place a capability is declared: the app's tabs, the command line's commands
and grouped targets, and the evaluation contracts all come from it, and every name in it resolves."""
from __future__ import annotations

import importlib

import pytest

from studio import capabilities as caps


def _resolve(where: str):
    module, _, attr = where.partition(":")
    mod = importlib.import_module(module)
    return getattr(mod, attr) if attr else mod


def test_every_declared_name_resolves():
    names = [t for t in caps.tabs()] + caps.command_modules()
    names += [w for group in caps.targets().values() for w in group.values()]
    names += list(caps.evaluations().values())
    for where in names:
        assert _resolve(where) is not None, where


def test_the_app_the_cli_and_the_evaluations_read_the_declarations():
    from studio.cli import COMMAND_MODULES
    from studio.cli.groups import TARGETS
    from studio.lab.evaluation.cli import EVALUATIONS

    assert COMMAND_MODULES == caps.command_modules()
    assert TARGETS == caps.targets()
    assert EVALUATIONS == caps.evaluations()
    assert set(EVALUATIONS) <= set(TARGETS["eval"])


def test_roles_are_registry_roles_and_a_target_declared_twice_is_refused(monkeypatch):
    from studio.models.specs import spec_for

    for c in caps.CAPABILITIES:
        for role in c.roles:
            assert spec_for("tiny", role) is not None, (c.name, role)
    twice = caps.CAPABILITIES + (caps.Capability("copy", "Copy", None, targets={"build": {"kb": "x:y"}}),)
    monkeypatch.setattr(caps, "CAPABILITIES", twice)
    with pytest.raises(ValueError, match="declared twice"):
        caps.targets()
    assert caps.tabs_using("lm") == ["Polish", "Rerank", "Continue"]
    assert all(c.tab_title for c in caps.CAPABILITIES if c.tab), "a capability's tab has no title"
