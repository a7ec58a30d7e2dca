"""Same answers on every CPU: the int8 embeddings the offline profile serves, computed on this CPU and compared with
the same texts' embeddings computed on another.

    .venv/bin/python bench/int8_parity.py --save here.npz [--n 200]     # this CPU's vectors, and its verdicts
    .venv/bin/python bench/int8_parity.py --against here.npz            # on the other CPU: prints the differences

Texts: the first N validation narratives of ePiC (never trained on) and the proverb catalog, through the retrieval
embedder and the proverbs' fine-tuned encoder, as a request would embed them. An AVX2-only CPU can be had on any
x86 machine with QEMU's user-mode emulator (`STUDIO_SELFCHECK_CACHE=0 qemu-x86_64 -cpu Haswell-v4
.venv/bin/python bench/int8_parity.py --n 12 --proverbs 40 --against …`, Debian's qemu-user): its TCG implements
the AVX2 instructions exactly, saturation included, but some hundred times slower, so keep the sample small
(/proc/cpuinfo still names the host's CPU there; the verdict cache must be off)."""
from __future__ import annotations

import argparse
import json
import os
import time

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)

import numpy as np  # noqa: E402

os.environ.setdefault("STUDIO_PROFILE", "offline")


def vectors(n: int, proverbs: int | None) -> dict[str, np.ndarray]:
    from studio.models import get_registry
    from studio.lab.proverbs.epic import load_seen_train, split
    from studio.proverbs.index import get_index
    from studio.proverbs.service import finetuned_part

    texts = [r.text for r in split(load_seen_train())[1][:n]]
    index = get_index()
    texts += [p.text for p in index.catalog.proverbs][:proverbs]
    base = get_registry().get("retrieval_embedder")
    out = {"retrieval_embedder": base.encode(texts)}
    part = finetuned_part(index)
    if part is not None:
        out["finetuned_encoder"] = part.embedder.encode(texts)
    return out


def main() -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200, help="validation narratives")
    p.add_argument("--proverbs", type=int, help="the first K proverbs of the catalog (default: all)")
    p.add_argument("--save", help="write this CPU's vectors here (.npz)")
    p.add_argument("--against", help="compare with vectors saved on another CPU")
    args = p.parse_args()
    started = time.perf_counter()
    mine = vectors(args.n, args.proverbs)
    result = {"texts": {k: int(v.shape[0]) for k, v in mine.items()}, "seconds": round(time.perf_counter() - started, 1)}
    if args.save:
        np.savez(args.save, **mine)
        result["saved"] = args.save
    if args.against:
        theirs = np.load(args.against)
        for name, here in mine.items():
            there = theirs[name]
            cos = (here * there).sum(1)
            result[name] = {"max_abs_difference": float(np.abs(here - there).max()),
                            "lowest_cosine": round(float(cos.min()), 6), "mean_cosine": round(float(cos.mean()), 6)}
    return result


if __name__ == "__main__":
    print(json.dumps(with_cpu(main()), indent=2))
