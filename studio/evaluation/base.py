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

from ..atomic import atomic_write_bytes
from ..cli import jsonable
from ..models.config import PROJECT_ROOT

RESULTS_DIR = PROJECT_ROOT / "results"
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


def pearson_interval(r: float | None, n: int) -> tuple[float, float] | None:
    """95 % interval of a Pearson correlation of n pairs by Fisher's z (normal in atanh r, standard error
    1/sqrt(n − 3))."""
    if r is None or n <= 3 or not -1.0 < float(r) < 1.0:
        return None
    import math

    z, se = math.atanh(float(r)), 1.96 / math.sqrt(n - 3)
    return math.tanh(z - se), math.tanh(z + se)


def paired_interval(differences) -> tuple[float, float] | None:
    """95 % interval of a mean of paired differences (e.g. 1/0/−1 per item: right by one system and not the other),
    normal approximation: what the lead of one system over another on the same items can tell apart."""
    import numpy as np

    d = np.asarray(list(differences), dtype=float)
    if d.size < 2:
        return None
    half = 1.96 * float(d.std(ddof=1)) / float(np.sqrt(d.size))
    return float(d.mean()) - half, float(d.mean()) + half


@dataclass
class Figure:
    metric: str
    value: float | None
    split: str
    n: int
    anchor: dict | None = None  # {"value", "source"}: the paper's figure beside ours
    headline: bool = True  # shown in the README's table
    #: a 95 % interval (share_interval, pearson_interval, paired_interval). It treats the n items as independent;
    #: items that share a literal or an expression are not, so the true spread is somewhat wider
    interval: tuple[float, float] | None = None

    def to_json(self) -> dict:
        out = {"metric": self.metric, "value": None if self.value is None else round(float(self.value), 4),
               "split": self.split, "n": int(self.n), "headline": self.headline}
        if self.anchor is not None:
            out["anchor"] = self.anchor
        if self.interval is not None:
            out["interval95"] = [round(float(x), 4) for x in self.interval]
        return out


class Evaluation:
    """One capability's evaluation. Subclasses set `name`, `title`, `splits` (split → its rule, in words) and
    implement `_compute(limit) -> (figures, details)`; `limit` caps the test rows for a quick run (None: all)."""

    name: str = ""
    title: str = ""
    splits: dict[str, str] = {}

    def _compute(self, limit: int | None) -> tuple[list[Figure], dict]:
        raise NotImplementedError

    def compute(self, limit: int | None = None) -> dict:
        from ..models import get_registry

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
    from ..models.selfcheck import read_cpu_flags

    return read_cpu_flags(path, CPU_FLAGS)


def provenance(command: str) -> dict:
    return {"command": command, "git": git_commit(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "cpu_flags": cpu_flags(), "machine": platform.machine(), "python": platform.python_version()}


def write_result(result: dict, results_dir: Path = RESULTS_DIR) -> Path:
    path = Path(results_dir) / f"{result['name']}.json"
    text = json.dumps(result, indent=2, ensure_ascii=False, default=jsonable) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"), mode=0o644)
    return path
