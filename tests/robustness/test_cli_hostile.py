"""Every CLI subcommand that takes text, fed hostile text, malformed batches and out-of-range numbers:
an int exit code in {0, 1, 2, 3}, no escaping exception, a short stderr without a traceback."""
from __future__ import annotations

import json

import pytest

from studio.cli import main

from .corpus import HOSTILE_TEXTS

OK_CODES = {0, 1, 2, 3}
MAX_LINE_CHARS = 400  # batch mode writes one line per bad input line
GOOD = "Her smile was as bright as the sun."
LITERAL = "Her smile was very bright."  # Polish refuses a sentence that already holds a simile, as GOOD does

# one argv per text-taking command; "{t}" is the hostile text
TEXT_COMMANDS = {
    "components": ["components", "{t}", "--json"],
    "polish": ["polish", "{t}", "--n", "2", "--seed", "0", "--json"],
    "score": ["score", "--literal", "{t}", "--candidate", "{t}", "--candidate", GOOD, "--json"],
    "proverbs": ["proverbs", "{t}", "--k", "2", "--json"],
    "continue": ["continue", "{t}", "--n", "1", "--max-tokens", "4", "--json"],
    "judge": ["judge", "{t}", "{t}", GOOD, "--json"],
    "imagine": ["imagine", "{t}", GOOD, "--json"],
}

# (command, good record, extra argv) for every command with --batch
BATCH_COMMANDS = {
    "components": ({"sentence": GOOD}, []),
    "polish": ({"literal": "He is very fast."}, ["--n", "2", "--seed", "0"]),
    "score": ({"literal": "He is very fast.", "candidates": ["He is as fast as a cheetah."]}, []),
    "proverbs": ({"narrative": "He saved a little every week and became rich."}, ["--k", "2"]),
    "judge": ({"narrative": GOOD, "option1": "She was happy.", "option2": "She was sad."}, []),
    "imagine": ({"text_a": "He is fast.", "text_b": "He is as fast as a cheetah."}, []),
}

# LM seeds are any integer (reduced modulo 2**63, still deterministic); --k beyond the catalog shows all of it
ACCEPTED = [
    ["polish", LITERAL, "--seed", "-5"],
    ["polish", LITERAL, "--seed", str(2**70)],
    ["continue", "He ran [like the wind].", "--seed", "-5", "--n", "1", "--max-tokens", "4"],
    ["continue", "He ran [like the wind].", "--seed", str(2**70), "--n", "1", "--max-tokens", "4"],
    ["proverbs", GOOD, "--k", str(2**70)],
]
REFUSED = [
    ["polish", LITERAL, "--n", "0"],
    ["polish", LITERAL, "--n", "100000"],
    ["polish", LITERAL, "--n", "-3"],
    ["continue", "He ran [like the wind].", "--n", "100000"],
    ["continue", "He ran [like the wind].", "--top-k", "-1"],
    ["continue", "He ran [like the wind].", "--temperature", "-1"],
    ["continue", "He ran [like the wind].", "--temperature", "nan"],
    ["continue", "He ran [like the wind].", "--max-tokens", "1000000"],
    ["proverbs", GOOD, "--k", "0"],
    ["proverbs", GOOD, "--k", "-1"],
    ["score", "--literal", "He is fast.", "--candidate", GOOD, "--alpha", "-1"],
    ["score", "--literal", "He is fast.", "--candidate", GOOD, "--alpha", "inf"],
    ["score", "--literal", "He is fast.", "--candidate", GOOD, "--rank-weights", "0", "0", "0"],
    ["score", "--literal", "He is fast."],
    ["imagine", "a", "b", "--seed", "-5"],
    ["imagine", "a", "b", "--seed", str(2**70)],
    ["imagine", "a", "b", "--seeds", "0"],
    ["imagine", "a", "b", "--seeds", "1000"],
    ["imagine", "a", "b", "--steps", "-1"],
    ["imagine", "a", "b", "--steps", "100000"],
    ["imagine", "a", "b", "--size", "100000"],
    ["imagine", "a", "b", "--size", "65"],
    ["imagine", "a", "b", "--guidance", "nan"],
]


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert isinstance(code, int) and not isinstance(code, bool), f"{argv[:1]}: exit code {code!r}"
    assert code in OK_CODES, f"{argv[:1]}: exit code {code}; stderr: {err[:300]}"
    assert "Traceback" not in err, f"{argv[:1]}: traceback on stderr:\n{err[:1000]}"
    longest = max((len(line) for line in err.splitlines()), default=0)
    assert longest <= MAX_LINE_CHARS, f"{argv[:1]}: a stderr line of {longest} chars"
    if code != 0:
        assert err.strip(), f"{argv[:1]}: exit {code} without a message"
    return code, out, err


@pytest.mark.parametrize("command", sorted(TEXT_COMMANDS))
def test_text_commands_answer_hostile_text_clearly(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # imagine may write images next to the working directory
    for label, text in HOSTILE_TEXTS.items():
        argv = [text if a == "{t}" else a for a in TEXT_COMMANDS[command]]
        code, out, err = _run(argv, capsys)
        if label in ("empty", "whitespace", "punctuation"):
            assert code != 0 or out.strip(), f"{command} [{label}]: silent success"


def _malformed_batch(path, good: dict) -> list[int]:
    """Write good and malformed lines; return the 1-based numbers of the malformed ones."""
    lines: list[bytes] = []
    bad: list[int] = []

    def add(raw: bytes, is_bad: bool):
        lines.append(raw)
        if is_bad:
            bad.append(len(lines))

    add(json.dumps(good).encode(), False)
    add(b"{not json", True)
    add(json.dumps({"wrong_key": "x"}).encode(), True)
    add(b"[1, 2, 3]", True)
    add(b'"just a string"', True)
    add(json.dumps(good).encode(), False)
    add(json.dumps({k: ("x" * 200_000 if isinstance(v, str) else v) for k, v in good.items()}).encode(), True)
    add(b'{"a": "\xff\xfe\xfa broken utf-8"}', True)
    add(json.dumps({k: ([] if isinstance(v, list) else "") for k, v in good.items()}).encode(), True)
    add(json.dumps(good).encode(), False)
    # an empty line in the middle is skipped or reported, never fatal
    path.write_bytes(b"\n".join(lines[:5]) + b"\n\n" + b"\n".join(lines[5:]) + b"\n")
    return [n if n <= 5 else n + 1 for n in bad]


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_batch_reports_bad_lines_and_processes_the_rest(command, capsys, tmp_path):
    good, extra = BATCH_COMMANDS[command]
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    bad_lines = _malformed_batch(src, good)
    code, out, err = _run([command, "--batch", str(src), "--out", str(dst), *extra], capsys)
    if code == 3:  # the role this command needs is unavailable in this profile: said clearly, nothing to check
        return
    assert code == 1, f"{command}: exit {code} for a batch with bad lines; stderr: {err[:500]}"
    for n in bad_lines:  # every batch command says it alike
        assert f"line {n}:" in err, f"{command}: bad line {n} not named:\n{err}"
    assert "line 9: not UTF-8 text (byte 0xff at column 8)" in err, err  # not read as "\ufffd" and passed on
    written = [json.loads(line) for line in dst.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(written) >= 3, f"{command}: only {len(written)} results for 3 good lines"
    assert {r["line"] for r in written} <= {1, 7, 11} and len({r["line"] for r in written}) == len(written)


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_batch_with_missing_or_binary_file(command, capsys, tmp_path):
    _run([command, "--batch", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o.jsonl")], capsys)
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(bytes(range(256)) * 50)
    code, _, _ = _run([command, "--batch", str(binary), "--out", str(tmp_path / "o2.jsonl")], capsys)
    assert code != 0


def _ids(argv):
    return "_".join(argv[:1] + argv[-2:])[:40]


@pytest.mark.parametrize("argv", ACCEPTED, ids=_ids)
def test_any_integer_seed_and_huge_k_are_accepted(argv, capsys):
    code, out, _ = _run([*argv, "--json"], capsys)
    assert code == 0 and out.strip()


@pytest.mark.parametrize("argv", REFUSED, ids=_ids)
def test_out_of_range_numbers_are_refused_with_the_bound(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = _run([*argv, "--json"], capsys)
    if code == 3:  # the role is unavailable in this profile; said clearly
        return
    assert code == 2, err
    assert any(w in err for w in ("between", "at least", "non-negative", "not all be zero", "at least one")), err


@pytest.mark.parametrize("command", sorted(TEXT_COMMANDS))
def test_text_that_is_not_utf8_is_refused_in_one_line(command, capsys):
    """Bytes that are no UTF-8 on the command line (a Latin-1 paste) reach Python as lone surrogates, which every
    tokenizer refused with a traceback; they are refused first, naming the byte."""
    argv = [("He wept \udcff\udcfe like a child." if a == "{t}" else a) for a in TEXT_COMMANDS[command]]
    code, _, err = _run(argv, capsys)
    assert code == 2 and "not UTF-8 text (byte 0xff at column 9)" in err, err


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_an_out_that_cannot_be_written_is_refused_before_any_work(command, capsys, tmp_path, monkeypatch):
    """A folder given as --out, or a path under a file, ended in a traceback, sometimes after minutes of work; each
    batch command refuses both before reading a line, and makes a missing folder as every one of them now does."""
    good, extra = BATCH_COMMANDS[command]
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(good) + "\n", encoding="utf-8")
    (tmp_path / "afile").write_text("x")
    from studio.cli import batch

    monkeypatch.setattr(batch.Batch, "records", lambda self: pytest.fail("a line was read before --out was checked"))
    for out, said in ((tmp_path, "is a folder"), (tmp_path / "afile" / "o.jsonl", "is a file, not a folder")):
        code, _, err = _run([command, "--batch", str(src), "--out", str(out), *extra], capsys)
        assert code == 2 and said in err, (out, err)
    monkeypatch.undo()
    nested = tmp_path / "new" / "folder" / "o.jsonl"
    code, _, err = _run([command, "--batch", str(src), "--out", str(nested), *extra], capsys)
    if code != 3:  # (the role is unavailable in this profile)
        assert code == 0 and [json.loads(line)["line"] for line in nested.read_text().splitlines()] == [1], err


def test_options_that_contradict_are_refused_and_a_quote_is_kept(capsys):
    code, _, err = _run(["score", "--literal", "He is fast.", "--candidate", GOOD, "--paper-weights", "--alpha", "2"],
                        capsys)
    assert code == 2 and "--paper-weights or --alpha/--beta/--gamma, not both" in err  # --alpha was dropped unsaid
    code, _, err = _run(["proverbs", GOOD, "--k", "abc"], capsys)
    assert code == 2 and "invalid int value: 'abc'" in err  # the closing quote was cut


def test_models_load_of_a_role_that_cannot_load_exits_3(capsys, monkeypatch):
    """`models --load clip` printed the table with clip "unavailable" and exited 0: a script checking readiness was
    told all is well."""
    from studio.models import ModelUnavailable, get_registry

    registry = get_registry()
    real = registry.get

    def get(role, *args, **kwargs):
        if role == "clip":
            raise ModelUnavailable("clip", "no CLIP weights ship in this test")
        return real(role, *args, **kwargs)

    monkeypatch.setattr(registry, "get", get)
    code, out, err = _run(["models", "--load", "clip", "language"], capsys)
    assert code == 3 and "could not load clip (the table says why)" in err and "language" not in err
    assert _run(["models", "--load", "language"], capsys)[0] == 0


def test_a_batch_writes_through_a_link_and_says_when_it_held_nothing(capsys, tmp_path):
    """--out given as a link (or a device: /dev/stdout) is written through, not replaced by a new file; each result
    goes out as it is made; an input with no line to process says so."""
    src, real, link = tmp_path / "in.jsonl", tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    src.write_text(json.dumps({"sentence": GOOD}) + "\r\n\n", encoding="utf-8")  # a CRLF line and a blank one
    real.write_text("")
    link.symlink_to(real)
    code, out, err = _run(["components", "--batch", str(src), "--out", str(link)], capsys)
    assert code == 0 and link.is_symlink() and json.loads(real.read_text())["line"] == 1
    assert "1 sentence written to" in out
    src.write_text("\n  \n", encoding="utf-8")
    code, _, err = _run(["components", "--batch", str(src), "--out", str(tmp_path / "o.jsonl")], capsys)
    assert code == 0 and "holds no line to process" in err


def test_imagine_refuses_a_size_no_model_takes_before_it_looks_for_a_model(capsys, monkeypatch):
    """`imagine --size 100` exited 3 ("the diffusion model is unavailable") where none is served and 2 where one is:
    the limits every model shares are checked first."""
    from studio.imagine import compare
    from studio.models import ModelUnavailable

    def unavailable():
        raise ModelUnavailable("diffusion", "no weights ship in this test")

    monkeypatch.setattr(compare, "_models", unavailable)
    code, _, err = _run(["imagine", "The night was dark.", "The night was as dark as ink.", "--size", "100"], capsys)
    assert code == 2 and "Size must be a multiple of" in err, err
    assert _run(["imagine", "The night was dark.", "The night was as dark as ink."], capsys)[0] == 3
