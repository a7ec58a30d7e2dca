"""Calibration of a two-way choice: how far a probability p of "option 2" can be taken at its word.

- `nll`: the mean negative log-likelihood of the labels (sklearn's log loss).
- `ece`: the expected calibration error over confidence bins — the confidence max(p, 1 − p) against the share of
  right choices in each of `bins` equal-width bins of [0.5, 1], weighted by the bin's size.
- `fit_temperature`: the T > 0 that minimises the NLL of sigmoid(d / T) for score differences d (temperature
  scaling, Guo et al. 2017); it leaves every choice as it was.
"""
from __future__ import annotations

import numpy as np


def probabilities(differences, temperature: float = 1.0) -> np.ndarray:
    d = np.asarray(differences, dtype=np.float64) / float(temperature)
    return 1.0 / (1.0 + np.exp(-d))


def nll(p, labels) -> float:
    from sklearn.metrics import log_loss

    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    return float(log_loss(np.asarray(labels, dtype=int), p, labels=[0, 1]))


def ece(p, labels, bins: int = 10) -> float:
    p, y = np.asarray(p, dtype=np.float64), np.asarray(labels, dtype=int)
    if not len(p):
        raise ValueError("no predictions")
    conf = np.maximum(p, 1 - p)
    right = (p > 0.5).astype(int) == y
    which = np.minimum(((conf - 0.5) / 0.5 * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        m = which == b
        if m.any():
            total += m.mean() * abs(right[m].mean() - conf[m].mean())
    return float(total)


def fit_temperature(differences, labels) -> float:
    """The temperature minimising the NLL on (differences, labels), searched over log T in [log 0.05, log 20]."""
    from scipy.optimize import minimize_scalar

    d, y = np.asarray(differences, dtype=np.float64), np.asarray(labels, dtype=int)
    if len(d) < 10 or len(set(y.tolist())) < 2:
        raise ValueError("fitting a temperature needs at least 10 pairs with both labels")
    res = minimize_scalar(lambda log_t: nll(probabilities(d, np.exp(log_t)), y),
                          bounds=(np.log(0.05), np.log(20.0)), method="bounded", options={"xatol": 1e-4})
    return float(np.exp(res.x))


def summary(differences, labels, temperature: float = 1.0) -> dict:
    p = probabilities(differences, temperature)
    y = np.asarray(labels, dtype=int)
    conf = np.maximum(p, 1 - p)
    return {"nll": round(nll(p, y), 4), "ece": round(ece(p, y), 4), "mean_confidence": round(float(conf.mean()), 4),
            "accuracy": round(float(((p > 0.5).astype(int) == y).mean()), 4), "n": len(y)}
