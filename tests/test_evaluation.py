"""The evaluation contract: fixed, disjoint splits; the README's table is the results files; the committed figures
are recomputed from the code (a 40-row sample through the real scorers, on the float32 reference forms that every
CPU computes alike), not re-read."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from studio.cli import main
from studio.lab.evaluation.base import RESULTS_DIR, cpu_flags, hash_half
from studio.lab.evaluation.cli import EVALUATIONS, evaluation
from studio.lab.evaluation.readme import END, README, START, render_table, replace_table
from studio.shared_data import shared_data_dir

HAVE_DATA = (shared_data_dir() / "hauser" / "human_ratings_dev.csv").is_file()
#: the benchmark's stories (the Continue read on them rebuilds its stories from these)
HAVE_FIGURATIVE = all((shared_data_dir() / "figurative" / f"{k}_train.jsonl").is_file() for k in ("idiom", "simile"))
needs_data = pytest.mark.skipif(not HAVE_DATA, reason="../shared/data is not available")


def test_hash_half_is_fixed_and_balanced():
    keys = [f"sentence {i}" for i in range(2000)]
    halves = [hash_half(k, "x") for k in keys]
    assert halves == [hash_half(k, "x") for k in keys]
    assert 0.45 < halves.count("dev") / len(halves) < 0.55
    assert halves != [hash_half(k, "y") for k in keys]  # the salt matters


def test_cpu_flags_read_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 avx512f\n")
    assert cpu_flags(str(info)) == {"avx2": True, "avx512f": True, "avx512_vnni": False, "avx512_bf16": False,
                                    "amx_tile": False}
    assert set(cpu_flags(str(tmp_path / "missing"))) == set(cpu_flags())


def test_hauser_cross_validation_never_chooses_with_the_held_out_literal():
    """Leave one literal out: a literal's held-out qualities come from settings chosen on the other literals, so
    changing its own ratings changes nothing of its own row (and does change what is chosen on all rows)."""
    from types import SimpleNamespace

    import numpy as np

    from studio.lab.evaluation import hauser as H

    rng = np.random.default_rng(1)
    full, rows = {}, []
    for g in range(6):
        cands = [SimpleNamespace(candidate=f"s{g}-{k}", has_simile=True, relevance_kb=float(rng.random()),
                                 fit={"fit": float(rng.normal())}, logical_consistency=float(rng.random()),
                                 sentiment_consistency=float(rng.random())) for k in range(4)]
        full[f"literal {g}"] = cands
        rows += [{"literal_sentences": f"literal {g}", "similes": c.candidate,
                  "human_quality": 1 + 4 * c.relevance_kb if g else float(rng.random())} for c in cands]
    first = H.cross_validated_quality(rows, full)
    flipped = [dict(r, human_quality=6 - r["human_quality"]) if r["literal_sentences"] == "literal 0" else r
               for r in rows]
    second = H.cross_validated_quality(flipped, full)
    own = [i for i, r in enumerate(rows) if r["literal_sentences"] == "literal 0"]
    assert np.allclose(first["held_out"][own], second["held_out"][own])
    assert np.isfinite(first["held_out"]).all()
    # relevance is what the five other literals' ratings follow: chosen with all weight on it, the paper's λ grid
    assert "weights 6/0/0" in first["chosen_on_all"]


def test_within_a_literal_agreement_takes_each_literals_mean_out():
    """`_within`: two scores that differ only by a constant per literal agree perfectly within literals, whatever the
    literals' levels; the human ratings are never read by `relevance_agreement`'s agreement with the paper's part."""
    import numpy as np

    from studio.lab.evaluation import hauser as H

    x = [1, 2, 3, 10, 11, 12]
    y = [5, 6, 7, -3, -2, -1]
    groups = ["a", "a", "a", "b", "b", "b"]
    assert H._within(x, y, groups) == pytest.approx(1.0)
    assert H.pearson(x, y) < 0  # pooled, the levels of the literals dominate
    assert H._within([1, 2, 3, 1, 2, 3], [3, 2, 1, 1, 2, 3], groups) == pytest.approx(0.0)
    assert H._within([1, np.nan, 3, 10, 11, 12], y, groups) == pytest.approx(1.0)  # a missing score is left out
    people = np.array(y, float)  # a float array is read, not changed: its pooled Pearson stays what it was
    assert H._within(np.array(x, float), people, groups) == pytest.approx(1.0)
    assert people.tolist() == y


@needs_data
def test_components_halves_are_disjoint_and_cover_the_file():
    from studio.lab.evaluation.components import load_rows

    rows = load_rows()
    dev = {r["sentence"] for r in rows if r["split"] == "dev"}
    test = {r["sentence"] for r in rows if r["split"] == "test"}
    assert not dev & test and len(dev) + len(test) == len({r["sentence"] for r in rows}) and dev and test


def test_bad_eval_input_is_one_line_and_exit_2(capsys):
    assert main(["eval", "hauser", "--limit", "0"]) == 2
    assert "--limit must be at least 1" in capsys.readouterr().err
    assert main(["eval", "all", "--bogus"]) == 2
    assert main(["eval", "no-such-capability"]) == 2


def test_readme_check_fails_without_markers_or_results(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# no table here\n")
    assert main(["eval", "table", "--check", "--readme", str(readme), "--results", str(RESULTS_DIR)]) == 2
    readme.write_text(f"x\n{START}\n{END}\n")
    assert main(["eval", "table", "--check", "--readme", str(readme), "--results", str(tmp_path / "none")]) == 2


def test_committed_results_have_the_contract():
    files = sorted(RESULTS_DIR.glob("*.json"))
    assert {p.stem for p in files} == set(EVALUATIONS), "run `python -m studio eval all`"
    for p in files:
        r = json.loads(p.read_text())
        assert r["name"] == p.stem and r["limit"] is None and r["command"].startswith("python -m studio")
        assert r["git"]["commit"] and r["date"] and set(r["cpu_flags"]) >= {"avx2", "avx512f", "amx_tile"}
        assert r["figures"] and all({"metric", "value", "split", "n"} <= set(f) for f in r["figures"])
        assert {f["split"] for f in r["figures"]} <= set(r["splits"])
        for f in r["figures"]:  # an interval, where given, holds its figure
            if "interval95" in f:
                low, high = f["interval95"]
                assert low <= f["value"] + 1e-4 and f["value"] <= high + 1e-4, (p.stem, f["metric"])
            if "prediction95" in f:  # where another set may land: wider than what our own rows pin down
                low, high = f["prediction95"]
                assert f["prediction_rows"] > 0 and low <= f["value"] <= high, (p.stem, f["metric"])
                assert high - low >= f["interval95"][1] - f["interval95"][0], (p.stem, f["metric"])
        assert r["sample"]["limit"] == evaluation(p.stem).sample_rows
        if "provenance" in r["sample"]:  # a sample recomputed alone (`eval NAME --sample-only`) records its own run
            assert "--sample-only" in r["sample"]["provenance"]["command"] and r["sample"]["provenance"]["git"]["commit"]


def test_intervals_of_shares_and_of_grouped_rows():
    import numpy as np

    from studio.lab.evaluation.base import Figure, group_bootstrap_interval, share_interval

    low, high = share_interval(0.5, 100)  # Wilson: 50 of 100
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert share_interval(0.0, 20)[0] == 0.0 and share_interval(0.0, 20)[1] > 0.1  # none of 20 is no certainty
    assert share_interval(None, 10) is None and share_interval(0.5, 0) is None
    # 40 groups of 10 rows, right in whole groups: the rows are 40 observations, not 400
    right = np.repeat([1.0] * 24 + [0.0] * 16, 10)
    groups = np.repeat(np.arange(40), 10)
    low, high = group_bootstrap_interval(lambda idx: right[idx].mean(), groups)
    row_low, row_high = share_interval(0.6, 400)
    assert low < 0.6 < high and high - low > 2 * (row_high - row_low) and high - low > 0.25
    assert group_bootstrap_interval(lambda idx: right[idx].mean(), groups) == (low, high)  # seeded
    assert group_bootstrap_interval(lambda idx: right[idx].mean(), [0, 0, 1, 1]) is None  # too few groups
    assert Figure("m", 0.5, "test", 100, interval=share_interval(0.5, 100)).to_json()["interval95"] == [0.4038, 0.5962]
    assert "interval95" not in Figure("m", 0.5, "test", 100).to_json()
    predicted = Figure("m", 0.5, "test", 100, prediction=(0.3, 0.7), prediction_rows=68).to_json()
    assert predicted["prediction95"] == [0.3, 0.7] and predicted["prediction_rows"] == 68
    assert "prediction95" not in Figure("m", 0.5, "test", 100).to_json()


def test_a_prediction_interval_holds_the_other_sets_chance():
    """Another set of 40 rows drawn by groups has its own chance: its interval is wider than our estimate's, wider
    still for a smaller set, and is seeded."""
    import numpy as np

    from studio.lab.evaluation.base import group_bootstrap_interval, group_prediction_interval

    right = np.repeat([1.0] * 24 + [0.0] * 16, 10)  # 40 narratives of 10 pairs, right or wrong as a whole
    groups = np.repeat(np.arange(40), 10)
    mean = lambda idx: right[idx].mean()  # noqa: E731
    ours = group_bootstrap_interval(mean, groups)
    big, small = group_prediction_interval(mean, groups, 400), group_prediction_interval(mean, groups, 100)
    assert big[0] < ours[0] < 0.6 < ours[1] < big[1]
    assert small[1] - small[0] > big[1] - big[0] + 0.05
    assert group_prediction_interval(mean, groups, 400) == big
    assert group_prediction_interval(mean, [0, 0, 1, 1], 4) is None
    constant = np.ones(400)
    assert group_prediction_interval(lambda idx: constant[idx].mean(), groups, 50) == (1.0, 1.0)


def test_readme_table_shows_an_interval():
    from studio.results import with_interval

    assert with_interval({"value": 0.7945, "interval95": [0.741, 0.8402]}) == "0.794 [0.74, 0.84]"
    assert with_interval({"value": 18.89}) == "18.9"  # a ROUGE-L, on its own scale (a visitor read "18.600")
    assert with_interval({"value": None, "interval95": [0, 1]}) == "—"
    assert with_interval({"value": 0.7945, "interval95": [0.741, 0.8402], "prediction95": [0.7139, 0.8697],
                          "prediction_rows": 376}) == "0.794 [0.74, 0.84]; 376 others: [0.71, 0.87]"


def test_about_shows_every_headline_figure_of_the_results_files():
    """A visitor reads how well each capability works in the app (About, *How well it works*), from the same files
    as the README's table: every headline figure, its split and value; the help texts send them there."""
    from studio.results import headline, load_results, with_interval
    from studio.ui import continue_tab, help as help_text, polish_tab
    from studio.ui.about_tab import CAPABILITY, figures_text

    text = figures_text()
    results = load_results(RESULTS_DIR)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(list(headline(results))) > 10
    for (r, f), row in zip(headline(results), rows):
        # the value third: on a phone the later columns are off screen (a visitor saw part, metric and split only)
        assert row.startswith(f"| {CAPABILITY[r['name']]} | {f['metric']} | {with_interval(f)} | {f['split']} | "
                              f"{f['n']} |")
    assert "not the tiny profile this app serves" in figures_text(in_use="tiny")
    assert "not the offline profile" not in figures_text(in_use="offline")
    for unreadable in ([], [{"name": "x"}], [{"name": "x", "figures": [{"value": 1.0}]}]):
        missing = figures_text(unreadable)
        assert "No measured figures ship with this copy" in missing and "|" not in missing
    partial = figures_text([{"name": "polish", "figures": [{"metric": "m", "value": 0.5}]}, {"name": "y"}])
    assert "| Polish | m | 0.500 | — | — | — |" in partial and "1 file could not be read" in partial
    serving = [p for p in Path(continue_tab.__file__).parents[1].rglob("*.py") if "lab" not in p.parts]
    assert not [p.name for p in serving if "README's Results" in p.read_text(encoding="utf-8")]
    assert help_text.HELP and polish_tab
    assert "under About, *How well it works*" in continue_tab.JUDGE_NOTE


def test_readme_table_is_the_results_files():
    text = README.read_text(encoding="utf-8")
    assert replace_table(text, render_table(RESULTS_DIR)) == text, "run `python -m studio eval table`"


def test_capability_pages_figures_tables_are_the_results_files():
    """Each capability page's "## Figures" table is what `eval table` writes from the committed results."""
    from studio.lab.evaluation.readme import DOCS, PAGE_END, PAGE_START, PAGES, page_updates

    names = {p.stem for p in RESULTS_DIR.glob("*.json")}
    assert names <= set(PAGES), f"map {sorted(names - set(PAGES))} to a capability page in readme.PAGES"
    updates = page_updates(RESULTS_DIR)
    assert {p.name for p in updates} == {PAGES[n] for n in names}
    for path, (text, new) in updates.items():
        assert path.parent == DOCS
        assert new == text, f"docs/{path.name}'s figures table is stale: run `python -m studio eval table`"
        head = text[:text.index(PAGE_START)]
        assert head.rstrip().endswith("## Figures"), f"docs/{path.name}: the table sits under a '## Figures' heading"
        assert head.count("\n## ") <= 1 and text.index(PAGE_START) < text.index(PAGE_END)
        for name in names:
            if PAGES[name] == path.name:
                assert f"`results/{name}.json`" in text[text.index(PAGE_START):text.index(PAGE_END)]


def test_capability_page_check_notices_an_edited_result(tmp_path):
    results, docs = tmp_path / "results", tmp_path / "docs"
    shutil.copytree(RESULTS_DIR, results)
    shutil.copytree(README.parent / "docs", docs)
    readme = tmp_path / "README.md"
    shutil.copy(README, readme)
    argv = ["eval", "table", "--check", "--readme", str(readme), "--docs", str(docs), "--results", str(results)]
    assert main(argv) == 0
    path = results / "proverbs.json"  # in the page's table, and in the README's
    r = json.loads(path.read_text())
    r["figures"][0]["value"] += 0.1
    path.write_text(json.dumps(r))
    assert main(argv) == 2
    assert main(argv[:2] + argv[3:]) == 0  # written: the README and docs/proverbs.md
    assert "0.440 [0.30, 0.38]" in (docs / "proverbs.md").read_text(encoding="utf-8")
    assert main(argv) == 0


def test_readme_table_check_notices_an_edited_result(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(RESULTS_DIR, results)
    readme = tmp_path / "README.md"
    shutil.copy(README, readme)
    assert main(["eval", "table", "--check", "--readme", str(readme), "--results", str(results)]) == 0
    path = results / "hauser.json"
    r = json.loads(path.read_text())
    headline = next(f for f in r["figures"] if f["headline"])
    headline["value"] = (headline["value"] or 0) + 0.1
    path.write_text(json.dumps(r))
    assert main(["eval", "table", "--check", "--readme", str(readme), "--results", str(results)]) == 2


def _committed_sample(name: str) -> list[dict]:
    return json.loads((RESULTS_DIR / f"{name}.json").read_text())["sample"]["figures"]


#: how far a recomputed figure may lie from the committed one: figures are stored to 4 decimals, and the samples are
#: computed on the float32 reference forms, whose scores move between CPU classes by float32 rounding only
#: (measured: the recording AVX-512 machine and the same code held to AVX2 kernels, or emulated as an AVX2-only
#: Haswell, give the same sample figures; docs/acceleration.md, "The committed samples"). One row's flip, 1/40 (1/20),
#: is a change of the code, not of the CPU.
TOLERANCE = 2e-3


def _assert_same_figures(recomputed: list[dict], committed: list[dict]):
    """The same metrics, splits and sizes, and values equal up to TOLERANCE: a hand-edited figure fails."""
    assert [(f["metric"], f["split"], f["n"]) for f in recomputed] == \
           [(f["metric"], f["split"], f["n"]) for f in committed]
    for a, b in zip(recomputed, committed):
        assert (a["value"] is None) == (b["value"] is None)
        if a["value"] is not None:
            assert a["value"] == pytest.approx(b["value"], abs=TOLERANCE), a["metric"]


@pytest.fixture
def judge_scores_once(monkeypatch):
    """Within one test, a cross-encoder judge's raw score of one (model, narrative, option) is computed once: the
    continuation sample scores its test items for the judge's accuracy and the same items again for its calibration.
    A memo of crossjudge.raw_scores, the judges' one call into their models: a repeated sequence gets the number the
    model computed for it (padding in another batch moves a score by float32 rounding only); every figure is still
    computed by the evaluation's own code from the models' scores."""
    import numpy as np

    from studio.continuation import crossjudge

    real, memo = crossjudge.raw_scores, {}

    def raw_scores(model, tok, narratives, options, max_length, batch=32):
        keys = [(model, None if narratives is None else narratives[i], option, max_length)
                for i, option in enumerate(options)]
        missing = list(dict.fromkeys(k for k in keys if k not in memo))
        if missing:
            scores = real(model, tok, None if narratives is None else [k[1] for k in missing],
                          [k[2] for k in missing], max_length, batch)
            memo.update(zip(missing, scores))
        if not keys:
            return real(model, tok, narratives, options, max_length, batch)
        return np.stack([memo[k] for k in keys])

    monkeypatch.setattr(crossjudge, "raw_scores", raw_scores)
    return memo


@needs_data
@pytest.mark.offline
@pytest.mark.slow
@pytest.mark.portability
@pytest.mark.parametrize("name", ["components", "hauser", "continuation", "proverbs", "nli", "sentiment", "language"])
def test_committed_sample_figures_are_recomputed_by_the_code(name, reference, judge_scores_once):
    """The first rows of each split (40; 6 for the judge's long narratives, 20 for HAUSER and the NLI) through the
    real scorers, on the float32 reference forms (no int8, int4 or bfloat16, whatever the CPU has), give the committed
    results' sample figures."""
    committed = json.loads((RESULTS_DIR / f"{name}.json").read_text())
    if committed["profile"] != reference.profile:
        pytest.fail(f"results/{name}.json was measured on the {committed['profile']} profile")
    ev = evaluation(name)
    _assert_same_figures(ev.compute(ev.sample_rows)["figures"], _committed_sample(name))


@needs_data
def test_sample_only_rewrites_the_sample_block_and_keeps_the_rest(tmp_path, capsys):
    """`eval NAME --sample-only` recomputes a file's sample (with the registry's reference twin) and keeps every
    other field as it was measured; it needs the file, and takes no --limit."""
    shutil.copy(RESULTS_DIR / "sentiment.json", tmp_path / "sentiment.json")
    before = json.loads((tmp_path / "sentiment.json").read_text())
    assert main(["eval", "sentiment", "--sample-only", "--out", str(tmp_path)]) == 0
    after = json.loads((tmp_path / "sentiment.json").read_text())
    assert {k: v for k, v in after.items() if k != "sample"} == {k: v for k, v in before.items() if k != "sample"}
    sample = after["sample"]
    rows = evaluation("sentiment").sample_rows
    assert sample["limit"] == rows and [f["n"] for f in sample["figures"]] == [rows, rows]
    assert "--sample-only" in sample["provenance"]["command"] and sample["provenance"]["date"]
    assert main(["eval", "sentiment", "--sample-only", "--out", str(tmp_path / "none")]) == 2
    assert main(["eval", "sentiment", "--sample-only", "--limit", "3"]) == 2
    assert "--sample-only" in capsys.readouterr().err


@needs_data
@pytest.mark.offline
def test_hauser_correlation_is_computed_from_the_scores(offline):
    """Pearson of the paper's own quality with the humans on the rated rows, recomputed here with scipy."""
    import numpy as np
    from scipy.stats import pearsonr

    from studio.lab.evaluation.hauser import correlations, load_rows

    rows = load_rows()
    paper = [0.5 * float(r["relevance_KB"]) + float(r["consistency_mnli"]) / 3 + float(r["consistency_emo"]) / 6
             for r in rows]
    human = [np.mean([float(r[f"label{a}_q"]) for a in (1, 2, 3)]) for r in rows]
    fake = [type("S", (), {"quality": p, "creativity": p, "informativeness": p})() for p in paper]
    got = correlations(rows, fake)
    assert got["paper_quality"] == pytest.approx(pearsonr(paper, human).statistic)
    assert got["quality"] == pytest.approx(got["paper_quality"])


@pytest.mark.parametrize("name", ["polish-read", "continuation-read"])
def test_blind_read_figures_are_tallied_from_the_committed_records(name):
    """The reads' figures are the records' labels counted, and the committed results hold the same figures (the read
    of the benchmark's own stories rebuilds its stories from the shared data: counted where it is)."""
    committed = json.loads((RESULTS_DIR / f"{name}.json").read_text())["figures"]
    if not HAVE_FIGURATIVE:
        committed = [f for f in committed if f["split"] != "benchmark stories"]
    _assert_same_figures(evaluation(name).compute()["figures"], committed)


def test_the_polish_read_pools_the_served_list_with_the_previous_read():
    """The details' pooled figure is the two reads' served tallies added, over both reads' literals."""
    from studio.lab.evaluation import reads

    _, details = reads.PolishReadEvaluation()._compute(None)
    pooled = next(v for k, v in details.items() if k.startswith("the served list, pooled with"))
    now, before = (reads._record(p)["rows"] for p in (reads.POLISH_READ, reads.POLISH_PREVIOUS_READ))
    for key, top in (("usable", None), ("top 3", 3)):
        a, b = (reads.tally(rows, "variant", reads.POLISH_SERVED, top) for rows in (now, before))
        assert pooled[key] == (a[0] + b[0], a[1] + b[1]) and a[1] > 0 and b[1] > 0
    assert f"({len({r['literal'] for r in now + before})} literals)" in next(
        k for k in details if k.startswith("the served list, pooled with"))
    assert not {r["literal"] for r in now} & {r["literal"] for r in before}  # two reads, not one read twice
    committed = json.loads((RESULTS_DIR / "polish-read.json").read_text())["details"]
    assert next(v for k, v in committed.items() if k.startswith("the served list, pooled with")) == \
        {k: list(v) for k, v in pooled.items()}


@pytest.mark.skipif(not HAVE_FIGURATIVE, reason="needs ../shared/data/figurative")
def test_the_benchmark_read_rebuilds_its_stories_from_the_test_part():
    """The stories of the read on the benchmark's own narratives come from its test part, marked as a user marks them,
    and the record counts each story's served lines and its two benchmark options without their text."""
    from studio.lab.continuation import data
    from studio.lab.evaluation.reads import CONTINUATION_BENCHMARK_READ, _record, continuation_rows

    items = data.read_items("read44")
    assert [i.kind for i in items] == ["idiom"] * 10 + ["simile"] * 10
    assert all(data.part(i) == "test" for i in items) and len({i.group for i in items}) == 20
    # the benchmark marks its idioms, not its similes (Continue finds a simile itself)
    assert [data.marked(i).count("[") for i in items] == [1] * 10 + [0] * 10
    assert not any("<b>" in data.marked(i) for i in items)
    assert data.read_items("read44") == items and data.read_items("other") != items
    rows = continuation_rows((CONTINUATION_BENCHMARK_READ,))
    assert {r["narrative"] for r in rows} == {data.marked(i) for i in items}
    options = [r for r in _record(CONTINUATION_BENCHMARK_READ)["rows"] if r["generator"].startswith("benchmark")]
    assert len(options) == 40 and all(r["continuation"] is None for r in options)
    assert {r["kind"] for r in rows if r["line"] <= 10} == {"idiom"}


def test_a_rebuilt_story_that_is_not_the_one_read_is_refused(monkeypatch):
    """Another version of the shared data (a story changed, or fewer stories) must not count labels against other
    stories: the read lines' ids are checked, and the eval says it cannot count the read."""
    from studio.errors import InputError
    from studio.lab.evaluation import reads

    story = "He was on duty, but he would [call in sick]."
    monkeypatch.setattr(reads, "_record", lambda path: {"narratives": "benchmark:x", "rows": [
        {"id": reads.line_id("continue", story, "He stayed home."), "line": 1, "continuation": "He stayed home."}]})
    monkeypatch.setattr(reads, "_narratives", lambda source: [(story, "idiom")])
    assert reads.continuation_rows(("r.json",))[0]["narrative"] == story
    monkeypatch.setattr(reads, "_narratives", lambda source: [(story.replace("duty", "call"), "idiom")])
    with pytest.raises(InputError, match="not the ones read"):
        reads.continuation_rows(("r.json",))
    monkeypatch.setattr(reads, "_narratives", lambda source: [])
    with pytest.raises(InputError, match="has no story"):
        reads.continuation_rows(("r.json",))
    details = {}
    assert reads._benchmark_read(details) == [] and "not counted" in next(iter(details.values()))


@pytest.mark.parametrize("index,read,earlier", [(0, "read 50", None), (1, "read 33", 1)])
def test_a_second_reader_is_counted_on_the_same_served_lines(index, read, earlier):
    from studio.lab.evaluation.reads import (POLISH_EARLIER_READS, POLISH_READ, POLISH_SECOND_READERS, POLISH_SERVED,
                                             _record, second_reader, tally)

    got = second_reader(POLISH_SECOND_READERS[index])
    path, served_name = (POLISH_READ, POLISH_SERVED) if earlier is None else POLISH_EARLIER_READS[earlier][:2]
    assert path.endswith(f"polish_blind_read_{read.split()[1]}.json")
    first, _ = tally(_record(path)["rows"], "variant", served_name)
    assert got[read]["served, usable (first reader, second reader)"][0] == first
    second = _record(POLISH_SECOND_READERS[index])["rows"]
    assert len(second) == sum(v["distinct lines"] for v in got.values())
    assert all(0 < v["kappa"] <= v["agreement"] <= 1 for v in got.values())


def test_blind_read_tally_counts_labels_not_rows():
    from studio.lab.evaluation.reads import tally

    rows = [{"variant": "new", "rank": 1, "usable": 1}, {"variant": "new", "rank": 4, "usable": 1},
            {"variant": "new", "rank": 2, "usable": 0}, {"variant": "old", "rank": 1, "usable": 1}]
    assert tally(rows, "variant", "new") == (2, 3) and tally(rows, "variant", "new", top=3) == (1, 2)
    # the records' own summaries agree with their rows
    records = sorted((RESULTS_DIR.parent / "blind_reads").glob("polish_blind_read_*.json"))
    records = [json.loads(p.read_text()) for p in records]
    records = [r for r in records if "variants" in r]
    assert len(records) >= 4
    for record in records:
        for variant, counts in record["variants"].items():
            assert tally(record["rows"], "variant", variant) == (counts["usable"], counts["candidates"])
            assert tally(record["rows"], "variant", variant, top=3) == (counts["top3_usable"], counts["top3"])


def test_first_choice_of_a_read_follows_the_served_order():
    import numpy as np

    from studio.lab.evaluation.reads import any_usable, ordered_usable

    feud, fright = "The brothers finally [buried the hatchet].", "She saw the bear and went as white as a sheet."
    rows = [{"generator": "g", "line": 1, "narrative": feud, "continuation": "They made peace at last.", "usable": 1},
            {"generator": "g", "line": 1, "narrative": feud, "continuation": "They fought again.", "usable": 0},
            {"generator": "g", "line": 1, "narrative": fright, "continuation": "She froze.", "usable": 0},
            {"generator": "other", "line": 1, "narrative": fright, "continuation": "She ran.", "usable": 1}]

    class Judge:
        def __init__(self, prefer):
            self.prefer = prefer

        def rank(self, narrative, options, expr=None):
            assert "[" not in narrative  # the mark is removed, as the tab removes it
            return np.array([1.0 if self.prefer in o else 0.0 for o in options]) + 1e-3

    assert ordered_usable(rows, ("g",), Judge("peace")) == (1, 2)
    assert ordered_usable(rows, ("g",), Judge("again")) == (0, 2)
    assert ordered_usable(rows, ("g", "other"), Judge("ran"), top=2) == (2, 4)
    assert any_usable(rows, "g") == (1, 2)

    class Embedder:  # "They made peace at last." says the story's last sentence again; the rest do not
        def encode(self, texts):
            return np.array([[1.0, 0.0] if ("hatchet" in t or "peace" in t) else [0.0, 1.0] for t in texts])

    # the judge prefers the restatement by far (log 1.001 − log 0.001 ≈ 6.9 > 2 · 1): it stays first; by less than
    # the weight (Close, below), the other one leads
    assert ordered_usable(rows, ("g",), Judge("peace"), Embedder()) == (1, 2)

    class Close(Judge):
        def rank(self, narrative, options, expr=None):
            return np.array([0.6 if "peace" in o else 0.4 for o in options])

    assert ordered_usable(rows, ("g",), Close("peace"), Embedder()) == (0, 2)


def test_first_usable_reads_the_tiers_the_shown_rows_and_the_move():
    import numpy as np

    from studio.lab.evaluation.reads import first_usable

    group = [{"generator": "shown", "usable": 0}, {"generator": "shown", "usable": 1},
             {"generator": "not shown", "usable": 1}]
    pool = (group, np.array([0.5, 0.3, 0.2]), [False, False, False], [False, False, False], [0.9, 0.1, 0.0])
    assert first_usable([pool]) == (1, 1)  # 0.5 moved down by its closeness (log .5 − 1.8 < log .3 − 0.2)
    assert first_usable([pool], by_restating=False) == (0, 1)
    assert first_usable([pool], top=2, only=("shown",)) == (1, 2)
    cut = (group, np.array([0.2, 0.5, 0.3]), [False, True, False], [False, False, False], None)
    assert first_usable([cut]) == (1, 1) and first_usable([cut], top=2) == (1, 2)  # the cut one (usable) goes last
    slip = (group, np.array([0.2, 0.5, 0.3]), [False, False, False], [False, True, False], None)
    assert first_usable([slip], top=1) == (1, 1) and first_usable([slip], top=2) == (1, 2)


def test_a_perfect_rankers_ceiling_takes_each_pools_best_labels():
    from studio.lab.evaluation.reads import best_polish, best_shown

    rows = [{"generator": "shown", "line": 1, "usable": 0}, {"generator": "shown", "line": 1, "usable": 0},
            {"generator": "not shown", "line": 1, "usable": 1}, {"generator": "not shown", "line": 1, "usable": 1},
            {"generator": "shown", "line": 2, "usable": 1}, {"generator": "other", "line": 2, "usable": 1}]
    assert best_shown(rows, ("shown", "not shown"), 3) == (3, 4)  # line 1: 2 of its 3 best; line 2: 1 of its 1
    assert best_shown(rows, ("shown", "not shown"), 1) == (2, 2)
    polish = [{"literal": "a", "usable": u} for u in (0, 1, 0, 1, 1)] + [{"literal": "b", "usable": 0}]
    assert best_polish(polish, 3) == (3, 4) and best_polish(polish, 1) == (1, 2)  # Polish's pools are per literal


def test_read_list_metrics_weigh_the_parts_as_quality_does():
    """AUC and top 3 of any quality weighting from the normalised parts (`list_metrics`), computed by hand."""
    from studio.lab.evaluation.hauser import list_metrics

    # one literal: (relevance, logical, sentiment) parts, the last candidate without a simile; usable 1, 0, 1, 0, 0
    parts = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.5, 0.5, 1.0), (0.2, 0.0, 0.0), None]
    lists = [(parts, [1, 0, 1, 0, 0])]
    relevance = list_metrics(lists, (1, 0, 0))  # quality 1, 0, .5, .2, -1: usable above all 3 unusable, both
    assert relevance["auc"] == 1.0 and relevance["top3"] == pytest.approx(2 / 3, abs=1e-4) and relevance["usable"] == 2
    logical = list_metrics(lists, (0, 6, 0))  # quality 0, 1, .5, 0, -1: usable 0 beats -1, ties 0 (1.5); .5 beats 0, -1
    assert logical["auc"] == pytest.approx(3.5 / 6, abs=1e-4) and logical["slots"] == 3


def test_read_list_rank_metrics_order_as_rerank_does():
    """Usable in the first three of the combined order (`rank_metrics`), by hand: the served weights follow quality,
    the paper's 2 : 2 : 1 crowns the rarer, longer image; a gated candidate goes after the others; the paired gain."""
    from studio.lab.evaluation.hauser import paired_gain, rank_metrics

    parts = [(1.0, 1.0, 0.0), (0.0, 0.0, 0.0), (0.5, 0.5, 0.0), (0.2, 0.2, 0.0), None]  # only `None` is read
    # (quality, creativity, informativeness, after); usable: the three best by quality, not the creative one
    extras = [(1.0, -2.0, 1.0, False), (0.0, 5.0, 4.0, False), (0.6, -1.0, 1.0, False), (0.5, -1.5, 1.0, False),
              (None, None, None, False)]
    lists = [(parts, [1, 0, 1, 1, 0], extras)]
    served, paper = rank_metrics(lists, (3.0, 0.5, 0.0)), rank_metrics(lists, (2.0, 2.0, 1.0))
    assert served["per_literal"] == [3] and served["top3"] == 1.0 and served["slots"] == 3
    # the paper's: ranks Q 1, 4, 2, 3; C 4, 1, 2, 3; I 2, 1, 2, 2 → sums 12, 11, 10, 14: the creative line is second
    assert paper["per_literal"] == [2]
    gated = [(parts, [1, 0, 1, 1, 0], [(*e[:3], k == 0) for k, e in enumerate(extras)])]
    assert rank_metrics(gated, (3.0, 0.5, 0.0))["per_literal"] == [2]  # the best by quality goes after the others
    assert rank_metrics([(parts[:3], [1, 0, 1], extras[:3])], (3.0, 0.5, 0.0))["slots"] == 0  # under four: not counted
    gain = paired_gain(served, paper)
    assert gain["gain"] == pytest.approx(1 / 3, abs=1e-4)


def test_a_measured_figure_is_read_by_its_metric_and_none_when_missing(tmp_path):
    """The Polish tab sets the blind read's share beside keep's sum: read from results/, and no sentence at all in a
    copy without the file, or with one that is not an evaluation's."""
    import json

    from studio.results import BLIND_READ_KEPT, measured

    name, metric = BLIND_READ_KEPT
    assert measured(name, metric, tmp_path) is None
    (tmp_path / f"{name}.json").write_text(json.dumps({"figures": [
        {"metric": "usable of the top 3 (target 0.80)", "value": 0.3},
        {"metric": f"{metric} (target 0.60)", "value": 0.125}]}))
    assert measured(name, metric, tmp_path) == 0.125 and measured(name, "no such metric", tmp_path) is None
    (tmp_path / f"{name}.json").write_text("[1, 2]")
    import os

    os.utime(tmp_path / f"{name}.json", ns=(1, 1))  # another version of the file is read again
    assert measured(name, metric, tmp_path) is None
