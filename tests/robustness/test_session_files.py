"""Uploads and downloads go when the browser session ends (the app's unload event, fired when the session's
heartbeat connection closes), Gradio's cached copies with them; and no path typed by a user reaches the disk."""
from __future__ import annotations

import os
import time

import httpx
from gradio_client import handle_file

from studio.ui import session_files

from .conftest import wait_for


def test_session_files_are_deleted_when_the_session_ends(client, app_url, tmp_path):
    upload = tmp_path / "candidates.csv"
    upload.write_text("literal,candidate\nHe is fast.,He is as fast as a cheetah.\nHe is fast.,He is fast like wind.\n")
    scored = client.predict(handle_file(str(upload)), 0.5, 1 / 3, 1 / 6, 2, 2, 1, "eq2", api_name="/rerank_csv")
    literal, candidates = scored[6], scored[7]  # (the State is not returned)
    assert literal == "He is fast." and "cheetah" in candidates
    result = client.predict(literal, candidates, api_name="/rerank")
    downloaded = result[3][0]  # the CSV (the JSON after it)

    class Session:  # what the unload handler receives: the client's session
        session_hash = client.session_hash

    files = session_files.tracked(Session)
    uploads = [p for p in files if p.name == upload.name]
    downloads = [p for p in files if p.parent == session_files.DOWNLOAD_DIR]
    assert uploads and downloads and all(p.exists() for p in files)
    cache = session_files._gradio_cache()
    copies = [c for d in downloads for c in cache.glob(f"*/{d.name}")]
    assert copies, "Gradio keeps a copy of every download in its cache"
    assert downloaded and open(downloaded, encoding="utf-8").read().startswith("literal,")

    # the browser's heartbeat: when it disconnects, Gradio runs the app's unload handlers for that session
    with httpx.stream("GET", f"{app_url}gradio_api/heartbeat/{client.session_hash}", timeout=10) as response:
        next(response.iter_bytes())
    wait_for(lambda: not any(p.exists() for p in [*files, *copies]), timeout=20, what="the session's files to go")
    assert not session_files.tracked(Session)


def test_typed_paths_never_reach_the_filesystem(client, tmp_path):
    """A path typed where text is expected is text: nothing is read from, or written to, that path."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret is tea")
    target = tmp_path / "written.csv"
    for api_name, text in (("/proverbs", str(secret)), ("/components", f"He runs like {secret}")):
        try:
            result = client.predict(text, api_name=api_name)
        except Exception as exc:  # a clear message is fine; the file's content must not come back
            result = str(exc)
        assert "the secret is tea" not in str(result)
    literal = str(target)
    try:
        client.predict(literal, f"{literal} like a wolf", api_name="/rerank")
    except Exception:
        pass
    time.sleep(0.1)
    assert not target.exists()


def test_downloads_are_named_alike_on_every_tab_and_never_twice():
    """A visitor's sweep found "polish-egzhwall.csv", "continue-0_rwxo8e.csv", "studio-5tabfg7o_rerank.csv": the tab
    and the moment now, and a count for files of the same second."""
    import re

    names = [session_files.new_download(None, "polish", "csv") for _ in range(3)]
    names.append(session_files.new_download(None, "polish", "json"))
    try:
        assert len(set(names)) == 4 and all(os.path.dirname(n) == str(session_files.DOWNLOAD_DIR) for n in names)
        pattern = re.compile(r"polish-\d{4}-\d\d-\d\d-\d{6}(-\d+)?\.(csv|json)")
        assert all(pattern.fullmatch(os.path.basename(n)) for n in names), names
    finally:
        for n in names:
            os.remove(n)


def test_sweep_removes_old_downloads():
    old = session_files.new_download(None, "test", "csv")
    past = time.time() - session_files.MAX_AGE_S - 10
    os.utime(old, (past, past))
    fresh = session_files.new_download(None, "test", "csv")
    session_files.sweep(session_files.MAX_AGE_S, force=True)
    assert not os.path.exists(old) and os.path.exists(fresh)
    os.remove(fresh)
