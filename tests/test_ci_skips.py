"""In CI a skip for missing ../shared/data or Chromium fails; elsewhere it stays a skip."""
from __future__ import annotations

import textwrap

pytest_plugins = ["pytester"]

BODY = textwrap.dedent('''
    import pytest

    @pytest.mark.skipif(True, reason="the figurative narratives (../shared/data/figurative) are not available")
    def test_needs_data():
        pass

    @pytest.mark.skipif(True, reason="Debian chromium is not installed")
    def test_needs_browser():
        pass

    @pytest.mark.skipif(True, reason="this torch has no CPU int4 kernel")
    def test_other_skip():
        pass
''')


def _run(pytester, monkeypatch, ci: str | None):
    from pathlib import Path

    conftest = (Path(__file__).parent / "conftest.py").read_text(encoding="utf-8")
    pytester.makeconftest(conftest)
    pytester.makepyfile(test_sample=BODY)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly")


def test_skips_fail_in_ci(pytester, monkeypatch):
    result = _run(pytester, monkeypatch, "true")
    result.assert_outcomes(errors=2, skipped=1)  # a skipif skips at setup: reported as an error
    result.stdout.fnmatch_lines(["*CI=true, so this skip is a failure*"])


def test_skips_stay_skips_outside_ci(pytester, monkeypatch):
    result = _run(pytester, monkeypatch, None)
    result.assert_outcomes(skipped=3)
