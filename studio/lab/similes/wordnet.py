"""Where the asset builds find WordNet (Debian `wordnet-base`; `bash scripts/setup.sh --build` installs it), and the
licence every asset derived from it carries."""
from __future__ import annotations

from pathlib import Path

from ...errors import InputError

WORDNET = Path("/usr/share/wordnet")
#: what an asset says when Debian's copyright file is not there to copy
LICENCE_NOTE = "WordNet 3.0, Copyright 2006 by Princeton University; see Debian's wordnet-base copyright file"


def wordnet_file(path: Path) -> Path:
    """`path`, or an InputError saying how to install WordNet."""
    if not path.is_file():
        raise InputError(f"{path} is missing: install Debian's wordnet-base (`bash scripts/setup.sh --build`)")
    return path


def licence(folder: Path = WORDNET) -> str:
    """WordNet's licence, as Debian ships it beside the data in `folder` (/usr/share/wordnet → /usr/share/doc)."""
    path = folder.parent / "doc" / "wordnet-base" / "copyright"
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else LICENCE_NOTE
