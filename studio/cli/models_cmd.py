"""`python -m studio models`: the registry's status per role."""
from __future__ import annotations

from . import add_json_flag


def register(sub) -> None:
    p = sub.add_parser("models", help="list the model roles, the profile in use, and availability")
    p.add_argument("--load", nargs="*", metavar="ROLE", help="load these roles (all when none given) and report times")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def run(args) -> dict:
    from ..models import ROLES, ModelUnavailable, get_registry

    registry = get_registry()
    if args.load is not None:
        for role in args.load or ROLES:
            try:
                registry.get(role)
            except ModelUnavailable:
                pass  # reported in the status rows
    return {"profile": registry.profile, "profile_reason": registry.settings.profile_reason, "roles": registry.status()}


def render(result: dict) -> str:
    lines = [f"profile: {result['profile']} ({result['profile_reason']})", ""]
    width = max(len(r["model"]) for r in result["roles"])
    role_width = max(len(r["role"]) for r in result["roles"])
    for r in result["roles"]:
        extra = f"  — {r['reason']}" if r["reason"] else ""
        timing = f"  {r['load_seconds']:.2f}s {r['memory_mb']:.0f} MB" if r["load_seconds"] is not None else ""
        lines.append(f"{r['role']:<{role_width}} {r['model']:<{width}}  {r['state']}{timing}{extra}")
    return "\n".join(lines)
