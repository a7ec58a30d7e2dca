"""What every benchmark prints beside its figures: the CPU it ran on, by the instruction sets that decide which
kernels run (avx2 / avx512 / vnni / bf16 / amx), since the same code is fast on one class and slow on another."""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.models.selfcheck import cpu_flags, cpu_summary  # noqa: E402


def llama_cpp_build() -> str:
    """The instruction sets the installed llama.cpp was built to use (it serves the offline LM), or why none."""
    from studio.models.loaders import llamacpp

    reason = llamacpp.unavailable_reason()
    if reason:
        return f"not used: {reason}"
    return llamacpp.import_llama_cpp().llama_print_system_info().decode(errors="replace").strip()


def with_cpu(result: dict) -> dict:
    return {"cpu": cpu_summary(), "cpu_flags": cpu_flags(), "cores": os.cpu_count(), "llama_cpp": llama_cpp_build(),
            **result}
