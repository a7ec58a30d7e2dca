"""Where the project's own files are: the checkout's root and its committed assets (the lowest layer: it imports
nothing of the studio)."""
from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
ASSETS = PROJECT_ROOT / "assets"
