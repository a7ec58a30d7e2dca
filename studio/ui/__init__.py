"""The Gradio app: one module per tab, composed in `build_demo`."""
from .app import build_demo

__all__ = ["build_demo"]
