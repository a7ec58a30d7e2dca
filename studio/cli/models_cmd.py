"""`python -m studio models`: the registry's status per role, with the form each role is served in and the
self-check verdict of that form on this CPU; `--prepare` does the one-time work (conversions, int8 exports,
self-checks) so that no visitor waits for it."""
from __future__ import annotations

import sys
import time

from ..models import ModelUnavailable, ROLES, get_registry
from ..models.selfcheck import cpu_summary
from ..proverbs.service import get_scorer
from . import EXIT_MODEL_UNAVAILABLE, add_json_flag

#: roles whose first load does one-time work on a machine (GGUF conversion, int8 export, self-checks)
PREPARED_ROLES = ("retrieval_embedder", "proverbs_encoder", "lm", "polisher", "continuation_generator", "embedder",
                  "writer", "polish_writer")


def register(sub) -> None:
    p = sub.add_parser("models", help="list the model roles, the profile in use, availability and served forms")
    p.add_argument("--load", nargs="*", metavar="ROLE", help="load these roles (all when none given) and report times")
    p.add_argument("--prepare", action="store_true",
                   help="do the one-time work now (convert, export and self-check the accelerated forms, and the "
                        "proverbs' fine-tuned encoder), so that the app's first request does not wait for it")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def run(args) -> dict:
    registry = get_registry()
    roles = list(args.load or ROLES) if args.load is not None else list(PREPARED_ROLES) if args.prepare else []
    missing = []
    for role in roles:
        started = time.perf_counter()
        if args.prepare:
            print(f"preparing {role}…", file=sys.stderr, flush=True)
        try:
            registry.get(role)
        except ModelUnavailable:
            missing.append(role)  # reported in the status rows
        if args.prepare:
            print(f"  {role}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    variants = _prepare_variants() if args.prepare else []
    named = [role for role in missing if role in (args.load or ())]
    if named:  # a role asked for by name that cannot load: the exit says so (a script checked readiness by it)
        print(f"error: could not load {', '.join(named)} (the table says why)", file=sys.stderr)
        args.exit_code = EXIT_MODEL_UNAVAILABLE

    return {"profile": registry.profile, "profile_reason": registry.settings.profile_reason, "cpu": cpu_summary(),
            "roles": registry.status(), "variants": variants}


def _prepare_variants() -> list[dict]:
    """The proverbs scorer built as a request builds it (the catalog's embeddings by the fine-tuned encoder, the
    `proverbs_encoder` role, cached on disk), so that the first request finds them ready."""
    print("preparing the proverbs scorer…", file=sys.stderr, flush=True)
    try:
        part = get_scorer().finetuned
    except (ModelUnavailable, OSError) as exc:
        return [{"variant": "proverbs fine-tuned encoder", "state": "unavailable", "reason": str(exc)}]
    if part is None:
        return [{"variant": "proverbs fine-tuned encoder", "state": "not used",
                 "reason": "no delta fits the current retrieval embedder"}]
    embedder = part.embedder
    return [{"variant": "proverbs fine-tuned encoder", "state": "ready", "model": embedder.model_id,
             "backend": embedder.backend, "self_check": [v.to_json() for v in getattr(embedder, "checks", ()) or ()]}]


def _check_lines(checks: list[dict]) -> list[str]:
    lines = []
    for v in checks:
        verdict = "passed" if v["passed"] else "FAILED"
        lines.append(f"    self-check {verdict}: {v['form']} ({v['measure']} {v['value']}, needs {v['tolerance']}"
                     f"{', cached' if v.get('cached') else ''})")
    return lines


def render(result: dict) -> str:
    lines = [f"profile: {result['profile']} ({result['profile_reason']})", f"cpu: {result['cpu']}", ""]
    width = max(len(r["model"]) for r in result["roles"])
    role_width = max(len(r["role"]) for r in result["roles"])
    for r in result["roles"]:
        extra = f"  — {r['reason']}" if r["reason"] else ""
        timing = f"  {r['load_seconds']:.2f}s {r['memory_mb']:.0f} MB" if r["load_seconds"] is not None else ""
        lines.append(f"{r['role']:<{role_width}} {r['model']:<{width}}  {r['state']}{timing}{extra}")
        if r["state"] == "ready":
            lines.append(f"    served as: {r['backend']}")
        lines.extend(_check_lines(r.get("self_check") or []))
    for v in result.get("variants") or []:
        lines.append(f"{v['variant']}: {v['state']}" + (f" — {v['reason']}" if v.get("reason") else ""))
        if v.get("backend"):
            lines.append(f"    served as: {v['backend']}")
        lines.extend(_check_lines(v.get("self_check") or []))
    return "\n".join(lines)
