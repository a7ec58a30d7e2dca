"""Where the shared research data lives: `../shared/data` beside the project, or the folder STUDIO_SHARED_DATA names.
It is read, never copied into the project (what the project commits is derived from it by its build commands).
The one resolver: every capability, evaluation and test finds the data through it."""
from __future__ import annotations

from pathlib import Path

from .errors import InputError
from .paths import PROJECT_ROOT
from .settings import current

ENV = "STUDIO_SHARED_DATA"


def shared_data_dir(must_exist: bool = False) -> Path:
    """The data folder; with `must_exist`, an InputError naming the folder and the variable when it is absent."""
    root = current().shared_data or PROJECT_ROOT.parent / "shared" / "data"
    if must_exist and not root.is_dir():
        raise InputError(f"the shared research data is not at {root}; set {ENV} to its folder")
    return root


def shared_file(*parts: str) -> Path:
    """A file of the data, or an InputError saying where it was expected."""
    path = shared_data_dir().joinpath(*parts)
    if not path.is_file():
        raise InputError(f"{path} is missing: the shared research data is expected under {shared_data_dir()} "
                         f"(set {ENV} to point elsewhere)")
    return path
