"""Figurative Language Studio — the Hugging Face Space's app_file. `python app.py` runs it locally."""
import os

from studio.ui import build_demo
from studio.ui.app import launch_kwargs

demo = build_demo()

if __name__ == "__main__":
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")), **launch_kwargs())
