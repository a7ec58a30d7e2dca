"""Load/Unload are operator actions: they exist only with STUDIO_ADMIN=1. Without it the Models tab is a read-only
status and neither the page nor the API (gradio_client's view_api) holds a load or unload event."""
from __future__ import annotations

import pytest

from studio.models.config import ConfigError
from studio.ui.models_tab import admin_enabled

ADMIN_ENDPOINTS = {"/load_model", "/unload_model"}


def _endpoints(client) -> set[str]:
    return set(client.view_api(return_format="dict", print_info=False)["named_endpoints"])


def _fns(demo) -> set[str]:
    return {getattr(block_fn.fn, "__name__", "") for block_fn in demo.fns.values()}


def _buttons(demo) -> set[str]:
    return {c["props"].get("value") for c in demo.get_config_file()["components"] if c["type"] == "button"}


@pytest.mark.parametrize("value,expected", [("", False), ("0", False), ("off", False), ("1", True), ("true", True)])
def test_admin_setting(monkeypatch, value, expected):
    monkeypatch.setenv("STUDIO_ADMIN", value)
    assert admin_enabled() is expected


def test_admin_setting_refuses_a_typo(monkeypatch):
    monkeypatch.setenv("STUDIO_ADMIN", "maybe")
    with pytest.raises(ConfigError, match="STUDIO_ADMIN must be 1"):
        admin_enabled()


def test_admin_is_off_by_default(monkeypatch):
    monkeypatch.delenv("STUDIO_ADMIN", raising=False)
    assert admin_enabled() is False


@pytest.mark.parametrize("admin", [False, True])
def test_admin_events_exist_only_for_the_operator(monkeypatch, admin):
    from studio.ui import build_demo

    monkeypatch.setenv("STUDIO_ADMIN", "1" if admin else "0")
    demo = build_demo()  # as app.py builds it: from the environment
    api = demo.get_api_info()
    named = set(api["named_endpoints"]) | set(api.get("unnamed_endpoints", {}))
    assert (ADMIN_ENDPOINTS <= named) is admin and (ADMIN_ENDPOINTS & named == set()) is (not admin)
    assert ({"load_role", "unload_role"} <= _fns(demo)) is admin
    assert not admin or {"Load", "Unload"} <= _buttons(demo)
    assert admin or not {"Load", "Unload"} & _buttons(demo)
    assert "/models" in named  # the read-only status is there either way


def test_visitor_api_lists_no_admin_endpoint(client, admin_client):
    from gradio_client.exceptions import AppError

    visitor = _endpoints(client)
    assert "/models" in visitor and not visitor & ADMIN_ENDPOINTS, visitor
    assert ADMIN_ENDPOINTS <= _endpoints(admin_client)
    with pytest.raises((AppError, ValueError)):
        client.predict("embedder", api_name="/unload_model")
