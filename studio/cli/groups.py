"""`build`, `train` and `eval`: each names a target implemented by a capability.

A target is "module:function"; the function takes the remaining argv (its own options) and returns a
JSON-able dict. Capabilities declare their targets in studio/capabilities.py.
"""
from __future__ import annotations

import importlib

from ..capabilities import targets as declared_targets
from ..errors import StudioError

#: declared by each capability in studio/capabilities.py (eval also has `all` and `table`)
TARGETS: dict[str, dict[str, str]] = declared_targets()
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
