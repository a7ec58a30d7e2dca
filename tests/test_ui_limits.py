"""Limited text boxes: the count under a box and the refusal use the very check the API uses."""
from __future__ import annotations

import pytest

from studio.errors import InputError, check_length, require_text
from studio.ui.common import char_count, limits_validator, refuse_over_limit


def test_count_says_when_over():
    assert char_count("a" * 400, 400) == "400 / 400 characters"
    assert char_count(" \u200b" + "a" * 412 + " ", 400).startswith("**⚠️ 412 / 400 characters — over the limit")
    assert char_count(None, 4000) == "0 / 4,000 characters"


def test_refusal_names_the_limit_and_matches_the_api():
    text = "x" * 4_500
    with pytest.raises(InputError) as page:
        refuse_over_limit((text, "narrative", 4_000))
    with pytest.raises(InputError) as api:
        require_text(text, "narrative", 4_000)
    assert str(page.value) == str(api.value)
    assert "4,500 characters long; the limit is 4,000" in str(page.value)
    refuse_over_limit(("x" * 4_000, "narrative", 4_000), (None, "other", 1))  # at the limit: accepted
    check_length("x" * 10 + "   ", "text", 10)


def test_validator_flags_only_the_over_limit_input():
    validate = limits_validator(("narrative", 10), None)
    ok, refused = validate("short", 3), validate("x" * 11, 3)
    assert [v["is_valid"] for v in ok] == [True, True]
    assert [v["is_valid"] for v in refused] == [False, True]
    assert "the limit is 10" in refused[0]["message"]
