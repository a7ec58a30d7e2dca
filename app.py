"""Figurative Language Studio — the Hugging Face Space's app_file. `python app.py` runs it locally.

`app.demo` is built on first access (PEP 562), so `import app` stays light: no model loads, and Gradio
itself is imported only when the app is actually built or launched.
"""
import functools

from studio.settings import current


@functools.cache
def _demo():
    from studio.ui import build_demo

    return build_demo()


def __getattr__(name):
    if name == "demo":
        return _demo()
    raise AttributeError(f"module 'app' has no attribute {name!r}")


def _limit_malloc_arenas(arenas: int = 2) -> None:
    """glibc gives each of the server's worker threads its own malloc arena; with many threads the freed memory
    stays fragmented across them and RSS creeps up under load. Two arenas keep it flat (measured: bench/load.py)."""
    if current().malloc_arena_max:  # the operator's own choice, already read by glibc at start
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, arenas)  # -8 is M_ARENA_MAX
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to tune
        pass


def main() -> None:
    from studio.ui.app import launch

    from studio.models.preimport import import_backends_in_background

    _limit_malloc_arenas()
    demo = _demo()
    # after Gradio's own imports are done, so the two import chains never wait on each other
    import_backends_in_background()
    settings = current()
    launch(demo, server_name=settings.gradio_server_name, server_port=settings.gradio_server_port)


if __name__ == "__main__":
    main()
