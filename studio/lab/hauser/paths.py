"""The HAUSER files of the shared research data (found by studio.shared_data, never copied into the repository)."""
from __future__ import annotations

from pathlib import Path

from ...shared_data import shared_data_dir, shared_file


def data_dir() -> Path:
    return shared_data_dir()


def data_file(*parts: str) -> Path:
    return shared_file(*parts)
