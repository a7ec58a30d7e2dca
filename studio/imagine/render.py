"""Rendering the imaginations through the registry's `diffusion` role, with the on-disk cache in front.

Cache hits are resolved first, so only the missing images reach the (GPU) pipeline. On a ZeroGPU
Space each image is rendered by a function wrapped with `spaces.GPU` (one image per call, well within
its default 60 s); elsewhere that package is absent and the role renders directly (the registry already
picked CUDA or CPU).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Sequence

from ..errors import InputError, StudioError
from ..models import RenderDefaults, get_registry
from .cache import ImageCache, render_key

MAX_SEEDS = 5
MIN_SIZE, MAX_SIZE, SIZE_STEP = 64, 768, 64  # SD's UNet needs sides divisible by 64 (8 from the VAE x 8 from the UNet)
MAX_GUIDANCE = 20.0
MAX_SEED = 2**31 - 1

Progress = Callable[[float, str], None]


class RenderCancelled(StudioError):
    def __init__(self):
        super().__init__("Rendering was stopped before it finished.")


@dataclass(frozen=True)
class RenderSettings:
    steps: int
    guidance: float
    size: int

    def as_dict(self) -> dict:
        return asdict(self)


def resolve_settings(defaults: RenderDefaults, steps=None, guidance=None, size=None) -> RenderSettings:
    """The model's defaults where a value is missing (None or 0 for steps/size), limits enforced."""
    steps = defaults.steps if steps in (None, 0, "") else steps
    size = defaults.size if size in (None, 0, "") else size
    guidance = defaults.guidance if guidance in (None, "") else guidance
    steps, size, guidance = _checked(steps, size, guidance)
    if not 1 <= steps <= defaults.max_steps:
        raise InputError(f"Steps must be between 1 and {defaults.max_steps} for this model (got {steps}).")
    return RenderSettings(steps, guidance, size)


def check_request(steps=None, guidance=None, size=None) -> None:
    """The limits that hold for every model, checked on what was given before a model loads (`imagine --size 100`
    was answered "the diffusion model is unavailable" where it is, and refused for its size only where it is not)."""
    _checked(1 if steps in (None, 0, "") else steps, MIN_SIZE if size in (None, 0, "") else size,
             0.0 if guidance in (None, "") else guidance)


def _checked(steps, size, guidance) -> tuple[int, int, float]:
    try:
        steps, size, guidance = int(steps), int(size), float(guidance)
    except (TypeError, ValueError):
        raise InputError("Steps and size must be whole numbers and guidance a number.") from None
    if steps < 1:
        raise InputError(f"Steps must be at least 1 (got {steps}).")
    if not (MIN_SIZE <= size <= MAX_SIZE and size % SIZE_STEP == 0):
        raise InputError(f"Size must be a multiple of {SIZE_STEP} between {MIN_SIZE} and {MAX_SIZE} px (got {size}).")
    if not 0.0 <= guidance <= MAX_GUIDANCE:
        raise InputError(f"Guidance must be between 0 and {MAX_GUIDANCE:g} (got {guidance:g}).")
    return steps, size, guidance


def seed_list(seed, n_seeds) -> list[int]:
    """n consecutive seeds from `seed`; both texts of a pair share each seed, so pairs differ in text only."""
    try:
        seed, n_seeds = int(seed), int(n_seeds)
    except (TypeError, ValueError):
        raise InputError("The seed and the number of seeds must be whole numbers.") from None
    if not 1 <= n_seeds <= MAX_SEEDS:
        raise InputError(f"The number of seeds must be between 1 and {MAX_SEEDS} (got {n_seeds}).")
    if not 0 <= seed <= MAX_SEED - MAX_SEEDS:
        raise InputError(f"The seed must be between 0 and {MAX_SEED - MAX_SEEDS:,} (got {seed}).")
    return [seed + i for i in range(n_seeds)]


try:  # present on Hugging Face Spaces, where @spaces.GPU borrows a ZeroGPU for the call (a no-op elsewhere)
    import spaces
except ImportError:
    spaces = None


def _render_in_gpu_worker(text: str, seed: int, steps: int, guidance: float, size: int):
    """Picklable arguments only: on ZeroGPU this runs in a worker process, which takes the model from its registry."""
    return get_registry().get("diffusion").render(text, seed=seed, steps=steps, guidance=guidance, size=size)


if spaces is not None:
    _render_in_gpu_worker = spaces.GPU(_render_in_gpu_worker)


def _render_one(diffusion, text: str, seed: int, settings: RenderSettings, on_step):
    if spaces is not None:  # callbacks cannot cross into the GPU worker: progress and Stop act per image there
        return _render_in_gpu_worker(text, seed, settings.steps, settings.guidance, settings.size)
    return diffusion.render(text, seed=seed, steps=settings.steps, guidance=settings.guidance, size=settings.size,
                            on_step=on_step)


def _run_pipeline(diffusion, jobs: list[tuple[str, int]], settings: RenderSettings, on_image_step, on_image,
                  should_stop):
    images = []
    for index, (text, seed) in enumerate(jobs):
        if should_stop():
            raise RenderCancelled()

        def on_step(i, n, index=index):
            if should_stop():
                raise RenderCancelled()  # raised inside the pipeline's step callback: stops mid-image
            on_image_step(index, i, n)

        image = _render_one(diffusion, text, seed, settings, on_step)
        on_image(index, image)  # cached at once, so a stopped job keeps what it finished
        images.append(image)
    return images


@dataclass
class RenderReport:
    images: dict  # (text, seed) -> PIL image
    cache_hits: int
    rendered: int
    render_seconds: float


def render_all(diffusion, texts: Sequence[str], seeds: Sequence[int], settings: RenderSettings, *,
               cache: ImageCache | None = None, progress: Progress | None = None,
               should_stop: Callable[[], bool] | None = None) -> RenderReport:
    """Every (text, seed) image, from the cache where possible; `progress(fraction, description)`."""
    import time

    cache = cache or ImageCache.default()
    should_stop = should_stop or (lambda: False)
    progress = progress or (lambda fraction, desc: None)
    wanted = list(dict.fromkeys((text, seed) for text in texts for seed in seeds))
    images, missing = {}, []
    for text, seed in wanted:
        key = render_key(diffusion.model_id, text, seed, settings.steps, settings.guidance, settings.size)
        hit = cache.get(key)
        if hit is None:
            missing.append((text, seed, key))
        else:
            images[(text, seed)] = hit
    done = len(images)
    progress(done / len(wanted), f"{done} of {len(wanted)} images from the cache")

    def on_image_step(index, step, n_steps):
        progress((done + index + step / n_steps) / len(wanted),
                 f"rendering image {done + index + 1} of {len(wanted)} (step {step}/{n_steps})")

    def on_image(index, image):
        cache.put(missing[index][2], image)

    start = time.perf_counter()
    if missing:
        rendered = _run_pipeline(diffusion, [(t, s) for t, s, _ in missing], settings, on_image_step, on_image,
                                 should_stop)
        images.update({(text, seed): image for (text, seed, _), image in zip(missing, rendered)})
    progress(1.0, "rendered")
    return RenderReport(images, done, len(missing), time.perf_counter() - start)
