"""What every tab shares: turning the studio's errors into clear messages, and safe text rendering."""
from __future__ import annotations

import asyncio
import collections
import copy
import contextvars
import functools
import html
import json
import logging
import re
import threading

import gradio as gr

from ..errors import Stopped, StudioError, check_length, clean_length
from ..models import ModelUnavailable, get_registry
from ..textspans import next_word_start, shorten, snap_span  # noqa: F401 (shorten: for the tabs)

log = logging.getLogger("studio.ui")


#: seconds a refusal's toast stays (gradio's default is 10): the tab's status line keeps the message, and quick
#: refusals stacked their toasts over a phone's table ("Error (2)")
REFUSAL_TOAST_SECONDS = 5


def guarded(fn):
    """Run an event handler so that bad input and unavailable models become a gr.Error with a clear message,
    and anything unexpected becomes a short apology instead of a traceback. The server log gets one line for a
    refused input or an unavailable model (Gradio's own traceback of the gr.Error is turned off) and the full
    traceback only for the unexpected."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error as exc:
            _log_refusal(fn, exc.message)
            exc.print_exception = False
            _remember_failure(args, kwargs, exc.message)
            exc.message = toast_text(exc.message)
            raise
        except StudioError as exc:
            _log_refusal(fn, str(exc))
            _remember_failure(args, kwargs, str(exc), stopped=isinstance(exc, Stopped))
            raise gr.Error(toast_text(str(exc)), title="Please check the input", print_exception=False,
                           duration=REFUSAL_TOAST_SECONDS) from None
        except ModelUnavailable as exc:
            _log_refusal(fn, exc.message)
            _remember_failure(args, kwargs, exc.message)
            raise gr.Error(toast_text(exc.message), title=f"{exc.role} model unavailable",
                           print_exception=False) from None
        except Exception as exc:  # the server keeps running; the log keeps the traceback
            log.exception("unexpected error in %s", fn.__name__)
            message = f"Something went wrong ({type(exc).__name__}). The error was logged; please try other input."
            _remember_failure(args, kwargs, message)
            raise gr.Error(message, title="Unexpected error", print_exception=False) from None

    return wrapper


def _log_refusal(fn, message) -> None:
    """One log line for an ordinary refusal (the message on one line, cut at 300 characters), never a traceback."""
    text = " ".join(str(message).split())
    log.warning("%s refused: %s", fn.__name__, text if len(text) <= 300 else text[:299] + "…")


# ---- a long run's status line: what runs, that it was stopped, or why it gave nothing

#: the status line while a run is under way is "*Polishing…*" (no emoji: headless Chromium's fonts lack ⏳ and ⏹)
RUNNING = "*{}*"
#: how a status line that reports no result begins (a refusal, an error)
REFUSAL_MARK = "⚠️ No result:"
#: each browser session's last error message and whether it was a Stop, for its status line (`failed_run`);
#: bounded, read once
_FAILURES: collections.OrderedDict[str, tuple[str, bool]] = collections.OrderedDict()
_FAILURES_KEPT = 256
_failures_lock = threading.Lock()


def _session(request) -> str | None:
    return getattr(request, "session_hash", None) or None


def _remember_failure(args, kwargs, message: str, stopped: bool = False) -> None:
    """Keep the message of a handler that failed for its session (found among the handler's gr.Request arguments)."""
    session = next((_session(a) for a in (*args, *kwargs.values()) if isinstance(a, gr.Request)), None)
    if session:
        with _failures_lock:
            _FAILURES[session] = (str(message), stopped)
            _FAILURES.move_to_end(session)
            while len(_FAILURES) > _FAILURES_KEPT:
                _FAILURES.popitem(last=False)


def fresh(values) -> tuple:
    """`values` to return once more: each `gr.update(...)` among them copied, since Gradio consumes the dict it is
    given (the same update returned a second time changed nothing: a refused story left the last story's proverb in
    its box)."""
    return tuple(copy.deepcopy(v) if isinstance(v, dict) else v for v in values)


def start_run(busy: str, *cleared):
    """The first step of a long run (chain the handler after it): the outputs the run replaces get `cleared` (so a
    refusal, an error or a Stop leaves no earlier input's result on screen) and the status line, the last output,
    says what runs."""

    def start(request: gr.Request = None):
        with _failures_lock:
            _FAILURES.pop(_session(request) or "", None)
        return (*fresh(cleared), RUNNING.format(busy))

    return start


def failed_run(*cleared):
    """A run's `.failure` step: `cleared` again (which also lifts the error's mark from those outputs) and the status
    line, the last output, says why: the handler's message, escaped (it may quote the input), on one line."""

    def failed(request: gr.Request = None):
        with _failures_lock:
            message, stopped = _FAILURES.pop(_session(request) or "", ("", False))
        text = escape_markdown(" ".join(message.split()))
        line = f"⚠️ {text}" if stopped else f"{REFUSAL_MARK} {text}" if text else \
            f"{REFUSAL_MARK} the run ended with an error."
        return (*fresh(cleared), line)

    return failed


#: KEEP_VALUE: a handler that leaves an output as it is, on a path a visitor takes, returns the output's current
#: value (taken as an input), never a bare `gr.update()`: Gradio rebuilds a component from its constructor on any
#: update, so the server's copy of the page, which a shared link (`share_button`) restores, would lose the value (a
#: Proverbs link shared after Find similar opened without its status line).
def stopped_line(what: str):
    """Stop's own handler: a status line still saying the run is under way becomes a note that it was stopped."""

    def stopped(status: str | None):
        line = str(status or "").strip()
        if not (line.startswith("*") and line.endswith("…*")):
            return status  # nothing was running: the line (a result's) stays, given back as it is (KEEP_VALUE)
        return f"⚠️ Stopped before it finished: {what}"

    return stopped


_cancel_flag: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("studio_cancel", default=None)


def cancelled() -> bool:
    """True once the event running this handler was cancelled (a Stop button, or gradio_client's job.cancel())."""
    flag = _cancel_flag.get()
    return flag is not None and flag.is_set()


def cancellable(fn):
    """Run a long (sync) handler on a worker thread that can be told to stop.

    Gradio cancels an event by cancelling its asyncio task, but a sync handler's thread runs on to the end, and
    the event's concurrency slot is released at once — so the next render started beside the abandoned one. Here
    the cancellation sets a flag the handler polls through `cancelled()`, and the task waits for the thread to
    stop before it gives the slot back."""

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
        flag = threading.Event()
        token = _cancel_flag.set(flag)
        try:  # the worker's context is copied here, flag included
            work = asyncio.ensure_future(asyncio.to_thread(fn, *args, **kwargs))
        finally:
            _cancel_flag.reset(token)
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            flag.set()
            await asyncio.gather(work, return_exceptions=True)
            raise

    return wrapper


def toast_text(message: str) -> str:
    """A message for a toast (gr.Error, gr.Warning, gr.Info), which gradio renders as HTML: escaped, since refusals
    quote what the visitor typed ("the literal sentence “Der <b>Hund</b>…” reads as German")."""
    return escape(message)


def warn(message: str) -> None:
    """A warning toast; the message is shown as text (`toast_text`)."""
    gr.Warning(toast_text(message))


def inform(message: str) -> None:
    """An information toast; the message is shown as text (`toast_text`)."""
    gr.Info(toast_text(message))


def escape(text: str) -> str:
    """User text on its way into Markdown/HTML is always escaped."""
    return html.escape(str(text), quote=True)


def escape_markdown(text: str) -> str:
    """Text shown as itself inside Markdown: HTML-escaped, and Markdown's own marks (links, emphasis, code, headings,
    tables) backslash-escaped, so a typed "[x](y)" or "*x*" stays plain text. Quotes stay as they are: outside a
    tag they are text, and an entity ("&#x27;") would have its "#" escaped and show as "&#x27;" ("a lion's roar").
    ":" and "@" become entities last (their "#" unescaped): the renderer links a bare "http://…", "x@y.z" by itself,
    and would have made a typed address a live link."""
    escaped = re.sub(r"([\\`*_{}\[\]()#+\-.!|~>])", r"\\\1", html.escape(str(text), quote=False))
    return escaped.replace(":", "&#58;").replace("@", "&#64;")


def unescape_markdown(text: str) -> str:
    """The text `escape_markdown` was given, from its output with bold marks around a part ("…**like a lion**…"):
    the page's table cells, read back where nothing else holds the text (a table restored from a shared link)."""
    return html.unescape(re.sub(r"\\(.)", r"\1", str(text).replace("**", "")))


def examples(samples: list, inputs: list, label: str, run: gr.Button | None = None) -> gr.Dataset:
    """Clickable examples that fill `inputs` with a sample's values, then press `run` (the tab's own button, with an
    `elem_id`), so that a click shows a result the way the button would: the same checks, progress, Stop and queue.
    Not gr.Examples: its click sends each value as a property update, and gradio then keeps a new copy of the box in
    the session (another id) that the texts typed afterwards update, while a shared link ("Copy a link to this
    result") restores the box from the old one: the example's text beside results computed for another. Plain values
    keep the box itself up to date."""
    if run is not None and not run.elem_id:
        raise ValueError("an example's run button needs an elem_id")
    dataset = gr.Dataset(components=inputs, samples=[list(s) if isinstance(s, (list, tuple)) else [s] for s in samples],
                         label=label, samples_per_page=10, elem_classes=["studio-examples"])

    def fill(sample):
        values = list(sample)
        return values[0] if len(inputs) == 1 else tuple(values)

    filled = dataset.click(fill, inputs=dataset, outputs=inputs, api_name=False, queue=False, show_progress="hidden")
    if run is not None:  # the boxes hold the example when this runs in the page
        filled.then(None, js=f"() => {{ document.getElementById({json.dumps(run.elem_id)})?.click(); }}",
                    api_name=False, queue=False, show_progress="hidden")
    return dataset


def role_notice(*roles: str) -> str:
    """Markdown warning for roles a tab needs that cannot serve in this profile ('' when all can)."""
    registry, lines = get_registry(), []
    for row in registry.status():
        if row["role"] in roles and not row["available"]:
            lines.append(f"⚠️ **{row['role']}** is {row['state']} in the *{registry.profile}* profile: "
                         f"{escape(row['reason'])}. {escape(row['fix'])}")
    return "\n\n".join(lines)


def highlight_pieces(text: str, spans) -> list[tuple[str, str | None]]:
    """A gr.HighlightedText value: `text` cut at labelled (start, end, label) spans. Spans are clamped to the text and
    snapped to whole words (`snap_span`: a span cut inside a word, "with h / er face", covers the word), and an
    overlapping span keeps only its words after the
    earlier one (dropped if none are left), so the pieces always re-join to `text`."""
    pieces, cursor = [], 0
    snapped = [(*snap_span(text, int(s[0]), int(s[1])), s[2]) for s in spans]
    for start, end, label in sorted(snapped, key=lambda s: (s[0], s[1])):  # labels may be None: not sortable
        if start < cursor:  # overlaps the previous span (often the word both were cut from): keep what follows it
            start = next_word_start(text, cursor, end)
        if end <= start:
            continue
        if start > cursor:
            pieces.append((text[cursor:start], None))
        pieces.append((text[start:end], label))
        cursor = end
    if cursor < len(text):
        pieces.append((text[cursor:], None))
    return pieces


# ---- text boxes with a limit: no silent cut (no max_length), a live count, a refusal naming the limit

#: the browser's count, the same as `char_count` (code points; zero-width characters and outer space excluded)
_COUNT_JS = """(text) => {
  const n = [...String(text ?? "").replace(/[\\u200b\\ufeff]/g, "").trim()].length;
  const f = (x) => x.toLocaleString("en-US");
  return n > LIMIT ? `**⚠️ ${f(n)} / ${f(LIMIT)} characters — over the limit: shorten it to submit**`
                   : `${f(n)} / ${f(LIMIT)} characters`;
}"""


def char_count(text: str | None, limit: int) -> str:
    """'412 / 400 characters — over the limit…' under a limited box (numbers only, never the user's text)."""
    n = clean_length(text)
    if n > limit:
        return f"**⚠️ {n:,} / {limit:,} characters — over the limit: shorten it to submit**"
    return f"{n:,} / {limit:,} characters"


def limited_textbox(limit: int, *, scale: int | None = None, **kwargs) -> gr.Textbox:
    """A Textbox that never cuts a paste (no max_length) with a live character count under it, updated in the
    browser. `after_limit_check` refuses an over-limit text before a run; the front door refuses it again (the API)."""
    with gr.Column(scale=scale or 1, min_width=kwargs.get("min_width", 160)):
        box = gr.Textbox(**kwargs)
        count = gr.Markdown(char_count(kwargs.get("value") if isinstance(kwargs.get("value"), str) else "", limit),
                            elem_classes=["studio-note", "studio-count"])
    # triggers None: on every change and when the page loads, so a page restored from a shared link counts its text
    gr.on(None, None, inputs=box, outputs=count, js=_COUNT_JS.replace("LIMIT", str(int(limit))), api_name=False,
          queue=False, show_progress="hidden")
    return box


def refuse_over_limit(*checks: tuple[str | None, str, int]) -> None:
    """(text, what, limit) triples: an InputError naming the limit for the first text over it, before any work."""
    for text, what, limit in checks:
        if isinstance(text, str):
            check_length(text, what, limit)


def after_limit_check(trigger, *checks: tuple[gr.Textbox, str, int], clears: tuple[list, tuple] | None = None):
    """`trigger` (e.g. `button.click`) first runs a quick check of (box, what, limit) triples with no outputs; chain
    the real handler with `.success(...)`. An over-limit text then ends in one message naming the limit and no
    result (no "Error" on every output), before anything runs. The handler itself refuses it too (the API path).
    `clears`: (outputs, values), the run's own results and its status line last: a refusal clears them as the run
    would and the status line says why, so no earlier input's result or status stays beside the refusal."""
    whats = [(what, limit) for _, what, limit in checks]

    def check_limits(*texts):
        refuse_over_limit(*[(text, what, limit) for text, (what, limit) in zip(texts, whats)])

    boxes = [box for box, _, _ in checks]
    check = trigger(guarded(check_limits), inputs=boxes, outputs=None, api_name=False, show_progress="hidden",
                    concurrency_limit=None)
    if clears is not None:
        outputs, values = clears

        def refused(*texts):  # the check's message again, from the same texts, for the status line
            try:
                check_limits(*texts)
                message = "the input was refused."
            except StudioError as exc:
                message = str(exc)
            return (*fresh(values), f"{REFUSAL_MARK} {escape_markdown(' '.join(message.split()))}")

        check.failure(refused, inputs=boxes, outputs=list(outputs), api_name=False, queue=False)
    return check


def section_run(after, fn, inputs: list, outputs: list, status, *, busy: str, api_name,
                checks: tuple[tuple[gr.Textbox, str, int], ...] = (), scroll_to_output: bool = False,
                note=None, note_inputs: list | None = None):
    """A section's own button or click (Polish's components, Proverbs' Align and Find similar, Continue's Judge),
    chained to `after` (a listener such as `button.click` or `dependency.then`): the section's earlier result goes
    first, `status` (the section's own line, under its button) says it runs, then nothing when `fn` answered, or why
    there is no result, with the outputs left empty (no bare "Error" on them, no earlier input's result beside the
    reason). `checks`: (box, what, limit) triples refused before anything runs (`after_limit_check`). `fn` takes a
    `gr.Request` so that its message reaches the line (`guarded`). `scroll_to_output`: the page scrolls to the
    result (a click far from the section). `note(*note_inputs)`: what the line says once `fn` answered ("" by
    default). Returns the handler's dependency."""
    empty = (None,) * len(outputs)
    if checks:
        after = after_limit_check(after, *checks, clears=([*outputs, status], empty)).success
    start = after(start_run(busy, *empty), outputs=[*outputs, status], api_name=False, queue=False,
                  show_progress="hidden")
    run = start.success(fn, inputs=inputs, outputs=outputs, api_name=api_name, scroll_to_output=scroll_to_output)
    run.success(note or (lambda: ""), inputs=note_inputs, outputs=status, api_name=False, queue=False,
                show_progress="hidden")
    run.failure(failed_run(*empty), outputs=[*outputs, status], api_name=False, queue=False)
    return run


def past_refusal(status: str | None):
    """A status line without a refusal's message (an empty line), or left as it is: chained to a section's run that
    answered (Proverbs' Align after the ranking refused an over-long narrative), whose own line is elsewhere."""
    return "" if (status or "").startswith(REFUSAL_MARK) else status  # KEEP_VALUE


def spaced(text) -> str:
    """A text as it reads: runs of spaces and line breaks as one space, none at the ends (what a tab compares when
    it asks whether a box still holds the text its result was made for)."""
    return " ".join(str(text or "").split())


def table_rows(table) -> list[list]:
    """A Dataframe's rows as the page hands them back: a pandas frame, Gradio's {"headers", "data"}, or None (no
    table yet); [] when there is none."""
    if table is None:
        return []
    if isinstance(table, dict):
        return list(table.get("data") or [])
    return table.values.tolist()
