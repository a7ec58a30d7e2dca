"""Rerank uploads and limits, through the logic and through the running app's API: each bad file, list or
slider value gets a specific message, never a crash."""
from __future__ import annotations

import pytest
from gradio_client import handle_file
from gradio_client.exceptions import AppError

from studio.errors import InputError
from studio.hauser.inputs import MAX_CSV_BYTES, MAX_CSV_ROWS, groups_from_csv
from studio.hauser.scorer import MAX_CANDIDATES, check_group

GOOD_ROW = b"He is fast.,He is as fast as a cheetah.\n"

# name -> (file bytes, a fragment of the expected message)
BAD_CSVS = {
    "empty": (b"", "empty"),
    "header_only": (b"literal,candidate\n", "no row"),
    "wrong_columns": (b"sentence,simile\na,b\n", "columns literal and candidate"),
    "wrong_columns_semicolons": (b"sentence;simile\na;b\n", "header is sentence;simile"),
    "too_many_rows": (b"literal,candidate\n" + b"a,b\n" * 100_000, f"{MAX_CSV_ROWS:,} rows"),
    "too_big": (b"literal,candidate\n" + GOOD_ROW * (MAX_CSV_BYTES // len(GOOD_ROW) + 10), "larger than"),
    "non_utf8": (b"literal,candidate\n\xff\xfe caf\xe9,x\n", "not UTF-8"),
    "binary_renamed": (bytes(range(256)) * 40, "not UTF-8"),
    "nul_bytes": (b"literal,candidate\nHe\x00 is fast.,x\n", "binary"),
    "huge_field": (b'literal,candidate\n"' + b"x" * 200_000 + b'",y\n', "malformed"),
}


@pytest.fixture
def csv_file(tmp_path):
    def write(name: str, data: bytes):
        path = tmp_path / f"{name}.csv"
        path.write_bytes(data)
        return path
    return write


@pytest.mark.parametrize("name", sorted(BAD_CSVS))
def test_bad_csv_gets_a_specific_message(name, csv_file):
    data, fragment = BAD_CSVS[name]
    with pytest.raises(InputError, match=fragment):
        groups_from_csv(csv_file(name, data))


@pytest.mark.parametrize("sep", [";", "\t"])
def test_a_spreadsheets_semicolons_or_tabs_are_read_like_commas(sep, csv_file):
    """Many locales' spreadsheets export "literal;candidate" (a visitor's file was refused for it)."""
    data = (f'"literal"{sep} "candidate"\nHe is fast.{sep}He is as fast as a cheetah.\n'
            f'"A, b."{sep} "A, b{sep} like c."\n')
    assert groups_from_csv(csv_file("sep", data.encode())) == [
        ("He is fast.", ["He is as fast as a cheetah."]), ("A, b.", [f"A, b{sep} like c."])]


def test_good_csv_with_extra_cells_and_blank_rows(csv_file):
    data = b"\xef\xbb\xbfLiteral , Candidate,note\n" + GOOD_ROW + b",\nHe is fast.,He is like a hare.,x,extra\n"
    assert groups_from_csv(csv_file("ok", data)) == [("He is fast.", ["He is as fast as a cheetah.",
                                                                      "He is like a hare."])]


def test_a_bad_candidate_is_named_by_its_line_in_the_csv(csv_file):
    data = ("literal,candidate\nThe night was quiet.,The night was as quiet as a grave.\n"
            "Her voice was loud.,Her voice was as loud as thunder.\nHer voice was loud.,😀😀\n").encode()
    with pytest.raises(InputError, match=r"^The candidate on line 4 of the CSV has no words.*Nothing was scored"):
        groups_from_csv(csv_file("emoji", data))


@pytest.mark.parametrize("n", [0, MAX_CANDIDATES + 1, 500])
def test_candidate_counts_outside_the_limit_are_refused(n):
    with pytest.raises(InputError, match="candidate"):
        check_group("He is fast.", [f"He is as fast as animal {k}." for k in range(n)])


def test_one_candidate_is_accepted():
    assert check_group("He is fast.", ["He is as fast as a cheetah."])[1] == ["He is as fast as a cheetah."]


# ---- through the running app ----

RERANK_DEFAULTS = [0.5, 1 / 3, 1 / 6, 2, 2, 1, "eq2"]


def _app_error(client, *args, api_name):
    with pytest.raises(AppError) as info:
        client.predict(*args, api_name=api_name)
    message = str(info.value)
    assert message.strip() and "Something went wrong" not in message, message
    return message


@pytest.mark.slow
@pytest.mark.parametrize("name", ["empty", "header_only", "wrong_columns", "too_many_rows", "non_utf8",
                                  "binary_renamed"])
def test_upload_endpoint_answers_bad_csv_clearly(name, csv_file, client):
    data, fragment = BAD_CSVS[name]
    message = _app_error(client, handle_file(str(csv_file(name, data))), *RERANK_DEFAULTS, api_name="/rerank_csv")
    assert fragment.lower() in message.lower(), message
    assert "Rerank scores those, not this file" in message  # a Rerank pressed next scores the boxes


@pytest.mark.slow
def test_upload_endpoint_refuses_a_literal_over_the_candidate_limit(csv_file, client):
    rows = b"".join(b"He is fast.,He is as fast as thing %d.\n" % k for k in range(MAX_CANDIDATES + 20))
    message = _app_error(client, handle_file(str(csv_file("many", b"literal,candidate\n" + rows))), *RERANK_DEFAULTS,
                         api_name="/rerank_csv")
    assert f"{MAX_CANDIDATES + 20} candidates" in message and f"limit is {MAX_CANDIDATES}" in message, message


@pytest.mark.slow
def test_upload_endpoint_scores_every_literal(csv_file, client):
    data = (b"literal,candidate\nHe is fast.,He is as fast as a cheetah.\nThe lake was calm.,The lake was calm "
            b"like a mirror.\nHe is fast.,He is fast like wind.\nThe night was dark.,The night was dark as ink.\n")
    result = client.predict(handle_file(str(csv_file("three", data))), *RERANK_DEFAULTS, api_name="/rerank_csv")
    table, picker, literal, candidates = result[0], result[5], result[6], result[7]  # (the State is not returned)
    assert literal == "He is fast."
    assert candidates.splitlines() == ["He is as fast as a cheetah.", "He is fast like wind."]
    assert len(table["data"]) == 2  # the first literal's group is on screen
    choices = [c[0] if isinstance(c, (list, tuple)) else c for c in picker["choices"]]
    assert [c.split(" (")[0] for c in choices] == ["1. He is fast.", "2. The lake was calm.", "3. The night was dark."]
    with open(result[3][0], encoding="utf-8") as fh:  # the download (CSV, then JSON) holds every group
        lines = fh.read().splitlines()
    assert len(lines) == 1 + 4 and sum(line.startswith("The lake was calm.,") for line in lines) == 1


@pytest.mark.slow
@pytest.mark.parametrize("n", [0, 500])
def test_rerank_endpoint_refuses_candidate_counts(n, client):
    text = "\n".join(f"He is as fast as animal {k}." for k in range(n))
    message = _app_error(client, "He is fast.", text, *RERANK_DEFAULTS, api_name="/rerank")
    assert "candidate" in message.lower()


@pytest.mark.slow
def test_rerank_endpoint_scores_one_candidate(client):
    table = client.predict("He is fast.", "He is as fast as a cheetah.", *RERANK_DEFAULTS, api_name="/rerank")[0]
    assert len(table["data"]) == 1


@pytest.mark.slow
@pytest.mark.parametrize("position,value", [(2, 7.0), (2, -1.0), (5, 99.0), (7, -3.0)])
def test_rerank_endpoint_refuses_out_of_range_sliders(position, value, client):
    args = ["He is fast.", "He is as fast as a cheetah.\nHe is like a hare.", *RERANK_DEFAULTS]
    args[position] = value
    message = _app_error(client, *args, api_name="/rerank")
    assert any(w in message.lower() for w in ("range", "between", "must", "maximum", "minimum", "limit")), message
