"""The offline language model on llama.cpp (llama-cpp-python, built for plain AVX2 by `scripts/setup.sh`).

llama.cpp is the library made for running a small GGUF model on a CPU: a decoding step is one compiled graph
instead of some 600 torch calls, which was most of the time of a 20-token continuation. Built with
GGML_NATIVE=OFF and AVX2 / FMA / F16C, the same code computes on every x86 CPU that has AVX2, AVX-512 or not, so
the answers no longer depend on which kernels a runtime picks on the machine.

The shipped Q4_1 file is served as float16 (`served_gguf`: every Q4_1 weight, a 16-level value times a float16
scale plus a float16 minimum, rounded to float16 once); llama.cpp's prompt products on Q4_1 ran at half the speed
of float16 on this build. A LoRA variant (studio/models/lm_delta.py) is served as the same file plus a llama.cpp
adapter written from the delta (`write_adapter`). Token ids come from the model's transformers tokenizer, so they
are those of the float32 reference.

Like every accelerated form it proves itself where it runs (`check`): its next-token distributions on the probe
texts against the float32 model's, with the LM tolerance of studio/models/selfcheck.py; the verdict is kept
under the CPU, llama.cpp's version and the served files. A failed check, a missing library or a build that uses
instructions this CPU lacks leaves the torch forms (studio/models/loaders/fourbit.py) to serve."""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import re
import threading
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from ...atomic import atomic_path, atomic_write
from ...errors import InputError
from ...settings import child_environ, current, export
from ..roles import Generation, LanguageModel, cut_sentence_outside_quotes, scored_tails, split_chat_prompt
from .common import LoadError, quiet_transformers

#: llama_print_system_info's names → /proc/cpuinfo flags: a build that uses one the CPU lacks is not loaded
FEATURE_FLAGS = {"SSE3": "pni", "SSSE3": "ssse3", "AVX": "avx", "AVX2": "avx2", "F16C": "f16c", "FMA": "fma",
                 "BMI2": "bmi2", "AVX512": "avx512f", "AVX512_VBMI": "avx512vbmi", "AVX512_VNNI": "avx512_vnni",
                 "AVX512_BF16": "avx512_bf16", "AVX_VNNI": "avx_vnni", "AMX_INT8": "amx_int8"}
#: the instructions the portable build needs; checked before the library is even imported
BASELINE = ("avx2", "fma", "f16c")
FORM = "llama.cpp, float16 weights converted once from the packaged GGUF (portable AVX2 build)"
SERVED_FILE = "llamacpp.f16.gguf"
#: KV cells shared by all sequences of one call (float16 K and V: ~23 KB a token for SmolLM2-135M)
N_CTX = 4096
MAX_CTX = 32768  # a larger request (e.g. 25 prompts × a 4,000-character story × 10 samples) is refused
N_SEQ = 256  # llama.cpp's most sequences in one context
#: the last sequence ids hold cached prompt prefixes (a chat's fixed system message): `reply` evaluates one once and
#: copies its cells into each call's sequences, so a request pays only for its own text
PREFIX_SEQS = 4
N_BATCH = 1024
#: the HF names of a Llama block's linears → GGUF tensor names
GGUF_NAMES = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
              "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
              "mlp.down_proj": "ffn_down"}

_init_lock = threading.Lock()
_initialised = False
#: the loaded weights of each file, shared by every LlamaCppLM over it (the writer and its polisher; the lm and its
#: variants): resolved path, size and time -> [llama_model, holders, lock]. An adapter and the KV cells are per
#: context; llama.cpp repacks a Q4_K file's weights at load, so a second load of the writer's file cost 1.1 GB. The
#: lock (reentrant: a holder's `__del__` may run on a thread inside another's call) is held around every call into
#: llama.cpp that reads or changes the model: decoding, contexts and adapters made and freed (adapters join a set on
#: the model); it is never held while Python code of a caller runs.
#: why: docs/experiments.md#llamacpp-shared-weights
_models: dict[str, list] = {}
_models_lock = threading.RLock()
_log_callback = None  # kept alive: llama.cpp holds the pointer


def unavailable_reason() -> str | None:
    """Why the llama.cpp form cannot be tried here, or None. The build's instruction sets are read in a child
    process first (`build_info`), so that a build made for another CPU stops the child, not the studio."""
    import importlib.util

    from ..selfcheck import read_cpu_flags

    if not current().llamacpp:
        return "switched off (STUDIO_LLAMACPP=0)"
    have = read_cpu_flags(names=BASELINE)
    if not all(have.values()):
        return f"this CPU lacks {', '.join(n for n, on in have.items() if not on)}"
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (scripts/setup.sh builds it)"
    info = build_info()
    if info.startswith("error:"):
        return f"llama.cpp does not run here ({info[6:].strip()})"[:200]
    used = [name for name, on in re.findall(r"(\w+) = (\d)", info) if on == "1" and name in FEATURE_FLAGS]
    flags = read_cpu_flags(names=tuple(FEATURE_FLAGS[n] for n in used))
    missing = [n for n in used if not flags[FEATURE_FLAGS[n]]]
    if missing:
        return f"this llama.cpp build uses {', '.join(missing)}, which this CPU lacks (rebuild: scripts/setup.sh)"
    try:
        import_llama_cpp()
    except Exception as exc:  # noqa: BLE001 - the bindings raise RuntimeError when the library does not load
        return f"llama-cpp-python does not load ({type(exc).__name__}: {exc})"[:200]
    return None


_PROBE = "import sys, llama_cpp; sys.stdout.write(llama_cpp.llama_print_system_info().decode(errors='replace'))"


def build_info() -> str:
    """llama_print_system_info() of the installed build, e.g. "CPU : SSE3 = 1 | AVX2 = 1 | …", read in a child
    process ("error: …" when the child fails); kept per library files and CPU in the studio cache."""
    import importlib.util
    import json
    import subprocess
    import sys

    from ..config import cache_dir
    from ..selfcheck import cpu_summary, file_stamp

    lib = Path(importlib.util.find_spec("llama_cpp").origin).parent / "lib"
    stamps = "|".join(f"{p.name}:{file_stamp(p)}" for p in sorted(lib.glob("*.so*")))
    key = hashlib.sha1(f"{stamps}|{cpu_summary()}".encode()).hexdigest()[:16]
    path = cache_dir() / "llamacpp" / f"build-{key}.json"
    try:
        return json.loads(path.read_text())["info"]
    except (OSError, ValueError, KeyError):
        pass
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120,
                              env=child_environ(GOMP_SPINCOUNT=current().gomp_spincount))
        info = done.stdout.strip() if done.returncode == 0 else \
            f"error: the library stopped with code {done.returncode} {done.stderr.strip()[-120:]}"
    except (OSError, subprocess.SubprocessError) as exc:
        info = f"error: {type(exc).__name__}: {exc}"
    atomic_write(path, json.dumps({"info": info, "libraries": stamps}))
    return info


def import_llama_cpp():
    """llama_cpp, with OpenMP told to spin only briefly before it sleeps: its threads wait for each other between
    operations, and at libgomp's default spin two requests decoding at once on a 2-core machine each took 3.6 times
    as long as one alone (bench/lm_threads.py: 6.0 s against 1.7 s; with 300 spins 3.5 s each). Set before the
    library (and the system libgomp with it) is loaded; GOMP_SPINCOUNT set by the user wins."""
    export("GOMP_SPINCOUNT", current().gomp_spincount)
    import llama_cpp

    return llama_cpp


def threads() -> int:
    """Threads of a llama.cpp call: STUDIO_LM_THREADS, else every core (with the short spin of `import_llama_cpp`,
    two requests at once share the cores fairly)."""
    return current().lm_threads or max(1, os.cpu_count() or 1)


def runtime() -> str:
    """Part of a verdict's key: the bindings' version and what the build computes with."""
    llama_cpp = import_llama_cpp()

    return f"llama-cpp-python {llama_cpp.__version__} | build {hashlib.sha1(build_info().encode()).hexdigest()[:8]}"


def _init() -> None:
    global _initialised, _log_callback
    with _init_lock:
        if _initialised:
            return
        llama_cpp = import_llama_cpp()

        def log(level, text, user_data):  # only errors; llama.cpp would print every tensor at load
            if level == 4 and text:  # GGML_LOG_LEVEL_ERROR
                import logging

                logging.getLogger("studio.llamacpp").error(text.decode(errors="replace").rstrip())

        _log_callback = llama_cpp.llama_log_callback(log)
        llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))
        llama_cpp.llama_backend_init()
        _initialised = True


def served_gguf(gguf: Path, folder: Path) -> Path:
    """The float16 copy of `gguf` in `folder`, written once (atomically) with llama.cpp's own converter."""
    target = folder / SERVED_FILE
    if target.is_file():
        return target
    _init()
    llama_cpp = import_llama_cpp()

    with atomic_path(target) as tmp:
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_F16
        params.allow_requantize = True
        params.nthread = max(1, os.cpu_count() or 1)
        if llama_cpp.llama_model_quantize(str(gguf).encode(), str(tmp).encode(), ctypes.byref(params)) != 0:
            raise LoadError(f"llama.cpp could not convert {gguf.name} to float16")
    return target


def _permute_rows(w: np.ndarray, heads: int) -> np.ndarray:
    """The row order llama.cpp's GGUF gives q_proj / k_proj (rotary halves interleaved), as its converter does."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write_adapter(delta: dict, scale: float, target: Path, n_head: int, n_head_kv: int, arch: str = "llama") -> Path:
    """A llama.cpp LoRA adapter (GGUF) from a studio delta {"model.layers.N.<linear>.lora_A": (r, in), ".lora_B":
    (out, r)} for a base of architecture `arch` (its config's model_type: "llama" for the `lm`, "qwen2" for the
    writer): float32 factors under the GGUF names, q/k output rows in GGUF order (llama's converter interleaves the
    rotary halves, qwen2's keeps them), alpha = scale · rank."""
    import gguf as G

    if target.is_file():
        return target
    tensors, rank = [], None
    for key in sorted(k for k in delta if k.endswith(".lora_A")):
        path = key[:-len(".lora_A")]
        m = re.fullmatch(r"model\.layers\.(\d+)\.(self_attn\.\w+|mlp\.\w+)", path)
        if not m or m.group(2) not in GGUF_NAMES:
            raise LoadError(f"the delta names a layer llama.cpp has no adapter slot for: {path}")
        a = np.ascontiguousarray(np.asarray(delta[key], dtype=np.float32))
        if path + ".lora_B" not in delta:
            raise LoadError(f"the delta has no lora_B for {path}")
        b = np.asarray(delta[path + ".lora_B"], dtype=np.float32)
        if arch == "llama" and m.group(2) in ("self_attn.q_proj", "self_attn.k_proj"):
            b = _permute_rows(b, n_head if m.group(2) == "self_attn.q_proj" else n_head_kv)
        name = f"blk.{m.group(1)}.{GGUF_NAMES[m.group(2)]}.weight"
        tensors += [(f"{name}.lora_a", a), (f"{name}.lora_b", np.ascontiguousarray(b))]
        if rank is not None and a.shape[0] != rank:
            raise LoadError("the delta's factors differ in rank; a llama.cpp adapter has one alpha for all")
        rank = a.shape[0]
    if rank is None:
        raise LoadError("the delta holds no LoRA factors")
    with atomic_path(target) as tmp:
        writer = G.GGUFWriter(str(tmp), arch)
        writer.add_string("general.type", "adapter")
        writer.add_string("adapter.type", "lora")
        writer.add_float32("adapter.lora.alpha", float(scale) * rank)
        for name, value in tensors:
            writer.add_tensor(name, value)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
    return target


class LlamaCppLM(LanguageModel):
    """A LanguageModel on one llama.cpp context. Calls are serialised (one context, and seeds stay meaningful);
    each call starts from an empty KV cache and gives every sequence its own id, sharing a prompt's cells where
    several continuations follow it. A call that needs more cells than the context holds gets a larger context
    for its duration (up to MAX_CTX), then the usual one is used again."""

    device = "cpu"

    def __init__(self, gguf: Path, tokenizer, model_id: str, backend: str, adapter: Path | None = None,
                 threads: int = 1):
        _init()
        llama_cpp = import_llama_cpp()

        self._L = llama_cpp
        self.tokenizer, self.model_id, self.backend = tokenizer, model_id, backend
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.model = None  # no torch module: code that needs one (training, the int4 tests) uses a torch form
        self.checks: tuple = ()
        self._lock, self._owner = threading.Lock(), None
        self._threads, self._adapter, self._ctx, self._mem, self._batch = max(1, int(threads)), None, None, None, None
        self._prefixes: dict[tuple[int, ...], int] = {}  # cached prefix ids -> its reserved sequence, oldest first
        self._model, self._model_lock = _hold_model(gguf)
        try:
            if adapter is not None:
                with self._model_lock:
                    self._adapter = llama_cpp.llama_adapter_lora_init(self._model, str(adapter).encode())
                if not self._adapter:
                    raise _file_error(f"llama.cpp could not load the adapter {adapter.name}", adapter)
            self._ctx, self._mem = self._new_context(N_CTX)
            self._n_ctx = N_CTX
            self._batch = llama_cpp.llama_batch_init(N_BATCH, 0, N_SEQ)
        except BaseException:
            self.close()
            raise
        # each context adds its KV cells (~23 KB a cell), logits and compute buffers, and its adapter; the weights are
        # loaded once a file (`_hold_model`) but counted on every holder: a memory budget then never counts less than
        # is held (unloading one holder of a shared file frees less than it counted, never more)
        self.weights_mb = (gguf.stat().st_size + (adapter.stat().st_size if adapter else 0)) / 2**20 + 240.0
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(self._model))

    def _new_context(self, n_ctx: int):
        L = self._L
        cp = L.llama_context_default_params()
        cp.n_ctx, cp.n_batch, cp.n_ubatch, cp.n_seq_max = int(n_ctx), N_BATCH, 512, N_SEQ
        cp.n_threads = cp.n_threads_batch = self._threads
        cp.kv_unified, cp.no_perf = True, True
        with self._model_lock:
            ctx = L.llama_init_from_model(self._model, cp)
            if not ctx:
                raise LoadError(f"llama.cpp could not create a context of {n_ctx} tokens")
            if self._adapter is not None:
                adapters = (L.llama_adapter_lora_p_ctypes * 1)(self._adapter)
                if L.llama_set_adapters_lora(ctx, adapters, 1, (ctypes.c_float * 1)(1.0)) != 0:
                    L.llama_free(ctx)
                    raise LoadError("llama.cpp could not apply the adapter")
        return ctx, L.llama_get_memory(ctx)

    @contextlib.contextmanager
    def _call(self, cells: int, seqs: int, keep_prefixes: bool = False):
        """The model for one call that needs `cells` KV cells over `seqs` sequences: exclusive, its sequences
        empty, in a larger context for this call when the usual one is too small. A call made from inside another
        on the same thread (which would wipe its cache) is refused. The cached prompt prefixes stay (their cells
        counted in) whenever they fit beside the call, so that a log-likelihood between two replies (Polish's reread
        before a Continue) costs no reply its prefix; otherwise the call forgets them. `keep_prefixes`: the call
        uses them (it is told whether it may)."""
        if self._owner == threading.get_ident():
            raise RuntimeError("a language-model call from inside another call on the same model")
        if seqs > N_SEQ or cells > MAX_CTX:
            raise InputError(f"This request needs {cells} token slots in {seqs} sequences; the language model "
                             f"holds at most {MAX_CTX} in {N_SEQ}. Shorten the text, or ask for fewer samples or "
                             f"tokens.")
        with self._lock:
            if self._ctx is None:
                raise RuntimeError("the language model was closed")
            self._owner = threading.get_ident()
            usual = None
            try:
                cached = sum(len(p) for p in self._prefixes)
                fits = cells + cached + 64 <= self._n_ctx and seqs <= N_SEQ - PREFIX_SEQS
                if fits:
                    for seq in range(N_SEQ - PREFIX_SEQS):  # the previous call's sequences; the prefixes stay
                        self._L.llama_memory_seq_rm(self._mem, seq, -1, -1)
                else:
                    self._forget_prefixes()
                    if cells > self._n_ctx:
                        usual = (self._ctx, self._mem)
                        self._ctx, self._mem = self._new_context(-(-cells // 1024) * 1024)
                        self._L.llama_memory_clear(self._mem, False)
                yield fits and keep_prefixes
            except BaseException:
                self._forget_prefixes()  # a call stopped half way may leave cells of a prefix being evaluated
                raise
            finally:
                if usual is not None:
                    with self._model_lock:
                        self._L.llama_free(self._ctx)
                    self._ctx, self._mem = usual
                self._owner = None

    def _forget_prefixes(self) -> None:
        """Every cached prefix dropped and the usual context's cells freed (its bookkeeping; stale data is never
        read): the state every call without kept prefixes starts from."""
        self._prefixes.clear()
        if self._mem is not None:
            self._L.llama_memory_clear(self._mem, False)

    def _run(self, items: list[tuple[int, int, int | tuple[int, ...], bool]], on_rows=None) -> np.ndarray | None:
        """Decode (token, position, sequence, wants logits) items in order, N_BATCH at a time; a token given a tuple
        of sequences is one cell that all of them read. The logits of the items that want them, in order, as a
        float32 (n, vocab) array; or, with `on_rows(logits, first)`, each batch's rows handed over (a view, valid
        during the call; `first`: the index of its first row), and None."""
        L, batch, rows, done = self._L, self._batch, [], 0
        for start in range(0, len(items), N_BATCH):
            chunk = items[start:start + N_BATCH]
            for i, (tok, pos, seq, want) in enumerate(chunk):
                seqs = seq if isinstance(seq, tuple) else (seq,)
                batch.token[i], batch.pos[i], batch.n_seq_id[i] = int(tok), int(pos), len(seqs)
                for j, s_id in enumerate(seqs):
                    batch.seq_id[i][j] = int(s_id)
                batch.logits[i] = 1 if want else 0
            batch.n_tokens = len(chunk)
            with self._model_lock:
                rc = L.llama_decode(self._ctx, batch)
            if rc != 0:
                why = {1: "no room left in the KV cache", 2: "aborted"}.get(rc, "invalid input or an internal error")
                raise RuntimeError(f"llama.cpp could not decode a batch of {len(chunk)} tokens ({why}, code {rc})")
            wanted = sum(1 for it in chunk if it[3])
            if wanted:
                view = np.ctypeslib.as_array(L.llama_get_logits(self._ctx), shape=(wanted, self.n_vocab))
                if on_rows is None:
                    rows.append(view.copy())
                else:
                    on_rows(view, done)
                done += wanted
        if on_rows is not None:
            return None
        return np.concatenate(rows) if rows else np.zeros((0, self.n_vocab), np.float32)

    def _logprobs(self, items, targets: list[int]) -> np.ndarray:
        """log p(target) at each item that wants logits (in order): `_logprobs_rows` with one target a row."""
        rows = self._logprobs_rows(items, [[t] for t in targets])
        return np.concatenate(rows) if rows else np.zeros(0)

    def _prefill(self, seqs: Sequence[list[int]], copies: int = 1) -> np.ndarray:
        """Each token list as sequence i·copies, then copied to the `copies` - 1 sequences after it (sharing
        cells); the next-token logits after each list, (len(seqs), vocab)."""
        items = [(t, p, i * copies, p == len(ids) - 1) for i, ids in enumerate(seqs) for p, t in enumerate(ids)]
        last = self._run(items)
        for i, ids in enumerate(seqs):
            for c in range(1, copies):
                self._L.llama_memory_seq_cp(self._mem, i * copies, i * copies + c, 0, len(ids))
        return last

    def _ids(self, text: str, special: bool = False) -> list[int]:
        return self.tokenizer(text, add_special_tokens=special)["input_ids"]

    # -- LanguageModel -----------------------------------------------------------------------------------------
    def generate(self, prompts, *, max_new_tokens=20, top_k=5, temperature=0.7, no_repeat_ngram_size=3,
                 num_return_sequences=1, seed=0, logits_processor=None, stop_at_sentence_end=False):
        import torch

        from ..sampling import banned_tokens, cut_at_sentence_end, draw

        if logits_processor is not None:
            raise NotImplementedError("logits processors need the torch form (STUDIO_LLAMACPP=0)")
        if not len(prompts):
            return []
        n, steps, eos = max(1, int(num_return_sequences)), int(max_new_tokens), self.tokenizer.eos_token_id
        results: list[list[Generation]] = []
        generator = torch.Generator().manual_seed(int(seed) % (2**63))
        for prompt in prompts:
            ids = self.tokenizer(prompt)["input_ids"] or [eos]
            out: list[list[int]] = [[] for _ in range(n)]
            with self._call(len(ids) + n * steps, n):
                logits = torch.from_numpy(np.repeat(self._prefill([ids], n), n, axis=0))
                alive = list(range(n))
                for step in range(steps):
                    fed = []
                    for s in alive:
                        row = logits[s]
                        banned = banned_tokens(ids + out[s], int(no_repeat_ngram_size or 0))
                        if banned:
                            row = row.clone()
                            row[list(banned)] = float("-inf")
                        tok = draw(row, top_k, temperature, generator)
                        if tok == eos:
                            continue
                        out[s].append(tok)
                        fed.append(s)
                    alive = fed
                    if not alive or step == steps - 1:
                        break
                    rows = self._run([(out[s][-1], len(ids) + step, s, True) for s in alive])
                    logits = torch.zeros(n, self.n_vocab)
                    logits[alive] = torch.from_numpy(rows)
            row_out = []
            for s in range(n):
                text = self.tokenizer.decode(out[s], skip_special_tokens=True)
                if stop_at_sentence_end:
                    text = cut_at_sentence_end(text.strip())
                row_out.append(Generation(text=text, prompt=prompt, new_tokens=len(out[s])))
            results.append(row_out)
        return results

    def _prefix_seq(self, ids: list[int]) -> int:
        """The reserved sequence holding `ids` at positions 0…len-1, evaluated now unless cached (inside `_call`
        with keep_prefixes; the least recently used prefix makes room)."""
        key = tuple(ids)
        if key in self._prefixes:
            self._prefixes[key] = self._prefixes.pop(key)  # most recently used last
            return self._prefixes[key]
        free = set(range(N_SEQ - PREFIX_SEQS, N_SEQ)) - set(self._prefixes.values())
        if not free:
            oldest = next(iter(self._prefixes))
            free = {self._prefixes.pop(oldest)}
            self._L.llama_memory_seq_rm(self._mem, next(iter(free)), -1, -1)
        seq = min(free)
        self._L.llama_memory_seq_rm(self._mem, seq, -1, -1)
        self._run([(t, p, seq, False) for p, t in enumerate(ids)])
        self._prefixes[key] = seq
        return seq

    def reply(self, system, user, *, n=1, max_new_tokens=40, top_k=40, temperature=0.8, seed=0,
              stop_at_sentence_end=False, stop_at_newline=False, on_text=None):
        """n samples of the assistant's answer to one system + user message, drawn together (each its own
        sequence, sharing the prompt's cells); the chat template's system part is evaluated once per model and
        kept (PREFIX_SEQS). `on_text(i, text)` is called as sample i grows (streaming)."""
        import torch

        from ..sampling import draw_rows

        prefix, rest = split_chat_prompt(self.tokenizer, system, user)
        p_ids = self._ids(prefix, special=False) if prefix else []
        r_ids = self._ids(rest, special=False)
        stops = stop_ids(self.tokenizer)
        n, steps = max(1, int(n)), int(max_new_tokens)
        gen = torch.Generator().manual_seed(int(seed) % (2**63))
        out: list[list[int]] = [[] for _ in range(n)]
        texts = [""] * n
        with self._call(len(p_ids) + len(r_ids) + n * steps, n, keep_prefixes=bool(p_ids)) as prefixes_usable:
            start = 0
            if p_ids and prefixes_usable:
                seq = self._prefix_seq(p_ids)
                for s in range(n):
                    self._L.llama_memory_seq_cp(self._mem, seq, s, 0, len(p_ids))
                start, ids = len(p_ids), r_ids
            else:
                ids = p_ids + r_ids
            every = tuple(range(n))
            last = self._run([(t, start + i, every, i == len(ids) - 1) for i, t in enumerate(ids)])
            logits = torch.from_numpy(np.repeat(last, n, axis=0))
            pos, alive = start + len(ids), [True] * n
            for step in range(steps):
                nxt = draw_rows(logits, top_k, temperature, gen) if temperature > 0 else logits.argmax(-1)
                for i in range(n):
                    if not alive[i]:
                        continue
                    tok = int(nxt[i])
                    if tok in stops:
                        alive[i] = False
                        continue
                    out[i].append(tok)
                    texts[i] = self.tokenizer.decode(out[i], skip_special_tokens=True)
                    done = (stop_at_newline and "\n" in texts[i].strip()) or (
                        stop_at_sentence_end and cut_sentence_outside_quotes(texts[i].strip()) != texts[i].strip())
                    if done:
                        alive[i] = False
                    if on_text is not None:
                        on_text(i, texts[i])
                if not any(alive) or step == steps - 1:
                    break
                live = [i for i in range(n) if alive[i]]
                rows = self._run([(out[i][-1], pos + step, i, True) for i in live])
                logits[live] = torch.from_numpy(rows)
        results = []
        for i in range(n):
            text = texts[i].strip()
            if stop_at_newline:
                text = text.split("\n", 1)[0].strip()
            if stop_at_sentence_end:
                text = cut_sentence_outside_quotes(text)
            results.append(Generation(text=text, prompt=prefix + rest, new_tokens=len(out[i])))
        return results

    def loglik(self, contexts, continuations, batch_size: int = 16):
        if len(contexts) != len(continuations):
            raise ValueError("contexts and continuations differ in length")
        eos = self.tokenizer.eos_token_id
        pairs = [(self._ids(ctx) or [eos], self._ids(cont)) for ctx, cont in zip(contexts, continuations)]
        results: list[tuple[float, int]] = []
        group: list[tuple[list[int], list[int]]] = []
        for pair in pairs + [None]:
            size = sum(len(c) + len(x) for c, x in group)
            if group and (pair is None or len(group) == N_SEQ or size + len(pair[0]) + len(pair[1]) > N_CTX):
                results += self._loglik_group(group)
                group = []
            if pair is not None:
                group.append(pair)
        return results

    def _loglik_group(self, group):
        items, targets = [], []
        for seq, (c_ids, x_ids) in enumerate(group):
            full = c_ids + x_ids
            items += [(t, p, seq, len(c_ids) - 1 <= p < len(full) - 1) for p, t in enumerate(full)]
            targets += x_ids
        with self._call(sum(len(c) + len(x) for c, x in group), len(group)):
            logp = self._logprobs(items, targets)
        out, row = [], 0
        for c_ids, x_ids in group:
            out.append((float(logp[row:row + len(x_ids)].sum()), len(x_ids)) if x_ids else (0.0, 0))
            row += len(x_ids)
        return out

    def loglik_shared(self, context: str, continuations, score_last=None):
        return self.loglik_many([(context, continuations, score_last)])[0]

    def loglik_many(self, asks):
        """`loglik_shared` of several asks in as few decodes as fit: each context's tokens are cells that all of its
        continuations' sequences read, each continuation is a sequence of its own (sharing the cells of the
        beginnings it has in common with others, `_score_pack`), and asks are packed into one pass up to N_SEQ
        sequences and N_CTX cells. A decode costs at least one read of the weights (some 10 ms), so a Rerank's
        three asks in one pass save most of what their six small decodes spent beyond the tokens."""
        eos = self.tokenizer.eos_token_id
        results, units = [], []
        for a, (context, continuations, score_last) in enumerate(asks):
            conts = [self._ids(c) for c in continuations]
            last = scored_tails(conts, score_last)
            results.append([(0.0, 0)] * len(conts))
            todo = [(i, conts[i], last[i]) for i in range(len(conts)) if conts[i] and last[i]]
            c_ids = self._ids(context) or [eos]
            units += [(a, c_ids, todo[s:s + N_SEQ]) for s in range(0, len(todo), N_SEQ)]
        pack, seqs, cells = [], 0, 0
        for unit in units + [None]:
            size = (len(unit[2]), len(unit[1]) + sum(len(t) for _, t, _ in unit[2])) if unit else (0, 0)
            if pack and (unit is None or seqs + size[0] > N_SEQ or cells + size[1] > N_CTX):
                self._score_pack(pack, cells, seqs, results)
                pack, seqs, cells = [], 0, 0
            if unit is not None:
                pack.append(unit)
                seqs, cells = seqs + size[0], cells + size[1]
        return results

    def _score_pack(self, pack, cells: int, seqs: int, results) -> None:
        """One decode of packed (ask, context ids, [(continuation index, ids, tokens scored)]) units. A unit's
        continuations form a tree of the beginnings they share: a token they start alike with is one cell of all
        their sequences, so the " like" before " a flash", " an arrow" and " a deer" runs once. A cell's logits give
        the log-probability of every scored token that follows it; the context's last cell, of the first tokens."""
        items, targets, owners, base = [], [], [], 0
        for a, c_ids, todo in pack:
            items += [(t, p, tuple(range(base, base + len(todo))), p == len(c_ids) - 1) for p, t in enumerate(c_ids)]
            firsts = [(i, toks[0]) for i, toks, k in todo if k == len(toks)]
            targets.append([t for _, t in firsts])
            owners.append([(a, i) for i, _ in firsts])
            nodes: dict[tuple[int, ...], tuple[list[int], list[tuple[int, int]]]] = {}
            for row, (i, toks, k) in enumerate(todo):
                for j in range(1, len(toks)):  # the cell of toks[j - 1], at context + j - 1, predicts toks[j]
                    seq_ids, scored = nodes.setdefault(tuple(toks[:j]), ([], []))
                    seq_ids.append(base + row)
                    if j >= len(toks) - k:
                        scored.append((i, toks[j]))
            for prefix, (seq_ids, scored) in sorted(nodes.items(), key=lambda node: len(node[0])):
                items.append((prefix[-1], len(c_ids) + len(prefix) - 1, tuple(seq_ids), bool(scored)))
                if scored:
                    targets.append([t for _, t in scored])
                    owners.append([(a, i) for i, _ in scored])
            base += len(todo)
        with self._call(cells, seqs):
            logp = self._logprobs_rows(items, targets)
        totals: dict[tuple[int, int], float] = {}
        for values, who in zip(logp, owners):
            for value, key in zip(values, who):
                totals[key] = totals.get(key, 0.0) + float(value)
        for a, _, todo in pack:
            for i, _, k in todo:
                results[a][i] = (totals.get((a, i), 0.0), k)

    def _logprobs_rows(self, items, targets: list[list[int]]) -> list[np.ndarray]:
        """log p of each row's target tokens (a list per item that wants logits, in order), computed batch by batch,
        so that no (rows × vocabulary) array is kept."""
        out: list[np.ndarray] = [np.zeros(0)] * len(targets)

        def take(logits, first):
            rows = logits.astype(np.float64)
            lse = np.log(np.exp(rows - rows.max(1, keepdims=True)).sum(1)) + rows.max(1)
            for j in range(len(rows)):
                out[first + j] = rows[j, targets[first + j]] - lse[j]

        self._run(items, on_rows=take)
        return out

    def sample_shared(self, context: str, n: int, *, max_new_tokens: int = 8, top_k: int = 30,
                      temperature: float = 0.8, seed: int = 0, stop: str = "\n", until: tuple[str, ...] = (),
                      on_step=None):
        import torch

        from ..sampling import draw_rows, extend_samples

        if n < 1:
            return []
        eos = self.tokenizer.eos_token_id
        c_ids = self._ids(context) or [eos]
        steps = int(max_new_tokens)
        gen = torch.Generator(device="cpu").manual_seed(int(seed) % (2**63))
        out: list[list[int]] = [[] for _ in range(n)]
        with self._call(len(c_ids) + n * steps, n):
            logits = torch.from_numpy(np.repeat(self._prefill([c_ids], n), n, axis=0))
            alive = [True] * n
            for step in range(steps):
                nxt = draw_rows(logits, top_k, temperature, gen)
                extend_samples(nxt, out, alive, eos, stop, self.tokenizer.decode, until)
                if on_step is not None:
                    on_step(step + 1, steps)
                if not any(alive) or step == steps - 1:
                    break
                live = [i for i in range(n) if alive[i]]
                rows = self._run([(out[i][-1], len(c_ids) + step, i, True) for i in live])
                logits[live] = torch.from_numpy(rows)
        texts = [self.tokenizer.decode(ids, skip_special_tokens=True) for ids in out]
        return [t.split(stop, 1)[0] if stop else t for t in texts]

    @contextlib.contextmanager
    def ensemble(self, prompt_ids: list[list[int]], n: int, combine: str, max_new_tokens: int = 64):
        """The logit ensemble of continuation/decoding.py, as (first, step): first = the combined next-token logits
        (n, vocab) of m prompts × n samples (rows prompt-major, each prompt's cells shared by its n samples);
        step(next_ids) feeds sample s's token to all m prompts of that sample and returns the new combined
        logits. The model is held for the whole decoding, with room for `max_new_tokens` steps."""
        import torch

        m, width = len(prompt_ids), sum(len(p) for p in prompt_ids)

        def reduce(rows):
            return rows.sum(0) if combine == "sum" else rows.mean(0)

        with self._call(width + m * n * int(max_new_tokens), m * n):
            last = torch.from_numpy(self._prefill(prompt_ids, n))  # (m, vocab)
            state = {"step": 0}

            def step(next_ids: list[int]):
                if self._owner != threading.get_ident():
                    raise RuntimeError("an ensemble step after its block ended")
                pos = state["step"]
                state["step"] += 1
                items = [(next_ids[s], len(prompt_ids[p]) + pos, p * n + s, True) for p in range(m) for s in range(n)]
                return reduce(torch.from_numpy(self._run(items)).view(m, n, -1))

            yield reduce(last).unsqueeze(0).repeat(n, 1), step

    def probe_logits(self, texts) -> list[np.ndarray]:
        """Next-token logits at every position of each text (the self-check's view), one text at a time."""
        out = []
        for text in texts:
            ids = self.tokenizer(text)["input_ids"]
            with self._call(len(ids), 1):
                out.append(self._run([(t, p, 0, True) for p, t in enumerate(ids)]))
        return out

    def close(self) -> None:
        L = self._L
        with self._lock, getattr(self, "_model_lock", None) or contextlib.nullcontext():
            if getattr(self, "_batch", None) is not None:
                L.llama_batch_free(self._batch)
                self._batch = None
            if getattr(self, "_ctx", None):
                L.llama_free(self._ctx)
                self._ctx, self._mem = None, None
            if getattr(self, "_adapter", None):
                L.llama_adapter_lora_free(self._adapter)
                self._adapter = None
            if getattr(self, "_model", None):
                _release_model(self._model)
                self._model = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _file_error(message: str, path: Path) -> LoadError:
    """A LoadError that names the file llama.cpp could not load (`_open` removes only that one, if it made it)."""
    error = LoadError(message)
    error.path = path
    return error


def _hold_model(gguf: Path):
    """(llama_model, its lock) of a GGUF file: loaded once, shared by every holder until the last one releases it
    (`_release_model`). Each holder has its own context (cells), adapter and call lock; the model's lock (`_models`)
    serialises what llama.cpp does on the model itself."""
    L, path = import_llama_cpp(), Path(gguf).resolve()
    stat = path.stat()
    key = f"{path}|{stat.st_size}|{stat.st_mtime_ns}"  # a file made again is loaded again
    with _models_lock:
        held = _models.get(key)
        if held is None:
            model = L.llama_model_load_from_file(str(path).encode(), L.llama_model_default_params())
            if not model:
                raise _file_error(f"llama.cpp could not load {Path(gguf).name}", Path(gguf))
            held = _models[key] = [model, 0, threading.RLock()]
        held[1] += 1
        return held[0], held[2]


def _release_model(model) -> None:
    """One holder of `model` done; the weights are freed with the last (its adapters must be freed before)."""
    L = import_llama_cpp()
    with _models_lock:
        for key, held in list(_models.items()):
            if held[0] is model:
                held[1] -= 1
                if held[1] == 0:
                    del _models[key]
                    L.llama_model_free(model)
                return


def files_digest(*paths: Path) -> str:
    from ..selfcheck import file_stamp

    return hashlib.sha1("|".join(f"{p.name}:{file_stamp(p)}" for p in paths).encode()).hexdigest()[:10]


ADAPTER_FILE = "llamacpp-adapter-v1.gguf"  # the version changes with write_adapter's output


def serve(float32_load, base_dir: Path, gguf: Path, folder: Path, name: str, model_id: str,
          delta: tuple[dict, float] | None = None, quantized: bool = False):
    """(LlamaCppLM or None, verdict or None): the llama.cpp form if it passes its check here. `base_dir`: the
    converted float32 folder (tokenizer, config; the float16 file is written there once); `folder`: where the
    verdict (and a variant's adapter) is kept; `float32_load()` gives the float32 torch reference, loaded only
    when no verdict is cached; `delta` (factors, scale) makes an adapter; `quantized` serves the GGUF file as it is
    (a 1.5 B model decodes at memory speed: float16 would read four times the bytes a token). (None, None): the form cannot be tried
    here (`unavailable_reason`). Whatever goes wrong on the way (a conversion, a damaged file, the library) is a
    failed verdict, and the caller's torch forms serve; a file that does not load is removed, to be made again."""
    from .. import selfcheck

    if unavailable_reason() is not None:
        return None, None
    files, lm = [], None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        files.append(gguf if quantized else served_gguf(gguf, base_dir))
        if delta is not None:
            import json

            config = json.loads((base_dir / "config.json").read_text())
            arch = str(config.get("model_type") or "llama")
            name = ADAPTER_FILE if arch == "llama" else ADAPTER_FILE.replace(".gguf", f"-{arch}.gguf")
            files.append(write_adapter(delta[0], delta[1], folder / name, int(config["num_attention_heads"]),
                                       int(config.get("num_key_value_heads") or config["num_attention_heads"]), arch))
        max_shift = selfcheck.LM_QUANTIZED_MAX_MEAN_LOGPROB_SHIFT if quantized else selfcheck.LM_MAX_MEAN_LOGPROB_SHIFT
        key = selfcheck.cpu_key(f"{runtime()} | probes {selfcheck.LM_PROBE_DIGEST} | files {files_digest(*files)}"
                                + (f" | shift <= {max_shift}" if quantized else ""))
        form = f"llama.cpp, the file's own {gguf_file_type(gguf)} weights (portable AVX2 build)" if quantized else FORM
        verdict = selfcheck.cached_verdict(folder, form, key)
        if verdict is not None and not verdict.passed:
            return None, verdict
        lm = _open(files, base_dir, model_id, f"{name} (GGUF on {form})", made=1 if quantized else 0)
        if verdict is None:
            started = time.perf_counter()
            reference = float32_load()
            try:
                from .fourbit import probe_logits

                want = probe_logits(reference.model, reference.tokenizer)
            finally:
                reference.close()
            verdict = selfcheck.lm_verdict(form, want, lm.probe_logits(selfcheck.LM_PROBE_TEXTS), key,
                                           time.perf_counter() - started, max_shift)
            selfcheck.store_verdict(folder, verdict, form)
    except Exception as exc:  # noqa: BLE001 - any failure of this form leaves the torch forms to serve
        if lm is not None:
            lm.close()
        return None, selfcheck.Verdict(FORM if not quantized else "llama.cpp, the file's own weights", False,
                                       f"could not be used ({type(exc).__name__}: {exc})"[:240], 99.0,
                                       "loads and runs", selfcheck.cpu_key("llama.cpp"), 0.0, selfcheck.now())
    if not verdict.passed:
        lm.close()
        return None, verdict
    lm.checks = (verdict,)
    return lm, verdict


def stop_ids(tokenizer) -> set[int]:
    """The tokens that end an assistant's turn: the eos and the chat template's end-of-turn markers."""
    ids = {tokenizer.eos_token_id}
    for marker in ("<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>"):
        tid = tokenizer.convert_tokens_to_ids(marker)
        if isinstance(tid, int) and tid != tokenizer.unk_token_id and tid >= 0:
            ids.add(tid)
    return {i for i in ids if i is not None}


def gguf_file_type(gguf: Path) -> str:
    """The quantisation a GGUF file names (general.file_type), e.g. "Q4_K_M", read by llama.cpp from the file's
    metadata with its vocabulary only (under a second; gguf.GGUFReader parses every field in Python, the writer's
    150,000-token vocabulary among them, ~25 s)."""
    import gguf as G

    _init()
    llama_cpp = import_llama_cpp()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(gguf).encode(), params)
    if not model:
        raise LoadError(f"llama.cpp cannot read {gguf.name}", "reinstall the package that holds it")
    try:
        buf = ctypes.create_string_buffer(32)
        found = llama_cpp.llama_model_meta_val_str(model, b"general.file_type", buf, len(buf))
    finally:
        llama_cpp.llama_model_free(model)
    if found < 0:
        return "quantized"
    value = int(buf.value)
    try:
        return G.LlamaFileType(value).name.removeprefix("MOSTLY_")
    except ValueError:
        return f"type {value}"


def _open(files: list[Path], base_dir: Path, model_id: str, backend: str, made: int = 0) -> LlamaCppLM:
    """The LlamaCppLM of the served file (and adapter); of them, the files this module made (`files[made:]`) that
    llama.cpp cannot load are removed (a damaged cache), so the next load makes them again; a file it was given (the
    writer's own GGUF) is never removed."""
    from transformers import AutoTokenizer

    quiet_transformers()
    tokenizer = AutoTokenizer.from_pretrained(str(base_dir))
    try:
        return LlamaCppLM(files[0], tokenizer, model_id, backend, files[1] if len(files) > 1 else None, threads())
    except LoadError as error:
        bad = getattr(error, "path", None)  # a context that could not be made is no damaged file
        for path in files[made:]:
            if path == bad:
                path.unlink(missing_ok=True)
        raise
