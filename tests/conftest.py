"""Test fixtures: the tiny profile by default, a session-scoped offline registry for tests marked
`offline` (and its float32 reference twin for the recomputed evaluation samples), and a session-scoped running app
driven through gradio_client."""
from __future__ import annotations

import os
import socket

os.environ.setdefault("STUDIO_PROFILE", "tiny")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):  # `make test` runs pytest-xdist workers, one per core
    # each worker's models on its share of the cores: torch, ONNX Runtime and llama.cpp would each take every core,
    # and two workers' threads on the same cores spin against each other (an LM call many times slower)
    _share = str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])))
    for _name in ("STUDIO_TORCH_THREADS", "STUDIO_ONNX_THREADS", "STUDIO_LM_THREADS", "OMP_NUM_THREADS",
                  "MKL_NUM_THREADS"):
        os.environ.setdefault(_name, _share)

import pytest  # noqa: E402

from studio.models import Registry, Settings, get_registry, using_registry  # noqa: E402


@pytest.fixture(scope="session")
def tiny_registry() -> Registry:
    return get_registry()


@pytest.fixture(scope="session")
def _offline_registry() -> Registry:
    return Registry(Settings.from_env("offline"))


@pytest.fixture
def offline(_offline_registry):
    """Swap in the offline profile's registry (models stay loaded across tests) for one test."""
    with using_registry(_offline_registry) as registry:
        yield registry


@pytest.fixture
def reference(_offline_registry):
    """Swap in the offline registry's float32 reference twin (Registry.reference(): no int8, int4 or bfloat16; what
    the committed evaluation samples are computed on) for one test; its models too stay loaded across tests."""
    with using_registry(_offline_registry.reference()) as registry:
        yield registry


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(admin: bool):
    from studio.ui import build_demo
    from studio.ui.app import launch

    demo = build_demo(admin=admin)
    port = free_port()
    launch(demo, server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    return demo, f"http://127.0.0.1:{port}/"


def close_app(demo) -> None:
    """`demo.close()`, once more when Gradio's first try raced its own server: it sets an asyncio.Event from this
    thread while the server's loop, in another, is adding a waiter to it ("deque mutated during iteration", seen once
    at the suite's end); the event is set by then, and the second call shuts the server down."""
    try:
        demo.close()
    except RuntimeError as exc:
        if "mutated during iteration" not in str(exc):
            raise
        demo.close()


@pytest.fixture(scope="session")
def app_url():
    """The whole app as a visitor gets it (no admin actions), launched once per session on the tiny profile."""
    demo, url = _launch(admin=False)
    yield url
    close_app(demo)


@pytest.fixture(scope="session")
def admin_client():
    """The whole app with the operator's admin actions on (STUDIO_ADMIN=1): Load/Unload in the Models tab."""
    from gradio_client import Client

    demo, url = _launch(admin=True)
    yield Client(url, verbose=False)
    close_app(demo)


@pytest.fixture(scope="session")
def client(app_url):
    from gradio_client import Client

    return Client(app_url, verbose=False)


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
needs_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")


@pytest.fixture(scope="module")
def page(browser, app_url):
    """A page of the session's headless Chromium on the running app, once the tabs have rendered (one per module)."""
    page = open_page(browser, app_url, 1280, 1000)
    yield page
    page.close()


#: words of a skip reason that name something CI has (../shared/data, Debian Chromium, the llama.cpp that
#: scripts/setup.sh builds): in CI such a skip fails
_CI_REQUIRED = ("../shared", "shared/data", "chromium", "llama-cpp-python")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (`CI=true`), a test that would skip because ../shared/data or Chromium is missing fails instead: CI has
    both, so such a skip means the check silently did not run."""
    outcome = yield
    report = outcome.get_result()
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(word in reason.lower() for word in _CI_REQUIRED):
        report.outcome = "failed"
        report.longrepr = f"CI=true, so this skip is a failure: {reason}"


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session (Playwright's sync API allows one running instance per thread):
    every browser module opens its own pages in it (each page in a fresh context: no cookie or storage is shared),
    instead of starting Chromium again per module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def open_page(browser, url, width=1400, height=1000, clipboard: bool = False):
    """A new page of `browser` on the app at `url`, once its tabs have rendered; with `clipboard`, in a context of its
    own that may read and write the clipboard (close `page.context` then)."""
    if clipboard:
        page = browser.new_context(viewport={"width": width, "height": height},
                                   permissions=["clipboard-read", "clipboard-write"]).new_page()
    else:
        page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_role("tab").first.wait_for(timeout=60_000)
    return page


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    """Where a module's screenshots go: $STUDIO_SCREENSHOTS, or pytest's temporary folder (it keeps the last three
    runs' folders and deletes older ones, so repeated runs leave no screenshots behind)."""
    from pathlib import Path

    if os.environ.get("STUDIO_SCREENSHOTS"):
        folder = Path(os.environ["STUDIO_SCREENSHOTS"])
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("shots")


#: the two screens every browser check runs at (issue 19): a laptop and a phone
SIZES = [(1400, 1000), (390, 844)]
SIZE_IDS = ["1400", "phone390"]


def close_toasts(page, wait_gone: bool = True):
    """Close every toast on the page. A toast may fade out by itself between being listed and being clicked (on a busy
    machine that is likely): such a one is skipped, not waited for."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for close in page.locator(".toast-close").all():
        try:
            close.click(timeout=2_000)
        except PlaywrightTimeout:
            if close.count():  # still there and not clickable: a real fault
                raise
    if wait_gone:
        page.wait_for_function("() => !document.querySelector('.toast-close')", timeout=10_000)


def select_tab(page, name: str):
    """Click a tab by its label; a narrow screen folds the other tabs into Gradio's "More tabs" menu."""
    tab = page.get_by_role("tab", name=name, exact=True)
    if tab.count() and tab.is_visible():
        tab.click()
    else:
        page.get_by_role("button", name="More tabs").click()
        page.locator(".overflow-dropdown button").get_by_text(name, exact=True).click()
    wait_for_tab(page, name)


SELECTED_TAB_JS = """name => [...document.querySelectorAll('[role=tab][aria-selected=true]')]
  .some(tab => tab.textContent.trim() === name)"""


def wait_for_tab(page, name: str):
    """Until the tab `name` is selected (Gradio marks its button, shown or folded into the "More tabs" menu) and the
    page is laid out after it (two animation frames): a condition, where a fixed wait was."""
    page.wait_for_function(SELECTED_TAB_JS, arg=name, timeout=10_000)
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
