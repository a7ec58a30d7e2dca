"""Temperature scaling of the Continue judge: the metrics, the fit, and the calibration file beside the weights
(a stale or broken file is never silently served)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from studio.lab.evaluation.calibration import ece, fit_temperature, nll, probabilities, summary
from studio.models.pair_encoder import CALIBRATION, read_calibration, weights_fingerprint
from studio.models.pair_folder import CONFIG, WEIGHTS


def _overconfident(true_t: float, n: int = 4000, seed: int = 0):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.5, n)  # the honest log-odds
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    return z * true_t, y  # scores `true_t` times too sharp


def test_the_fit_recovers_the_temperature_and_leaves_choices_alone():
    d, y = _overconfident(3.0)
    t = fit_temperature(d, y)
    assert 2.6 < t < 3.4, t
    before, after = summary(d, y, 1.0), summary(d, y, t)
    assert after["nll"] < before["nll"] and after["ece"] < before["ece"] / 2
    assert after["accuracy"] == before["accuracy"]
    assert ((probabilities(d, t) > 0.5) == (d > 0)).all()


def test_calibration_metrics():
    d, y = _overconfident(1.0, seed=1)  # honest scores: small error
    assert ece(probabilities(d), y) < 0.03
    assert ece([0.99] * 10, [1] * 5 + [0] * 5) == pytest.approx(0.49)  # sure and right half the time
    assert nll([0.5, 0.5], [0, 1]) == pytest.approx(np.log(2))
    with pytest.raises(ValueError):
        ece([], [])
    with pytest.raises(ValueError):
        fit_temperature([1.0] * 20, [1] * 20)  # one label only


def _fake_judge(folder, weights=b"weights"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / WEIGHTS).write_bytes(weights)
    (folder / CONFIG).write_text("{}")


def test_calibration_file_is_read_only_for_the_weights_it_was_fitted_for(tmp_path):
    judge = tmp_path / "judge"
    _fake_judge(judge)
    _fake_judge(judge / "member-1", b"other seed")
    assert read_calibration(judge)[0] == 1.0  # none fitted
    (judge / CALIBRATION).write_text(json.dumps({"temperature": 3.2, "weights_sha256": weights_fingerprint(judge)}))
    t, note = read_calibration(judge)
    assert t == 3.2 and "3.20" in note
    (judge / "member-1" / WEIGHTS).write_bytes(b"retrained")  # a member retrained: the fit no longer applies
    t, note = read_calibration(judge)
    assert t == 1.0 and "changed" in note and "judge-temperature" in note
    (judge / CALIBRATION).write_text(json.dumps({"temperature": -1, "weights_sha256": weights_fingerprint(judge)}))
    with pytest.raises(RuntimeError, match="out of range"):
        read_calibration(judge)
    (judge / CALIBRATION).write_text("{not json")
    with pytest.raises(RuntimeError, match="not a calibration file"):
        read_calibration(judge)
