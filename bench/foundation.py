"""Foundation benchmark, printed as JSON: `import app` time, Blocks build time, time until the page renders
in headless Chromium, and per-role load seconds and RSS for a profile (default offline), each role in a
fresh process so that one role's imports do not hide another's.

    .venv/bin/python bench/foundation.py [--profile offline] [--no-browser]
"""
from __future__ import annotations

import argparse
import json

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
sys.path.insert(0, str(ROOT))

_ROLE_PROBE = """
import json, time, psutil, sys
from studio.models import Registry, Settings, ModelUnavailable
registry = Registry(Settings.from_env(sys.argv[1]))
rss0 = psutil.Process().memory_info().rss
t = time.perf_counter()
try:
    registry.get(sys.argv[2]); error = None
except ModelUnavailable as exc:
    error = exc.message
first = time.perf_counter() - t
row = next(r for r in registry.status() if r["role"] == sys.argv[2])
print(json.dumps({"seconds": round(first, 3), "rss_added_mb": round((psutil.Process().memory_info().rss - rss0) / 2**20, 1),
                  "state": row["state"], "model": row["model"], "error": error}))
"""


def _timed(code: str, env=None) -> float:
    start = time.perf_counter()
    subprocess.run([PY, "-c", code], cwd=ROOT, check=True, env={**os.environ, **(env or {})}, capture_output=True)
    return time.perf_counter() - start


def import_and_build(profile: str) -> dict:
    env = {"STUDIO_PROFILE": profile}
    baseline = _timed("pass", env)
    code = ("import time; t=time.perf_counter(); import studio.ui as ui; t1=time.perf_counter(); ui.build_demo(); "
            "t2=time.perf_counter(); print(t1-t, t2-t1)")
    out = subprocess.run([PY, "-c", code], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, check=True)
    imp, build = map(float, out.stdout.split())
    return {"python_startup_s": round(baseline, 3), "import_app_s": round(_timed("import app", env) - baseline, 3),
            "import_app_and_build_demo_s": round(_timed("import app; app.demo", env) - baseline, 3),
            "import_studio_ui_s": round(imp, 3), "build_blocks_s": round(build, 3)}


def page_render(profile: str) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "STUDIO_PROFILE": profile, "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    start = time.perf_counter()
    server = subprocess.Popen([PY, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from playwright.sync_api import sync_playwright

        url = f"http://127.0.0.1:{port}/"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                              "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = browser.new_page()
            deadline = time.time() + 120
            while True:
                try:
                    page.goto(url, wait_until="domcontentloaded")
                    break
                except Exception:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.2)
            server_up = time.perf_counter() - start
            t = time.perf_counter()
            page.get_by_role("tab").first.wait_for(timeout=60_000)
            rendered = time.perf_counter() - t
            browser.close()
        return {"server_start_s": round(server_up, 3), "page_render_s": round(rendered, 3),
                "start_to_rendered_s": round(server_up + rendered, 3)}
    finally:
        server.terminate()
        server.wait(timeout=30)


def role_loads(profile: str) -> dict:
    from studio.models import ROLES

    out = {}
    for role in ROLES:
        proc = subprocess.run([PY, "-c", _ROLE_PROBE, profile, role], cwd=ROOT, capture_output=True, text=True)
        out[role] = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else {"error": proc.stderr[-300:]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="offline")
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    result = {"profile": args.profile, **import_and_build(args.profile)}
    if not args.no_browser:
        result.update(page_render(args.profile))
    result["roles"] = role_loads(args.profile)
    print(json.dumps(with_cpu(result), indent=2))


if __name__ == "__main__":
    main()
