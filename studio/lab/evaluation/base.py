"""The evaluation contract: `Evaluation` subclasses declare their splits and compute figures; `run` records them.

A result file (results/NAME.json) holds, besides per-capability details, a list of figures
`{"metric", "value", "split", "n", "anchor"?, "interval95"?}` (interval95: a 95 % interval, see Figure) and the
provenance of the run: the command, the git commit (and whether the tree had uncommitted changes), the UTC date, the
profile and the CPU's flags relevant to speed and numerics.
"""
from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ...atomic import atomic_write_bytes, jsonable
from ...models import get_registry
from ...paths import PROJECT_ROOT
from ...results import RESULTS_DIR

CPU_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")


def hash_half(key: str, salt: str) -> str:
    """'dev' or 'test' for a key (a literal, a sentence): the parity of a SHA-1, so the halves never change."""
    digest = hashlib.sha1(f"{salt}|{key}".encode("utf-8")).hexdigest()
    return "dev" if int(digest[:8], 16) % 2 == 0 else "test"


def share_interval(value: float | None, n: int) -> tuple[float, float] | None:
    """95 % Wilson interval of a share (accuracy, recall, usable of n) of n independent trials."""
    if value is None or n <= 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(int(round(float(value) * n)), int(n)).proportion_ci(0.95, method="wilson")
    return float(ci.low), float(ci.high)


def _grouped_percentiles(statistic, groups, draw_rows, draws: int, seed: int) -> tuple[float, float] | None:
    """95 % percentile interval of `statistic(indices)` over `draws` sets of row indices, each drawn by
    `draw_rows(rng, members)` from the groups' row lists; None with fewer than three groups or when fewer than half
    the draws give a finite value."""
    import numpy as np

    groups = list(groups)
    names = list(dict.fromkeys(groups))
    if len(names) < 3:
        return None
    by_name: dict = {g: [] for g in names}
    for i, g in enumerate(groups):
        by_name[g].append(i)
    members = [by_name[g] for g in names]
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        value = statistic(np.asarray(draw_rows(rng, members)))
        if value is not None and np.isfinite(value):
            values.append(value)
    if len(values) < draws // 2:
        return None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return float(lo), float(hi)


def group_bootstrap_interval(statistic, groups, draws: int = 2000, seed: int = 0) -> tuple[float, float] | None:
    """95 % percentile interval of `statistic(indices)` over `draws` resamples of whole groups (a literal's candidates,
    a narrative's option pairs): rows that share a group are not independent, so resampling rows would understate the
    spread. None with fewer than three groups."""
    def resample(rng, members):
        return [i for k in rng.integers(0, len(members), len(members)) for i in members[k]]

    return _grouped_percentiles(statistic, groups, resample, draws, seed)


def group_prediction_interval(statistic, groups, size: int, draws: int = 2000,
                              seed: int = 0) -> tuple[float, float] | None:
    """95 % interval of `statistic(indices)` on ANOTHER set of about `size` rows drawn by whole groups, as a
    benchmark's own split would be (the issue's held-out figures): each draw resamples our groups (what we do not know
    of the population), then draws groups from that resample until `size` rows are reached (the other set's own
    chance), so the interval holds both spreads; wider than group_bootstrap_interval, which holds only the first.
    None with fewer than three groups."""
    if size < 1:
        return None

    def another_set(rng, members):
        population = rng.integers(0, len(members), len(members))
        idx: list[int] = []
        while len(idx) < size:
            idx += members[population[rng.integers(0, len(population))]]
        return idx

    return _grouped_percentiles(statistic, groups, another_set, draws, seed)


@dataclass
class Figure:
    metric: str
    value: float | None
    split: str
    n: int
    anchor: dict | None = None  # {"value", "source"}: the paper's figure beside ours
    headline: bool = True  # shown in the README's table
    #: a 95 % interval (share_interval treats the n items as independent;
    #: group_bootstrap_interval resamples whole groups, for items that share a literal or a narrative)
    interval: tuple[float, float] | None = None
    #: where the figure may land on ANOTHER set of `prediction_rows` rows (group_prediction_interval): the interval
    #: an issue's held-out figure, measured on a set of that size, is to be read against
    prediction: tuple[float, float] | None = None
    prediction_rows: int | None = None

    def to_json(self) -> dict:
        out = {"metric": self.metric, "value": None if self.value is None else round(float(self.value), 4),
               "split": self.split, "n": int(self.n), "headline": self.headline}
        if self.anchor is not None:
            out["anchor"] = self.anchor
        if self.interval is not None:
            out["interval95"] = [round(float(x), 4) for x in self.interval]
        if self.prediction is not None:
            out["prediction95"] = [round(float(x), 4) for x in self.prediction]
            out["prediction_rows"] = int(self.prediction_rows or 0)
        return out


class Evaluation:
    """One capability's evaluation. Subclasses set `name`, `title`, `splits` (split → its rule, in words) and
    implement `_compute(limit) -> (figures, details)`; `limit` caps the test rows for a quick run (None: all)."""

    name: str = ""
    title: str = ""
    splits: dict[str, str] = {}
    #: rows per split of the results file's `sample` block (what the tests recompute on every CPU class)
    sample_rows: int = 40

    def _compute(self, limit: int | None) -> tuple[list[Figure], dict]:
        raise NotImplementedError

    def compute(self, limit: int | None = None) -> dict:
        started = time.perf_counter()
        figures, details = self._compute(limit)
        return {
            "name": self.name, "title": self.title, "figures": [f.to_json() for f in figures],
            "splits": self.splits, "limit": limit, "profile": get_registry().profile, "details": details,
            "seconds": round(time.perf_counter() - started, 1),
        }


def git_commit() -> dict:
    def git(*args) -> str:
        try:
            return subprocess.run(["git", "-C", str(PROJECT_ROOT), *args], capture_output=True, text=True,
                                  timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    status = git("status", "--porcelain", "--untracked-files=no", "--", "studio", "assets")
    return {"commit": git("rev-parse", "HEAD") or None, "dirty": bool(status)}


def cpu_flags(path: str = "/proc/cpuinfo") -> dict:
    from ...models.selfcheck import read_cpu_flags

    return read_cpu_flags(path, CPU_FLAGS)


def provenance(command: str) -> dict:
    return {"command": command, "git": git_commit(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "cpu_flags": cpu_flags(), "machine": platform.machine(), "python": platform.python_version()}


def write_result(result: dict, results_dir: Path = RESULTS_DIR) -> Path:
    path = Path(results_dir) / f"{result['name']}.json"
    text = json.dumps(result, indent=2, ensure_ascii=False, default=jsonable) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"), mode=0o644)
    return path
