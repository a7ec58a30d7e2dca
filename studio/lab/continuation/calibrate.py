"""`python -m studio train judge-temperature`: the temperature of the Continue judge's scores, fitted on the dev part
of data.split3 (idioms and similes together) by the NLL of its pairwise probabilities, written beside the judge's
weights as calibration.json (with their fingerprint: a retrained judge is served uncalibrated until this is rerun).

The judge's choices do not change; its probabilities do: trained to separate pairs, it says 0.88 on average where it
is right 73 % of the time on dev. Test figures of both come from `python -m studio eval continuation`."""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from ...atomic import atomic_write
from ..evaluation.calibration import fit_temperature, summary
from ...models.pair_encoder import CALIBRATION, load_pair_encoder_members, weights_fingerprint
from ...models.pair_folder import has_pair_encoder
from . import data
from ...continuation.crossjudge import CROSS_DIR, CrossJudge
from ...errors import InputError
from .judge_train import score_differences


def train(argv: list[str]) -> dict:
    p = argparse.ArgumentParser(prog="python -m studio train judge-temperature")
    p.add_argument("--folder", type=Path, default=CROSS_DIR, help="the stored judge (default: the served one)")
    p.add_argument("--no-save", action="store_true", help="print the fit, do not write calibration.json")
    args = p.parse_args(argv)
    if not has_pair_encoder(args.folder):
        raise InputError(f"--folder {args.folder}: no stored cross-encoder judge there (run `python -m studio "
                         "train judge` first)")
    started = time.perf_counter()
    judge = CrossJudge(load_pair_encoder_members(args.folder))
    dev = [it for kind in data.KINDS for it in data.split3(kind)["dev"]]
    d, y = score_differences(judge, dev)
    temperature = fit_temperature(d, y)
    report = {
        "temperature": round(temperature, 4),
        "fitted_on": f"the dev part of data.split3 ({len(y)} pairs, idioms and similes), by NLL",
        "dev before (temperature 1)": summary(d, y, 1.0),
        "dev after": summary(d, y, temperature),
        "members": len(judge.members),
        "weights_sha256": weights_fingerprint(args.folder),
        "command": "python -m studio train judge-temperature"
                   + ("" if Path(args.folder) == CROSS_DIR else f" --folder {args.folder}"),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if not args.no_save:
        import json

        atomic_write(Path(args.folder) / CALIBRATION, json.dumps(report, indent=1) + "\n")
    return report
