"""One lazily loaded registry: `get(role)` loads a role's model the first time a feature needs it."""
from __future__ import annotations

import contextlib
import dataclasses
import gc
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .config import ROLES, Settings
from .loaders import loader_for
from .loaders.common import LoadError, configure_torch_threads, reference_forms
from .pair_folder import has_pair_encoder
from .specs import ModelSpec, spec_for

NOT_LOADED, LOADING, READY, UNAVAILABLE, FAILED = "not loaded", "loading", "ready", "unavailable", "failed"
TORCH_FREE_BACKENDS = ("spacy", "langid", "vader", "simile_reranker", "onnx_int8", "embedder_variant", "proverbs_adapter")  # a variant sets threads if it needs torch
RETRY_AFTER_S = 10.0  # a failed load is retried on use after this long (so a fix needs no restart)


class ModelUnavailable(RuntimeError):
    """A role that cannot serve: `reason` says why, `fix` what to do. Shown in place of a feature's output."""

    def __init__(self, role: str, reason: str, fix: str = "", state: str = UNAVAILABLE):
        self.role, self.reason, self.fix, self.state = role, reason, fix, state
        super().__init__(self.message)

    @property
    def message(self) -> str:
        verb = "failed to load" if self.state == FAILED else "is unavailable"
        text = f"The {self.role} model {verb}: {self.reason}."
        return text + (f" Fix: {self.fix}." if self.fix else "")


class UnknownRole(KeyError):
    def __init__(self, role: str):
        super().__init__(f"unknown role {role!r}; roles are: {', '.join(ROLES)}")


@dataclass
class RoleEntry:
    spec: ModelSpec
    state: str = NOT_LOADED
    model: object = None
    backend: str = ""
    load_seconds: float | None = None
    memory_mb: float | None = None
    rss_high_mb: float = 0.0  # the largest RSS growth any load of this role showed
    error: ModelUnavailable | None = None
    failed_at: float = 0.0
    last_used: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def _weights_mb(model) -> float:
    """Size of the torch weights a role object holds (parameters and buffers, each tensor once), not counting
    other roles it wraps. The RSS growth during a load misses weights that reuse freed memory (a reload after an
    eviction measured ~0 MB) and charges one-off imports to whichever role loads first, so weights are the
    accounting whenever there are any."""
    import sys

    torch = sys.modules.get("torch")
    if torch is None:  # nothing loaded torch, so no role holds torch weights
        return 0.0
    from .roles import Role

    seen_tensors, visited, total = set(), set(), 0
    stack = [(model, 0)]
    while stack:
        obj, depth = stack.pop()
        if id(obj) in visited or (depth and isinstance(obj, Role)):
            continue
        visited.add(id(obj))
        if isinstance(obj, torch.nn.Module):
            for tensor in (*obj.parameters(), *obj.buffers()):
                if tensor.data_ptr() not in seen_tensors:
                    seen_tensors.add(tensor.data_ptr())
                    total += tensor.numel() * tensor.element_size()
        elif depth < 4:  # role -> pipeline -> component -> module is as deep as the loaders go
            children = (obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple))
                        else vars(obj).values() if hasattr(obj, "__dict__") else ())
            stack.extend((child, depth + 1) for child in children)
    return total / 2**20


class Registry:
    def __init__(self, settings: Settings | None = None):
        self.settings = settings or Settings.from_env()
        self._entries = {role: RoleEntry(self._spec(role)) for role in ROLES}
        self._reference: Registry | None = None
        for entry in self._entries.values():
            if entry.spec.unavailable_reason and not self._present(entry.spec):
                entry.state = UNAVAILABLE
                entry.error = ModelUnavailable(entry.spec.role, entry.spec.unavailable_reason, entry.spec.fix)

    @staticmethod
    def _present(spec: ModelSpec) -> bool:
        """Cheap check (no load) that a spec which may be unavailable has something to load."""
        if spec.backend in ("embedder_variant", "lm_variant", "writer_variant"):
            return Path(spec.model_id).is_file()
        if spec.backend == "proverbs_adapter":
            return any(Path(spec.model_id).glob("scorer*.safetensors"))
        if spec.backend == "simile_reranker":
            return Path(spec.model_id).is_file()
        if spec.backend in ("pair_nli", "pair_encoder_judge"):
            return has_pair_encoder(spec.model_id)
        return bool(spec.model_id)

    @property
    def profile(self) -> str:
        return self.settings.profile

    def reference(self) -> "Registry":
        """This registry's twin that serves the float32 reference forms (Settings.reference), made once: what the
        evaluations' committed samples are computed on, so that every CPU recomputes them alike."""
        if self.settings.reference:
            return self
        with _registry_lock:
            if self._reference is None:
                self._reference = Registry(dataclasses.replace(self.settings, reference=True))
        return self._reference

    def _spec(self, role: str) -> ModelSpec:
        return spec_for(self.settings.profile, role, self.settings.overrides.get(role))

    def spec(self, role: str) -> ModelSpec:
        """The model a role would load (without loading it)."""
        self._entry(role)
        return self._spec(role)

    def _entry(self, role: str) -> RoleEntry:
        try:
            return self._entries[role]
        except KeyError:
            raise UnknownRole(role) from None

    def get(self, role: str):
        """The role's model, loading it on first use; raises ModelUnavailable when it cannot serve."""
        entry = self._entry(role)
        model = entry.model  # read once: an eviction on another thread may clear it after the state check
        if entry.state == READY and model is not None:
            entry.last_used = time.monotonic()
            return model
        # one load at a time, across roles: two threads importing transformers at once can see it half made ("cannot
        # import name 'BertConfig'", which marked a role failed for a visitor). Always this lock before a role's
        # own, so that a loader's nested get (an alias, the embedder under a head) cannot deadlock
        if entry.state == UNAVAILABLE or (entry.state == FAILED and time.monotonic() - entry.failed_at < RETRY_AFTER_S):
            raise entry.error  # at once: no wait behind another role's load
        with LOAD_LOCK, entry.lock:  # concurrent first calls: one loads, the others wait for it
            if entry.state == READY:
                entry.last_used = time.monotonic()
                return entry.model
            if entry.state == UNAVAILABLE or (entry.state == FAILED and time.monotonic() - entry.failed_at < RETRY_AFTER_S):
                raise entry.error
            self._load_locked(role, entry)
            model = entry.model
        self._enforce_budget(keep=role)
        return model

    def load(self, role: str):
        """Load now, retrying a failed role at once (the Models tab's Load button)."""
        entry = self._entry(role)
        if entry.state == FAILED:
            entry.failed_at = 0.0
        return self.get(role)

    def _load_locked(self, role: str, entry: RoleEntry) -> None:
        entry.state, entry.error = LOADING, None
        before, start = _rss_mb(), time.perf_counter()
        try:
            if entry.spec.backend not in TORCH_FREE_BACKENDS:
                configure_torch_threads()
            with reference_forms() if self.settings.reference else contextlib.nullcontext():
                model = loader_for(entry.spec.backend)(entry.spec, self)
        except ModelUnavailable as exc:  # a dependency (e.g. the embedder under a head) is missing
            self._fail(entry, ModelUnavailable(role, f"it needs the {exc.role} model, which is {exc.state} ({exc.reason})",
                                               exc.fix, FAILED))
            raise entry.error from exc
        except LoadError as exc:
            self._fail(entry, ModelUnavailable(role, exc.reason, exc.fix, UNAVAILABLE if exc.unavailable else FAILED))
            raise entry.error from exc
        except Exception as exc:  # any loader failure marks only this role failed
            reason = f"loading {entry.spec.model_id or entry.spec.backend} raised {type(exc).__name__}: {exc}"
            self._fail(entry, ModelUnavailable(role, reason.rstrip("."), self._fix_hint(role), FAILED))
            raise entry.error from exc
        entry.model, entry.backend = model, getattr(model, "backend", entry.spec.backend)
        entry.load_seconds = time.perf_counter() - start
        # A reload often fits into memory freed earlier and shows little RSS growth: the role is as large as the
        # largest growth any of its loads showed.
        entry.rss_high_mb = max(entry.rss_high_mb, _rss_mb() - before)
        # an alias holds no weights of its own: they are counted once, on the role it serves for
        entry.memory_mb = (0.0 if getattr(model, "shares_weights_of", None)
                           else getattr(model, "weights_mb", 0.0) or _weights_mb(model) or entry.rss_high_mb)
        entry.last_used = time.monotonic()
        entry.state = READY

    @staticmethod
    def _fix_hint(role: str) -> str:
        return (f"check STUDIO_MODEL_{role.upper()} and the installed packages, then press Load in the Models tab "
                "(operator mode, STUDIO_ADMIN=1) or restart the studio")

    @staticmethod
    def _fail(entry: RoleEntry, error: ModelUnavailable) -> None:
        """FAILED (retried after RETRY_AFTER_S) or, when the load found that this profile cannot serve the role
        (e.g. a delta trained from another base), UNAVAILABLE."""
        state = UNAVAILABLE if error.state == UNAVAILABLE else FAILED
        entry.state, entry.error, entry.model, entry.failed_at = state, error, None, time.monotonic()

    def unload(self, role: str) -> None:
        entry = self._entry(role)
        with entry.lock:
            if entry.state != READY:
                return
            # Only the registry's reference goes: a request still holding the model finishes with it, and its
            # memory is freed when that request ends (closing it here broke requests in flight under a budget).
            entry.model, entry.state, entry.memory_mb = None, NOT_LOADED, None
        gc.collect()
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except Exception:
            pass

    def _enforce_budget(self, keep: str) -> None:
        budget = self.settings.max_memory_gb
        if not budget:
            return
        while True:
            ready = [(r, e) for r, e in self._entries.items() if e.state == READY]
            used_gb = sum(e.memory_mb or 0.0 for _, e in ready) / 1024
            victims = sorted(((e.last_used, r) for r, e in ready if r != keep and not self._is_dependency(r)))
            if used_gb <= budget or not victims:
                return
            self.unload(victims[0][1])

    def _is_dependency(self, role: str) -> bool:
        """The embedder stays while a head that wraps it is loaded (unloading it would free nothing)."""
        return role == "embedder" and any(
            e.state == READY and e.spec.backend.startswith(("embedding_head", "tiny_head"))
            for e in self._entries.values())

    def status(self) -> list[dict]:
        rows = []
        for role, e in self._entries.items():
            rows.append({
                "role": role,
                "profile": self.profile,
                "model": e.spec.model_id or "—",
                "backend": e.backend or e.spec.backend,
                "state": e.state,
                "available": e.state not in (UNAVAILABLE, FAILED),
                "load_seconds": None if e.load_seconds is None else round(e.load_seconds, 3),
                "memory_mb": None if e.memory_mb is None else round(e.memory_mb, 1),
                "reason": e.error.reason if e.error else "",
                "fix": e.error.fix if e.error else "",
                "note": e.spec.note,
                # every accelerated form tried at load and its verdict on this CPU, the served one last
                "self_check": [v.to_json() for v in getattr(e.model, "checks", ()) or ()],
            })
        return rows


_registry: Registry | None = None
_registry_lock = threading.Lock()
#: held while any role loads (re-entrant: a loader may get another role), taken before the role's own lock, and
#: while the start-up thread imports a model library (`preimport`): two threads importing transformers at once can see
#: it half made ("cannot import name 'BertConfig'")
LOAD_LOCK = threading.RLock()


def get_registry() -> Registry:
    global _registry
    if _registry is None:
        with _registry_lock:
            if _registry is None:
                _registry = Registry()
    return _registry


def set_registry(registry: Registry | None) -> None:
    """Replace the process-wide registry (tests, or a profile switch)."""
    global _registry
    with _registry_lock:
        _registry = registry


@contextlib.contextmanager
def using_registry(registry: Registry):
    """The process-wide registry is `registry` inside the block, the previous one again after it."""
    previous = get_registry()
    set_registry(registry)
    try:
        yield registry
    finally:
        set_registry(previous)


def get(role: str):
    return get_registry().get(role)
