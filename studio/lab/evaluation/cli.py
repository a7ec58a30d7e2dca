"""`python -m studio eval NAME|all|table`: run the evaluations, write results/NAME.json, write the results tables.

  python -m studio eval all --json            every capability, each into results/NAME.json
  python -m studio eval hauser [--limit N]    one capability (--limit: at most N rows per split, for a quick try;
                                              a limited run is written to results/ only with --out)
  python -m studio eval hauser --sample-only  only the file's `sample` block (what the tests recompute), the rest
                                              of results/NAME.json kept as it is
  python -m studio eval table [--check]       the README's results table from results/*.json, and each capability
                                              page's (docs/*.md, "## Figures") from its own results (--check: exit
                                              non-zero when one differs)
The full reports of the earlier evaluations stay available as `eval NAME-report`.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

from ...atomic import atomic_write_bytes
from ...capabilities import evaluations
from ...errors import InputError, StudioError, parse_options
from ...models import get_registry, using_registry
from ...settings import current
from .base import RESULTS_DIR, provenance, write_result

#: a results file's `sample` block: the figures of the first `Evaluation.sample_rows` rows of each split (40, fewer
#: where the models are slow), computed on the float32 reference forms (Registry.reference()), which every x86 CPU
#: computes alike; the tests recompute it from the code
#: {name: "module:Class"}, declared by each capability in studio/capabilities.py
EVALUATIONS = evaluations()


def evaluation(name: str):
    if name not in EVALUATIONS:
        raise InputError(f"unknown evaluation {name!r}; choose one of: {', '.join(EVALUATIONS)}")
    module, cls = EVALUATIONS[name].split(":")
    return getattr(importlib.import_module(module), cls)()


def _parse(prog: str, argv: list[str], quick_help: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    p.add_argument("--limit", type=int, default=None, help="at most N rows per split (a quick try)")
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--out", type=Path, default=None,
                   help=f"folder for NAME.json (default {RESULTS_DIR.name}/; a limited run writes only with --out)")
    p.add_argument("--sample-only", action="store_true",
                   help="recompute only the `sample` block of the folder's NAME.json (the first rows of each split, on "
                        "the float32 reference forms) and keep the rest of the file")
    args = parse_options(p, argv)
    if args.limit is not None and args.limit < 1:
        raise InputError(f"{prog}: --limit must be at least 1, not {args.limit}")
    if args.sample_only and (args.limit is not None or args.quick):
        raise InputError(f"{prog}: --sample-only has its own size; leave out --limit / --quick")
    if args.quick and args.limit is None:
        args.limit = 20
    return args


def _command(name: str, argv: list[str]) -> str:
    profile = current().profile
    return " ".join(["python -m studio", *([f"--profile {profile}"] if profile else []), "eval", name, *argv])


def sample(ev) -> dict:
    """The `sample` block of `ev`'s results: its figures on the first `ev.sample_rows` rows, computed with the current
    registry's reference twin (float32, no int8, int4 or bfloat16; llama.cpp's portable build), so that a test on
    any x86 CPU recomputes the same figures up to float32 rounding (docs/acceleration.md, "The committed samples")."""
    with using_registry(get_registry().reference()):
        return {"limit": ev.sample_rows, "figures": ev.compute(ev.sample_rows)["figures"]}


def run_one(name: str, argv: list[str], command: str | None = None) -> dict:
    args = _parse(f"python -m studio eval {name}", argv, "same as --limit 20")
    ev = evaluation(name)
    command = command or _command(name, argv)
    if args.sample_only:  # the headline figures stay as they were measured; the sample records its own run
        path = (args.out or RESULTS_DIR) / f"{name}.json"
        if not path.is_file():
            raise InputError(f"--sample-only rewrites the sample of {path}, which does not exist: run the whole "
                             f"`python -m studio eval {name}` first")
        result = json.loads(path.read_text(encoding="utf-8"))
        result["sample"] = {**sample(ev), "provenance": provenance(command)}
        result["written"] = str(write_result(result, path.parent))
        return result
    result = ev.compute(args.limit)
    if args.limit is None:
        result["sample"] = sample(ev)
    result.update(provenance(command))
    out = args.out or (RESULTS_DIR if args.limit is None else None)
    if out is not None:
        result["written"] = str(write_result(result, out))
    return result


def run_all(argv: list[str]) -> dict:
    args = _parse("python -m studio eval all", argv, "every evaluation with --limit 20")
    started = time.perf_counter()
    summary = {}
    for name in EVALUATIONS:
        sub = (["--limit", str(args.limit)] if args.limit else []) + (["--out", str(args.out)] if args.out else []) \
            + (["--sample-only"] if args.sample_only else [])
        t0 = time.perf_counter()
        print(f"[eval all] {name} …", file=sys.stderr, flush=True)
        result = run_one(name, sub, command=_command("all", argv))
        summary[name] = {"figures": result["figures"], "seconds": round(time.perf_counter() - t0, 1),
                         "written": result.get("written")}
    return {"evaluations": summary, "seconds": round(time.perf_counter() - started, 1)}


def _target(name: str):
    def run(argv: list[str]) -> dict:
        return run_one(name, argv)

    run.__name__ = f"eval_{name}"
    return run


def __getattr__(name: str):
    """`eval NAME` targets ("studio.lab.evaluation.cli:NAME"), one per evaluation of EVALUATIONS."""
    if name in EVALUATIONS:
        return _target(name)
    raise AttributeError(name)


def table(argv: list[str]) -> dict:
    from .readme import DOCS, README, page_updates, render_table, replace_table

    p = argparse.ArgumentParser(prog="python -m studio eval table")
    p.add_argument("--check", action="store_true",
                   help="do not write; fail when the README's table or a capability page's differs")
    p.add_argument("--readme", type=Path, default=README)
    p.add_argument("--docs", type=Path, default=DOCS, help="the folder of the capability pages (docs/)")
    p.add_argument("--results", type=Path, default=RESULTS_DIR)
    args = parse_options(p, argv)
    text = args.readme.read_text(encoding="utf-8")
    updates = {args.readme: (text, replace_table(text, render_table(args.results))),
               **page_updates(args.results, args.docs)}
    stale = [path for path, (old, new) in updates.items() if old != new]
    if args.check:
        if stale:
            raise StudioError(f"the results tables of {', '.join(p.name for p in stale)} differ from "
                              f"{args.results}/*.json: run `python -m studio eval table`")
        return {"readme": str(args.readme), "pages": [str(p) for p in updates if p != args.readme],
                "up_to_date": True}
    for path in stale:
        atomic_write_bytes(path, updates[path][1].encode("utf-8"), mode=0o644)
    return {"readme": str(args.readme), "changed": args.readme in stale,
            "pages_changed": [str(p) for p in stale if p != args.readme]}
