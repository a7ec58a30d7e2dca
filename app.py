"""Figurative Language Studio — the Hugging Face Space's app_file. `python app.py` runs it locally.

`app.demo` is built on first access (PEP 562), so `import app` stays light: no model loads, and Gradio
itself is imported only when the app is actually built or launched.
"""
import functools
import os


@functools.cache
def _demo():
    from studio.ui import build_demo

    return build_demo()


def __getattr__(name):
    if name == "demo":
        return _demo()
    raise AttributeError(f"module 'app' has no attribute {name!r}")


def main() -> None:
    from studio.ui.app import launch_kwargs

    _demo().launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                   server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")), **launch_kwargs())


if __name__ == "__main__":
    main()
