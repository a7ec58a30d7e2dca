"""Every accelerated path (int8, int4, bfloat16) proves itself on the machine where it runs.

The same int8 file gives different numbers on different CPUs: ONNX Runtime multiplies uint8 activations by int8
weights with VNNI where the CPU has it, and elsewhere (AVX2 without VNNI) with an instruction whose 16-bit pair sums
saturate, which turned all-mpnet-base-v2's embeddings into noise (cosine 0.02 to float32). So a role served in an
accelerated form is compared, when it is loaded, with its float32 reference on a fixed probe set, and served in that
form only when it agrees within a stated tolerance; otherwise the loader tries the next form and finally float32.

The verdict is kept beside the export, keyed by what the CPU supports and the runtime's version, so a cache copied
from another machine (or used by a new runtime) is checked again before it serves."""
from __future__ import annotations

import hashlib

import json
import platform
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..atomic import atomic_write_bytes
from ..settings import current

#: texts the embedders are checked on: varied in length and register, none from the calibration text
PROBE_TEXTS = (
    "The kettle whistled.",
    "Her laugh rang out like a bell across the crowded square.",
    "After three weeks of rain, the river broke its banks and the village woke to water in every kitchen.",
    "He promised to call back, but the phone stayed silent all evening.",
    "Don't count your chickens before they hatch.",
    "Quarterly revenue rose 4% while operating costs fell, the report said.",
    "The children ran down to the beach, shouting, their kites pulling at the strings.",
    "She saved a little every month, and by the time the roof leaked she had enough to fix it without borrowing.",
    "Silence.",
    "Tom boasted that he would win the race easily, stopped to chat with friends halfway, and watched his slower "
    "rival cross the line first while the crowd cheered for the one who never gave up.",
    "The old dog slept by the fire as if nothing in the world could ever wake him.",
    "Why does the bus always come just after I give up and start walking?",
)
#: texts the language model is checked on (next-token distributions at every position)
LM_PROBE_TEXTS = (
    "The two brothers had not spoken in years, but at the funeral",
    "Once upon a time there was a",
    "Her face went as white as a sheet when she saw the letter on the table, because she knew at once who had "
    "written it and what it would say about the money.",
    # more prompt-length probes (over 16 tokens: the prompt path), so that a prompt form is judged on ~150
    # positions rather than one text's ~45
    "Story: After the storm the fishermen pulled their boats higher up the beach and counted the nets, while the "
    "children collected the shells the waves had thrown onto the road.\nNext sentence:",
    "My neighbour has kept bees for thirty years. Every summer she leaves a jar of honey at each door on the "
    "street, and nobody has ever seen her take anything in return.",
)
#: part of every LM verdict's key: other probe texts, another verdict
LM_PROBE_DIGEST = hashlib.sha1("\n".join(LM_PROBE_TEXTS).encode()).hexdigest()[:8]
#: an int8 embedder's cosine to float32 over the probe texts: at least this on average, and no probe below
#: EMBEDDING_FLOOR (all-mpnet-base-v2 measured: mean 0.983, lowest 0.959 when the arithmetic is exact; mean 0.08,
#: lowest 0.02 when the 16-bit sums saturate)
EMBEDDING_MIN_COSINE = 0.97
EMBEDDING_FLOOR = 0.9
#: a bfloat16 embedder (no quantization, only rounding) must stay closer
BF16_MIN_COSINE = 0.99
#: the language model: the float32 top token must stay the top token at this share of the probe positions, and
#: its log-probability move by at most this much on average (measured for the 4-bit kernel: 99.3 % and 0.016)
LM_MIN_TOP1_AGREEMENT = 0.9
LM_MAX_MEAN_LOGPROB_SHIFT = 0.15
#: a K-quant GGUF served with its own weights (the writer): llama.cpp rounds each activation to 8 bits before the
#: 4- and 6-bit products, which the float32 reference of the same dequantized weights does not; measured for
#: Qwen2.5-Coder-1.5B Q4_K_M here: 92.1 % and 0.201. A wrong kernel or a damaged file gives agreement near 0.
LM_QUANTIZED_MAX_MEAN_LOGPROB_SHIFT = 0.3

#: the instruction sets that decide which kernels the runtimes pick
FLAG_NAMES = ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_tile",
              "amx_int8", "amx_bf16")


def read_cpu_flags(path: str = "/proc/cpuinfo", names=FLAG_NAMES) -> dict[str, bool]:
    """Which of `names` the CPU reports in `path` (Linux); all False where there is no such file."""
    found: set[str] = set()
    try:
        for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("flags"):
                found = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    return {name: name in found for name in names}


@lru_cache(maxsize=1)
def cpu_flags() -> dict[str, bool]:
    """This CPU's FLAG_NAMES, read once."""
    return read_cpu_flags()


def cpu_summary() -> str:
    """One line for a report: the machine and the relevant instruction sets it has."""
    flags = [name for name, present in cpu_flags().items() if present]
    return f"{platform.machine() or 'unknown'} {'+'.join(flags) or 'no vector extensions reported'}"


def cpu_key(runtime: str) -> str:
    """What a verdict is filed under: the CPU's relevant instruction sets and the runtime that computes."""
    return f"{cpu_summary()} | {runtime}"


@dataclass
class Verdict:
    form: str  # the accelerated form checked, e.g. "int8 (7-bit weights)"
    passed: bool
    measure: str  # what was compared, in words
    value: float
    tolerance: str  # e.g. ">= 0.97"
    cpu: str
    seconds: float = 0.0
    checked: str = ""  # ISO time of the check
    cached: bool = False  # read from the cache rather than measured in this process

    def summary(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        where = "cached verdict" if self.cached else f"checked in {self.seconds:.1f} s"
        return f"{self.form}: self-check {verdict} ({self.measure} {self.value:.3f}, needs {self.tolerance}; {where})"

    def to_json(self) -> dict:
        return asdict(self)


def cosines(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    got = got / (np.linalg.norm(got, axis=1, keepdims=True) + 1e-12)
    want = want / (np.linalg.norm(want, axis=1, keepdims=True) + 1e-12)
    return (got * want).sum(1)


def check_embedder(form: str, encode, reference: np.ndarray, key: str, mean: float = EMBEDDING_MIN_COSINE,
                   floor: float = EMBEDDING_FLOOR, texts=PROBE_TEXTS) -> Verdict:
    """Encode the probe texts with `encode` and compare them with the float32 `reference` vectors."""
    started = time.perf_counter()
    try:
        got = np.asarray(encode(list(texts)), dtype=np.float32)
        values = cosines(got, reference) if got.shape == reference.shape else np.array([-1.0])
    except Exception:  # noqa: BLE001 - a form that cannot even run fails its check
        values = np.array([-1.0])
    values = np.where(np.isfinite(values), values, -1.0)
    passed = bool(values.mean() >= mean and values.min() >= floor)
    return Verdict(form, passed, f"cosine to float32 over {len(texts)} probe texts (lowest {values.min():.3f}), mean",
                   round(float(values.mean()), 4), f"mean >= {mean} and lowest >= {floor}", key,
                   round(time.perf_counter() - started, 2), now())


def lm_agreement(reference_logits: list, served_logits: list) -> tuple[float, float]:
    """(share of positions whose float32 top token stays on top, mean |shift| of that token's log-probability)."""
    agree, shifts = [], []
    for want, got in zip(reference_logits, served_logits):
        want, got = _log_softmax(np.asarray(want, np.float64)), _log_softmax(np.asarray(got, np.float64))
        top = want.argmax(-1)
        agree.append(got.argmax(-1) == top)
        shifts.append(np.abs(np.take_along_axis(got, top[:, None], -1) - np.take_along_axis(want, top[:, None], -1)))
    agree_all, shift_all = np.concatenate(agree), np.concatenate(shifts)
    if not np.isfinite(shift_all).all():
        return 0.0, float("inf")
    return float(agree_all.mean()), float(shift_all.mean())


def lm_verdict(form: str, reference_logits: list, served_logits: list, key: str, seconds: float,
               max_shift: float = LM_MAX_MEAN_LOGPROB_SHIFT) -> Verdict:
    top1, shift = lm_agreement(reference_logits, served_logits)
    passed = top1 >= LM_MIN_TOP1_AGREEMENT and shift <= max_shift
    return Verdict(form, passed, f"top-token agreement with float32 {top1:.3f}, mean log-prob shift",
                   round(shift, 4) if np.isfinite(shift) else 99.0,
                   f"agreement >= {LM_MIN_TOP1_AGREEMENT} and shift <= {max_shift}", key,
                   round(seconds, 2), now())


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


VERDICTS_FILE = "verdicts.json"


def file_stamp(path: Path) -> str:
    """Part of a verdict's key: a file replaced or edited after its check (even within the same second) is checked
    again."""
    stat = Path(path).stat()
    return f"{stat.st_size}|{stat.st_mtime_ns}"


def cached_verdict(folder: Path, name: str, key: str) -> Verdict | None:
    """The verdict stored for form `name` under the same key (CPU, runtime, file), or None: then it is checked."""
    if not current().selfcheck_cache:
        return None
    entry = _read(folder).get(f"{name} | {key}")
    if not entry:
        return None
    try:
        return Verdict(**{**entry, "cached": True})
    except TypeError:  # written by another version
        return None


def store_verdict(folder: Path, verdict: Verdict, name: str) -> None:
    verdicts = _read(folder)
    verdicts[f"{name} | {verdict.cpu}"] = {**verdict.to_json(), "cached": False}
    try:
        atomic_write_bytes(folder / VERDICTS_FILE, json.dumps(verdicts, indent=1).encode())
    except OSError:  # a read-only cache still serves; the check is then repeated at the next load
        pass


def _read(folder: Path) -> dict:
    try:
        data = json.loads((folder / VERDICTS_FILE).read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}
