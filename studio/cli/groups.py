"""`build`, `train` and `eval`: each names a target implemented by a capability.

A target is "module:function"; the function takes the remaining argv (its own options) and returns a
JSON-able dict. Capabilities add their targets here.
"""
from __future__ import annotations

import importlib

TARGETS: dict[str, dict[str, str]] = {
    "build": {"idiom-lexicon": "studio.continuation.lexicon:build_asset", "proverbs": "studio.proverbs.catalog:build_catalog", "kb": "studio.similes.kb_build:build"},
    "train": {"judge": "studio.continuation.train:train_judge", "proverbs": "studio.proverbs.train:train", "simile-detector": "studio.similes.detector:train", "nli": "studio.hauser.train_heads:train_nli", "nli-cross": "studio.hauser.train_nli_cross:train", "sentiment": "studio.hauser.train_heads:train_sentiment"},
    # the evaluation contract (studio/evaluation): each writes results/NAME.json; `all` runs them, `table` writes
    # the README's table; the earlier full reports stay available as NAME-report (printed, not written)
    "eval": {"all": "studio.evaluation.cli:run_all", "table": "studio.evaluation.cli:table",
             "hauser": "studio.evaluation.cli:hauser", "components": "studio.evaluation.cli:components",
             "continuation": "studio.evaluation.cli:continuation", "proverbs": "studio.evaluation.cli:proverbs",
             "polish": "studio.evaluation.cli:polish", "nli": "studio.evaluation.cli:nli",
             "continuation-report": "studio.continuation.evaluate:evaluate",
             "proverbs-report": "studio.proverbs.evaluate:evaluate", "hauser-report": "studio.hauser.evaluate:eval_hauser",
             "components-report": "studio.similes.evaluate:run", "polish-report": "studio.similes.evaluate_polish:run"},
}
HELP = {
    "build": "build a derived asset (e.g. the simile knowledge base)",
    "train": "train an offline head from ../shared/data",
    "eval": "evaluate a capability on its fixed splits of ../shared/data and write results/NAME.json (all, table)",
}


def register(sub) -> None:
    from . import add_json_flag

    for group, targets in TARGETS.items():
        p = sub.add_parser(group, help=HELP[group])
        p.add_argument("target", help="one of: " + (", ".join(sorted(targets)) or "(none yet)"))
        p.add_argument("options", nargs="...", help="options of the target (see TARGET --help)")
        add_json_flag(p)
        p.set_defaults(func=_dispatch(group))


def _dispatch(group: str):
    def run(args):
        from ..errors import StudioError

        targets = TARGETS[group]
        if args.target not in targets:
            raise StudioError(f"unknown {group} target {args.target!r}; choose one of: {', '.join(sorted(targets)) or 'none'}")
        module, func = targets[args.target].split(":")
        options = list(args.options)
        if "--json" in options:
            options.remove("--json")
            args.json = True
        return getattr(importlib.import_module(module), func)(options)

    return run
