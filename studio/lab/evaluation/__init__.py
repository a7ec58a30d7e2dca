"""One evaluation contract for every capability (`python -m studio eval NAME|all|table`).

Each capability is an `Evaluation` (see base.py) of the same shape as huggingface/evaluate's metrics: it declares its
splits, derived deterministically from ../shared/data by a documented rule — `train` (what its assets are fitted on),
`dev` (every choice: hyperparameters, methods, thresholds, temperatures), `test` (reported, never used for a choice)
— and implements `_compute(limit)`, which returns its figures. `run` adds the provenance (command, git commit, date,
CPU flags) and writes results/NAME.json atomically; `python -m studio eval table` writes the README's results table
from those files. Serving code never imports this package.
"""
