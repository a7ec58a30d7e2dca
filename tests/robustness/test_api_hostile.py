"""Every api_name of the running app, fed hostile text: a clear message or a result, never a crash."""
from __future__ import annotations

import pytest
from gradio_client.exceptions import AppError

from .corpus import HOSTILE_TEXTS

UNEXPECTED = "Something went wrong"  # studio.ui.common.guarded's answer to an unexpected exception
CALL_TIMEOUT_S = 120


def _endpoints(client):
    api = client.view_api(return_format="dict", print_info=False)
    return api["named_endpoints"]


def _args_for(params, text):
    args, has_text = [], False
    for p in params:
        kind = p.get("type", {}) or {}
        if kind.get("type") == "string" and "enum" not in kind and p.get("component") in ("Textbox", "Textarea", "Code"):
            args.append(text)
            has_text = True
        elif p.get("parameter_has_default"):
            args.append(p.get("parameter_default"))
        else:
            args.append(p.get("example_input"))
    return args, has_text


@pytest.mark.slow
def test_every_endpoint_answers_hostile_text_clearly(client):
    failures = []
    for name, info in _endpoints(client).items():
        for label, text in HOSTILE_TEXTS.items():
            args, has_text = _args_for(info["parameters"], text)
            if not has_text:
                break
            try:
                client.submit(*args, api_name=name).result(timeout=CALL_TIMEOUT_S)
            except AppError as exc:
                message = str(exc)
                if not message.strip() or UNEXPECTED in message:
                    failures.append(f"{name} [{label}]: {message[:200]!r}")
            except Exception as exc:  # a timeout or a dropped connection
                failures.append(f"{name} [{label}]: {type(exc).__name__}: {str(exc)[:200]}")
    assert not failures, "\n".join(failures)
