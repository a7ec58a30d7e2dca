"""The measured figures: `results/NAME.json`, one file per evaluation (written by `python -m studio eval`, the lab),
read here for whatever shows them — the README's and the docs' tables (`eval table`) and the About tab's *How well
it works*. One reading, one way to write a figure with its interval."""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from .paths import PROJECT_ROOT

RESULTS_DIR = PROJECT_ROOT / "results"
#: the capabilities first, in the README's order; any other evaluation after them, by name
ORDER = ("hauser", "components", "continuation", "proverbs", "polish")


def load_results(folder: Path = RESULTS_DIR) -> list[dict]:
    """Every results/*.json, in ORDER; [] when the folder is missing."""
    files = sorted(Path(folder).glob("*.json"), key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else 99, p.stem))
    return [json.loads(p.read_text(encoding="utf-8")) for p in files]


def measured(name: str, metric: str, folder: Path = RESULTS_DIR) -> float | None:
    """The value of the figure of results/NAME.json whose metric starts with `metric`; None when the file or the
    figure is missing (a copy without results) or unreadable. Read once per version of the file."""
    path = Path(folder) / f"{name}.json"
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    return _measured(path, stamp, metric)


@lru_cache(maxsize=32)
def _measured(path: Path, stamp: int, metric: str) -> float | None:
    try:
        figures = json.loads(path.read_text(encoding="utf-8"))["figures"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return next((f.get("value") for f in figures if str(f.get("metric", "")).startswith(metric)), None)


#: the Polish blind read's shares of lines kept, of the 10 and of the first 3 (results/polish-read.json)
BLIND_READ_KEPT = ("polish-read", "usable of the 10 candidates")
BLIND_READ_KEPT_TOP3 = ("polish-read", "usable of the top 3")
#: and beside Continue's table: the share of its lines a strict blind reader of new stories kept
BLIND_READ_KEPT_CONTINUE = ("continuation-read", "usable continuations (")


def polish_blind_read() -> str:
    """The sentence the Polish tab and command set after keep's estimate: what a strict blind reader of new sentences
    kept, of all ten lines and of the first three (keep is fitted on earlier readers' verdicts, who kept more: a
    visitor read "about 5 of them" beside the About tab's 0.13); "" in a copy without the figures."""
    every, top = measured(*BLIND_READ_KEPT), measured(*BLIND_READ_KEPT_TOP3)
    if every is None:
        return ""
    first = f" and {100 * top:.0f} % of its first three" if top is not None else ""
    return (f"Keep ranks the lines by earlier readers' verdicts; a strict blind reader of new sentences kept "
            f"{100 * every:.0f} % of Polish's lines{first}.")


def fmt(value) -> str:
    """A figure as the tables show it: a share or a correlation (at most 1) to three places ("0.794"), any other to
    three significant digits ("9.61", "18.6" for a ROUGE-L, not "18.600" beside the shares)."""
    if value is None:
        return "—"
    if abs(value) <= 1:
        return f"{value:.3f}"
    return f"{value:.{max(0, 2 - int(math.floor(math.log10(abs(value)))))}f}"


def with_interval(figure: dict) -> str:
    """"0.794 [0.74, 0.84]": the value and, where the evaluation gives one, its 95 % interval; then, where it gives
    one, where another set of N rows may land: "0.794 [0.74, 0.84]; 376 others: [0.71, 0.87]"."""
    interval, prediction = figure.get("interval95"), figure.get("prediction95")
    if figure.get("value") is None:
        return fmt(None)
    text = fmt(figure["value"]) + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")
    if prediction:
        text += f"; {figure.get('prediction_rows', '?')} others: [{prediction[0]:.2f}, {prediction[1]:.2f}]"
    return text


def headline(results: list[dict]):
    """(result, figure) of every headline figure, in the files' order."""
    for r in results:
        for f in r["figures"]:
            if f.get("headline", True):
                yield r, f
