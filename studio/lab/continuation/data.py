"""The FigurativeNarrativeBenchmark rows of ../shared/data/figurative, and the held-out validation split.

The split is by expression (idiom / simile), so no validation idiom or simile is ever seen in training.

Three parts (`part`, `split3`), deterministic:
- validation (`is_validation`): sha1("{kind}|{group}") % 5 == 0, group = the lower-cased idiom, or the simile
  narrative; everything else is train;
- the validation part is halved by another hash of the same group: sha1("test|{kind}|{group}") even -> dev (every
  choice: epochs, learning rate, inputs), odd -> test (reported, never used for a choice).
So an idiom is wholly in one of train / dev / test."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ...shared_data import shared_data_dir, shared_file

KINDS = ("idiom", "simile")
VALIDATION_SHARE = 5  # one group in five is held out
_BOLD = re.compile(r"</?b>", re.I)
_MARKED = re.compile(r"<b>(.*?)</b>", re.I | re.S)


def data_dir() -> Path:
    return shared_data_dir() / "figurative"


@dataclass
class Item:
    kind: str
    narrative: str  # markup removed
    expression: str
    knowledge: str  # the idiom's meaning or the simile's property
    option1: str
    option2: str
    label: int  # 0: option1 is plausible, 1: option2
    literal: list[str] = field(default_factory=list)  # the paper's COMET inferences
    context: list[str] = field(default_factory=list)  # the paper's ParaCOMET inferences
    raw: str = ""  # the narrative as stored, with the idiom marked <b>…</b>

    @property
    def gold(self) -> str:
        return self.option2 if self.label else self.option1

    @property
    def group(self) -> str:
        return self.expression.strip().lower() if self.kind == "idiom" else self.narrative


def strip_markup(text: str) -> str:
    return _BOLD.sub("", text)


def is_validation(item: Item) -> bool:
    digest = hashlib.sha1(f"{item.kind}|{item.group}".encode()).hexdigest()
    return int(digest[:8], 16) % VALIDATION_SHARE == 0


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@lru_cache(maxsize=4)
def load_items(kind: str) -> tuple[Item, ...]:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    folder = data_dir()
    rows = _read_jsonl(shared_file("figurative", f"{kind}_train.jsonl"))  # an InputError naming the folder if absent
    extra = {}
    for mode in ("literal", "context"):
        p = folder / f"{kind}_train_inferences_{mode}.jsonl"
        extra[mode] = [r.get("inferences", []) for r in _read_jsonl(p)] if p.is_file() else [[] for _ in rows]
    items = []
    for i, r in enumerate(rows):
        items.append(Item(
            kind=kind, narrative=strip_markup(r["narrative"]).strip(), expression=(r.get(kind) or "").strip(),
            knowledge=(r.get("meaning") if kind == "idiom" else r.get("property")) or "",
            option1=r["option1"].strip(), option2=r["option2"].strip(), label=int(r["correctanswer"] == "option2"),
            literal=list(extra["literal"][i]) if i < len(extra["literal"]) else [],
            context=list(extra["context"][i]) if i < len(extra["context"]) else [], raw=r["narrative"]))
    return tuple(items)


def split(kind: str) -> tuple[list[Item], list[Item]]:
    """(train, validation)."""
    train, val = [], []
    for item in load_items(kind):
        (val if is_validation(item) else train).append(item)
    return train, val


PARTS = ("train", "dev", "test")


def part(item: Item) -> str:
    """"train", "dev" or "test" (see the module docstring)."""
    if not is_validation(item):
        return "train"
    digest = hashlib.sha1(f"test|{item.kind}|{item.group}".encode()).hexdigest()
    return "test" if int(digest[:8], 16) % 2 else "dev"


def split3(kind: str) -> dict[str, list[Item]]:
    """{"train": [...], "dev": [...], "test": [...]} for one kind."""
    out: dict[str, list[Item]] = {p: [] for p in PARTS}
    for item in load_items(kind):
        out[part(item)].append(item)
    return out


def read_items(tag: str, per_kind: int = 10, part: str = "test") -> list[Item]:
    """The narratives of a blind read of Continue on the benchmark's own stories: per kind (idioms first), the first
    item of each expression group of the `part` ("test": never used for a choice; "dev" for a dev read), the
    `per_kind` groups with the smallest sha1("{tag}|{kind}|{group}").
    Why: docs/experiments.md#continuation-benchmark-read"""
    out = []
    for kind in KINDS:
        first: dict[str, Item] = {}
        for item in split3(kind)[part]:
            first.setdefault(item.group, item)
        out += sorted(first.values(), key=lambda it: hashlib.sha1(f"{tag}|{kind}|{it.group}".encode()).hexdigest())[
            :per_kind]
    return out


_MARK_SPACED = re.compile(r"\s*<b>\s*(.*?)\s*</b>", re.I | re.S)


def marked(item: Item) -> str:
    """The narrative as a user of Continue marks its figure: the benchmark's <b>…</b> as " […]" (it marks its idioms,
    not its similes, which Continue finds itself)."""
    return _MARK_SPACED.sub(lambda m: " [" + m.group(1) + "]", item.raw).strip()


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+(?:'[a-z0-9]+)*", text.lower())) + " "


@lru_cache(maxsize=2)
def held_expressions(kind: str) -> tuple[str, ...]:
    """The idioms (as listed, and as marked in the narrative: "seeing the light") or simile vehicles (a leading "like"
    / "as" dropped) of one kind's dev and test parts, as space-padded lower-case words: what a model trained for the
    judge must not have read paraphrased elsewhere."""
    out = set()
    for name in ("dev", "test"):
        for item in split3(kind)[name]:
            if kind == "simile":
                out.add(re.sub(r"^ (like|as) ", " ", _words(item.expression)))
            else:
                out.update(_words(text) for text in [item.expression, *_MARKED.findall(item.raw)])
    out.discard(" ")
    return tuple(sorted(out))


def mentions_held_expression(texts: tuple[str, ...] | list[str], kind: str) -> bool:
    """Whether any of `texts` holds an expression of `kind`'s dev or test part (held_expressions)."""
    words = [_words(t) for t in texts]
    return any(e in w for e in held_expressions(kind) for w in words)
