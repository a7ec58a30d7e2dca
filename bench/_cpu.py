"""What every benchmark prints beside its figures: the CPU it ran on, by the instruction sets that decide which
kernels run (avx2 / avx512 / vnni / bf16 / amx), since the same code is fast on one class and slow on another."""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.models.selfcheck import cpu_flags, cpu_summary  # noqa: E402


def with_cpu(result: dict) -> dict:
    return {"cpu": cpu_summary(), "cpu_flags": cpu_flags(), "cores": os.cpu_count(), **result}
