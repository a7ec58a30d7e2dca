"""Load test on loopback: N concurrent gradio_client clients for D seconds, mixing proverbs, rerank, polish and
continue requests against `python app.py` (offline profile by default). Prints JSON: requests, failures,
busy answers, p50/p95 latency per endpoint, and the server's RSS over time (start, middle, end).

    .venv/bin/python bench/load.py [--clients 20] [--seconds 60] [--profile offline]
                                   [--queue-max N] [--max-memory-gb G]

--queue-max shrinks the server's queue (STUDIO_QUEUE_MAX) so that excess requests get the "queue full" answer,
counted as busy; --max-memory-gb sets the registry's budget (STUDIO_MAX_MEMORY_GB), and the Models tab's
accounting is sampled during the run and reported at the end (roles loaded, accounted MB, the peak).

Bounded in count and time: every client stops at the deadline; each request has a timeout.
"""
from __future__ import annotations

import argparse
import json

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: endpoint -> texts for its text boxes, in order (other parameters keep their defaults)
MIX = {
    "/proverbs": [["Maya saved a little of every paycheck for years. When the factory closed, she was the only one "
                   "on her street who could pay the rent."]],
    "/rerank": [["He yelps and howls.",
                 "He yelps and howls like a wolf.\nHe yelps and howls like a dog.\nHe yelps and howls like a baby."]],
    "/polish": [["He yelps and howls."], ["The room was quiet."]],
    "/continue": [["Nobody expected the new intern to fix the server. She solved it in ten minutes and left us "
                   "standing there like statues."]],
}
REQUEST_TIMEOUT_S = 120


def _args(params, texts):
    texts, args = list(texts), []
    for p in params:
        kind = p.get("type", {}) or {}
        if texts and kind.get("type") == "string" and "enum" not in kind and p.get("component") in ("Textbox", "Textarea"):
            args.append(texts.pop(0))
        elif p.get("parameter_has_default"):
            args.append(p.get("parameter_default"))
        else:
            args.append(p.get("example_input"))
    return args


def _rss_mb(pid: int) -> float:
    import psutil

    proc = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)]) / 2**20


def _accounting(client) -> dict:
    """The Models tab's view: which roles are loaded and the memory the registry accounts to them."""
    try:
        table = client.predict(api_name="/models")
    except Exception:  # a sample lost to a full queue is skipped, not a failure of the app under test
        return {"loaded": [], "accounted_mb": 0.0, "per_role_mb": {}}
    rows = [dict(zip(table["headers"], row)) for row in table["data"]]
    ready = {r["role"]: r["memory_mb"] or 0.0 for r in rows if r["state"] == "ready"}
    return {"loaded": sorted(ready), "accounted_mb": round(sum(ready.values()), 1), "per_role_mb": ready}


def _registry_report(samples: list[dict], final: dict, budget_gb: float | None) -> dict:
    peak = max(samples + [final], key=lambda a: a["accounted_mb"])
    return {"budget_mb": None if budget_gb is None else round(budget_gb * 1024, 1),
            "loaded_at_end": final["loaded"], "accounted_mb_at_end": final["accounted_mb"],
            "per_role_mb_at_end": final["per_role_mb"], "peak_accounted_mb": peak["accounted_mb"],
            "peak_loaded": peak["loaded"], "samples": len(samples) + 1,
            "within_budget": None if budget_gb is None else peak["accounted_mb"] <= budget_gb * 1024 + 0.1}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--profile", default="offline")
    ap.add_argument("--queue-max", type=int, default=None, help="STUDIO_QUEUE_MAX for the server")
    ap.add_argument("--max-memory-gb", type=float, default=None, help="STUDIO_MAX_MEMORY_GB for the server")
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "STUDIO_PROFILE": args.profile, "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    if args.queue_max is not None:
        env["STUDIO_QUEUE_MAX"] = str(args.queue_max)
    if args.max_memory_gb is not None:
        env["STUDIO_MAX_MEMORY_GB"] = str(args.max_memory_gb)
    server = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        from gradio_client import Client

        deadline = time.time() + 180
        while True:
            try:
                probe = Client(url, verbose=False)
                break
            except Exception:
                if time.time() > deadline or server.poll() is not None:
                    raise SystemExit("the app did not start")
                time.sleep(0.5)
        endpoints = probe.view_api(return_format="dict", print_info=False)["named_endpoints"]
        mix = {name: [_args(endpoints[name]["parameters"], t) for t in texts] for name, texts in MIX.items()
               if name in endpoints}
        missing = sorted(set(MIX) - set(mix))
        for name, variants in mix.items():  # warm every model once, outside the measured window
            probe.predict(*variants[0], api_name=name)

        latencies = {name: [] for name in mix}
        failures, busy, lock = [], {name: 0 for name in mix}, threading.Lock()
        rss = [(0.0, _rss_mb(server.pid))]
        accounting = [_accounting(probe)]
        start = time.time()
        stop_at = start + args.seconds

        def worker(seed: int) -> None:
            rng, client = random.Random(seed), Client(url, verbose=False)
            while time.time() < stop_at:
                name = rng.choice(list(mix))
                t = time.perf_counter()
                try:
                    client.submit(*rng.choice(mix[name]), api_name=name).result(timeout=REQUEST_TIMEOUT_S)
                    with lock:
                        latencies[name].append(time.perf_counter() - t)
                except Exception as exc:
                    with lock:
                        if "queue is full" in str(exc).lower():
                            busy[name] += 1
                        else:
                            failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:160]}")

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(args.clients)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            time.sleep(2)
            rss.append((round(time.time() - start, 1), _rss_mb(server.pid)))
            if args.max_memory_gb is not None:
                accounting.append(_accounting(probe))
        half = [m for t, m in rss if t >= args.seconds / 2] or [rss[-1][1]]
        growth = (half[-1] - half[0]) / half[0] * 100 if half[0] else 0.0

        def pct(values, q):
            return round(statistics.quantiles(values, n=100)[q - 1], 3) if len(values) >= 2 else (
                round(values[0], 3) if values else None)

        print(json.dumps(with_cpu({
            "clients": args.clients, "seconds": args.seconds, "profile": args.profile,
            "queue_max": args.queue_max, "max_memory_gb": args.max_memory_gb,
            "requests": sum(len(v) for v in latencies.values()) + len(failures) + sum(busy.values()),
            "failures": len(failures), "failure_examples": failures[:5], "busy": sum(busy.values()),
            "missing_endpoints": missing,
            "endpoints": {n: {"requests": len(v), "busy": busy[n], "p50_s": pct(v, 50), "p95_s": pct(v, 95)}
                          for n, v in latencies.items()},
            "rss_mb": {"start": round(rss[0][1], 1), "middle": round(half[0], 1), "end": round(rss[-1][1], 1),
                       "growth_last_half_pct": round(growth, 2)},
            "registry": _registry_report(accounting, _accounting(probe), args.max_memory_gb),
        }), indent=2))
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
