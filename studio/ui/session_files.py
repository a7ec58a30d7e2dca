"""Files a browser session uploads or downloads live no longer than the session.

Gradio copies every file a handler returns into its cache and sweeps only those copies (delete_cache, by age);
the handler's own file and the upload stay behind. Here each session's files are recorded and deleted, with
Gradio's copies, when the session ends (the app's unload event); files of clients that never end a session
(the API) are swept by age instead.
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from pathlib import Path

import gradio as gr

DOWNLOAD_DIR = Path(tempfile.gettempdir()) / "studio-downloads"
MAX_AGE_S = 3600  # downloads and Gradio's cached files older than this are deleted (the app's delete_cache too)
SWEEP_EVERY_S = 60

_files: dict[str, set[Path]] = {}
_lock = threading.Lock()
_last_sweep = 0.0


def _session(request) -> str | None:
    return getattr(request, "session_hash", None) or None


def _gradio_cache() -> Path:
    from gradio.utils import get_upload_folder

    return Path(get_upload_folder())


def track(request, *paths) -> None:
    """Delete these files when the request's session ends (no session: left to the age sweeps)."""
    key = _session(request)
    if key is None:
        return
    with _lock:
        _files.setdefault(key, set()).update(Path(p) for p in paths if p)


def new_download(request, stem: str, extension: str) -> str:
    """A fresh file for a download, owned by the request's session, named the same way on every tab:
    `<stem>-<date>-<time>[-<n>].<extension>` ("polish-2026-12-06-211500.csv"; the browser saves it under that name).
    Unique in the folder (`n` counts files made within the same second), so that the session's end deletes only its
    own files and Gradio's copies of them."""
    DOWNLOAD_DIR.mkdir(parents=True, exist_ok=True)
    sweep(MAX_AGE_S)
    base = f"{stem}-{time.strftime('%Y-%m-%d-%H%M%S')}"
    for n in range(1, 10_000):
        path = DOWNLOAD_DIR / f"{base}{'' if n == 1 else f'-{n}'}.{extension}"
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            continue
        track(request, path)
        return str(path)
    raise RuntimeError(f"no free name for a download in {DOWNLOAD_DIR}")


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)
    cache = _gradio_cache()
    if path.parent.parent == cache:  # an upload: Gradio keeps one file per hash folder
        try:
            path.parent.rmdir()
        except OSError:
            pass
    # Gradio's copies of a download sit in <cache>/<hash>/<same unique name>
    for copy in cache.glob(f"*/{path.name}") if path.parent == DOWNLOAD_DIR else ():
        copy.unlink(missing_ok=True)
        try:
            copy.parent.rmdir()
        except OSError:
            pass


def end_session(request: gr.Request) -> None:
    """The unload handler: delete every file the session uploaded or downloaded."""
    key = _session(request)
    with _lock:
        paths = _files.pop(key, set()) if key else set()
    for path in paths:
        _remove(path)


def sweep(max_age_s: float, force: bool = False) -> None:
    """Delete downloads older than max_age_s (those of API clients, whose sessions never end) and forget
    files that are gone; at most once a minute unless forced."""
    global _last_sweep
    now = time.time()
    with _lock:
        if not force and now - _last_sweep < SWEEP_EVERY_S:
            return
        _last_sweep = now
    for path in DOWNLOAD_DIR.glob("*"):
        try:
            if path.stat().st_mtime < now - max_age_s:
                path.unlink()
        except OSError:
            pass
    with _lock:
        for key in list(_files):
            _files[key] = {p for p in _files[key] if p.exists()}
            if not _files[key]:
                del _files[key]


def tracked(request) -> set[Path]:
    with _lock:
        return set(_files.get(_session(request) or "", set()))


def _cell(value):
    """A CSV cell: lists joined with '; ', dicts as JSON, None empty."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "; ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def result_downloads(request, stem: str, rows: list[dict], about: dict) -> list[str]:
    """A result as two downloads owned by the session (`new_download`): `<stem>-….csv` (one row per result row;
    `about`'s plain values repeated as leading columns) and `<stem>-….json` ({"about": about, "rows": rows}, lists
    kept as lists); a row's numbers to 4 decimals, as every tab's downloads (a visitor found 0.39282965660095215
    beside Proverbs' 0.2742)."""
    import csv

    rows = [{k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()} for row in rows]
    plain = {k: v for k, v in about.items() if not isinstance(v, (list, tuple, dict))}
    fields = list(plain) + [k for k in dict.fromkeys(k for row in rows for k in row) if k not in plain]
    csv_path = new_download(request, stem, "csv")
    with open(csv_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(v) for k, v in {**plain, **row}.items()})
    return [csv_path, json_download(request, stem, {"about": about, "rows": rows})]


def json_download(request, stem: str, data) -> str:
    """`data` as a JSON download owned by the session (`new_download`): `<stem>-….json`, UTF-8 as typed."""
    path = new_download(request, stem, "json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=1)
    return path
