"""`python -m studio imagine "text a" "text b"`: ImaginE scores for a pair, or for every line of a JSONL file."""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError, StudioError
from ..imagine.service import imagine_pair
from . import add_json_flag
from .batch import Batch, summary_line

BATCH_KEYS = ("text_a", "text_b")
BATCH_OPTIONS = ("seed", "seeds", "steps", "guidance", "size")


def register(sub) -> None:
    p = sub.add_parser("imagine", help="ImaginE: render two texts and compare the imaginations with CLIP",
                       description="Render two texts with the diffusion model and score them with CLIP (ImaginE). "
                                   "Batch mode reads {\"text_a\", \"text_b\"} JSON lines (optionally with seed, seeds, "
                                   "steps, guidance, size) and writes one JSON result per line.")
    p.add_argument("text_a", nargs="?", help="first text (e.g. the literal sentence or the reference)")
    p.add_argument("text_b", nargs="?", help="second text (e.g. the simile or the hypothesis)")
    p.add_argument("--seeds", type=int, default=1, help="number of seeds per text, 1-5 (default 1)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0); seeds are consecutive")
    p.add_argument("--steps", type=int, help="denoising steps (default: the model's)")
    p.add_argument("--guidance", type=float, help="classifier-free guidance (default: the model's)")
    p.add_argument("--size", type=int, help="image side in px, a multiple of 64 (default: the model's)")
    p.add_argument("--out", help="pair mode: folder for the PNGs; batch mode: the output .jsonl file")
    p.add_argument("--batch", metavar="IN.jsonl", help="score every line of this JSONL file")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def run(args) -> dict:
    if args.batch:
        if args.text_a or args.text_b:
            raise InputError("give either two texts or --batch, not both")
        return run_batch(args)
    if not (args.text_a and args.text_b):
        raise InputError('give two texts, e.g. python -m studio imagine "text a" "text b" (or --batch IN.jsonl)')
    return run_pair(args)


def _options(args) -> dict:
    return {"n_seeds": args.seeds, "seed": args.seed, "steps": args.steps, "guidance": args.guidance, "size": args.size}


def run_pair(args) -> dict:
    folder = Path(args.out) if args.out else None
    if folder is not None and folder.exists() and not folder.is_dir():  # said before the rendering, not after it
        raise InputError(f"--out names the folder for the PNGs, and {args.out} is a file")
    result = imagine_pair(args.text_a, args.text_b, **_options(args))
    out = result.as_dict()
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot make the folder {args.out}: {exc.strerror}") from None
        out["images"] = []
        for pair in result.scored.pairs:
            for which, image in (("a", pair.image_a), ("b", pair.image_b)):
                path = folder / f"seed{pair.seed}_{which}.png"
                image.save(path)
                out["images"].append(str(path))
    return out


def _line_options(record: dict, args) -> dict:
    missing = [k for k in BATCH_KEYS if not isinstance(record.get(k), str)]
    if missing:
        raise InputError(f"needs text fields {', '.join(missing)}")
    unknown = set(record) - set(BATCH_KEYS) - set(BATCH_OPTIONS)
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(sorted(unknown))}")
    options = _options(args)
    options.update({("n_seeds" if k == "seeds" else k): record[k] for k in BATCH_OPTIONS if k in record})
    return options


def run_batch(args) -> dict:
    """Every line's pair rendered and scored (`Batch`); a model that is unavailable stops the whole batch instead."""
    batch = Batch(args.batch, args.out)
    for number, record in batch.records():
        try:
            if not isinstance(record, dict):
                raise InputError("is not a JSON object")
            options = _line_options(record, args)  # the text fields checked first
            result = imagine_pair(record["text_a"], record["text_b"], **options)
        except StudioError as exc:
            batch.fail(number, exc)
            continue
        batch.add(number, result.as_dict())
    return batch.finish(args)


def _fmt(stat: dict) -> str:
    return f"{stat['mean']:.3f} ± {stat['std']:.3f}"


def render(result: dict) -> str:
    if "batch" in result:
        return summary_line(result, "pair")
    s, settings = result["summary"], result["settings"]
    lines = [
        f"{result['diffusion_model']} ({settings['steps']} steps, guidance {settings['guidance']:g}, "
        f"{settings['size']} px), {result['clip_model']}, seeds {result['seeds']}",
        f"ImaginE_image       {_fmt(s['imagine_image'])}   (raw image cosine {_fmt(s['image_cosine'])})",
        f"ImaginE_text&image  {_fmt(s['imagine_text_image'])}   (raw text-image cosine {_fmt(s['text_image_cosine'])})",
    ]
    for row in result["augmented"]:
        lines.append(f"{row['metric']:<17} {row['value']:.3f}   + ImaginE_image {row['+ ImaginE_image']:.3f}   "
                     f"+ ImaginE_text&image {row['+ ImaginE_text&image']:.3f}")
    truncated = [k for k, v in result["truncated"].items() if v]
    if truncated:
        lines.append(f"note: {' and '.join(truncated)} exceeded CLIP's token context and were truncated")
    lines += [f"wrote {p}" for p in result.get("images", [])]
    return "\n".join(lines)
