"""Continuing a narrative with one sentence, then generate-then-rank with the plausibility judge. Modes: `writer`
(the default) asks the registry's `writer` (the largest offline LM), told what the figure means (writing.py); `tuned`
samples the generator fine-tuned on the benchmark's plausible continuations (the registry's
`continuation_generator` role: the lm + a LoRA delta), prompted with the narrative's end and the figure's meaning
when the lexicon knows it; `plain` samples the plain lm after the narrative; `literal` / `context` ensemble the
plain lm over the paper's knowledge inferences at decoding time. In writer and tuned modes a pool of samples is
drawn and the best `n` are shown (ranking.py: the writer's by the judge, a restatement of the story's last sentence
moved down); the other modes draw `n` and order them by the judge."""
from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from ..errors import InputError, check_stop
from ..figures.narrative import spelling_notice
from ..models import ModelUnavailable, get_registry
from ..offensive import offensive_words
from .decoding import Sample, ensemble_sample
from .expression import Expression, earlier_idiom, find_expression, mark_notes, untaken_idiom
from .writing import SYSTEM, copies_an_example, ends_a_sentence, user_message
from .knowledge import context_inferences, literal_inferences
from .prompting import generator_prompt, paraphrase_prompt
from .ranking import POOL, copies_the_story, fluency, order, pool_signals, writer_order
from .story import require_story
from ..wording import agreeing, counted

MODES = ("writer", "tuned", "plain", "literal", "context")
LIMITS = {"n": (1, 10), "pool": (1, 32), "top_k": (1, 200), "temperature": (0.0, 2.0), "max_new_tokens": (1, 60)}
#: writer mode: samples drawn for the best n shown, and the tokens a sentence may take (8-25 words)
WRITER_POOL = 6
WRITER_TOKENS = 48


@dataclass
class Settings:
    mode: str = "writer"
    n: int = 3  # continuations shown
    pool: int | None = None  # writer and tuned modes, ranked: samples drawn, of which the best n are shown
    #   (None: the mode's own, WRITER_POOL or POOL)
    seed: int = 0
    top_k: int = 5
    temperature: float = 0.7
    max_new_tokens: int | None = None  # None: the mode's own (WRITER_TOKENS, else 20)
    combine: str = "sum"
    rank: bool = True

    def check(self) -> "Settings":
        if self.mode not in MODES:
            raise InputError(f"Unknown mode {self.mode!r}: choose {', '.join(MODES[:-1])} or {MODES[-1]}.")
        if self.pool in (None, 0):  # None or 0: the mode's own
            self.pool = WRITER_POOL if self.mode == "writer" else POOL
        if self.max_new_tokens in (None, 0):
            self.max_new_tokens = WRITER_TOKENS if self.mode == "writer" else 20
        for name, (lo, hi) in LIMITS.items():
            value = getattr(self, name)
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise InputError(f"{name} must be a number.") from None
            if not lo <= value <= hi:
                own = " (or 0, the mode's own)" if name in ("pool", "max_new_tokens") else ""
                raise InputError(f"{name} must be between {lo} and {hi}{own}, not {value:g}.")
        if self.combine not in ("sum", "mean"):
            raise InputError("combine must be 'sum' or 'mean'.")
        self.n, self.top_k, self.max_new_tokens = int(self.n), int(self.top_k), int(self.max_new_tokens)
        self.pool = int(self.pool)
        self.seed, self.temperature = int(self.seed), float(self.temperature)
        return self

    @property
    def draws(self) -> int:
        """Samples to draw: a pool in writer and tuned modes when ranking (at least n), else n."""
        return max(self.n, self.pool) if self.mode in ("writer", "tuned") and self.rank else self.n


@dataclass
class Ranked:
    text: str
    p_plausible: float | None
    tokens: int
    samples: int = 1  # how many of the n samples gave this same continuation
    cut: bool = False  # the token limit came before its sentence ended
    fluency: float | None = None  # the plain lm's mean log-probability per token after the narrative (tuned mode)
    restating: float | None = None  # cosine with the story's last sentence (writer mode's order: ranking.py)
    slipped: bool = False  # writer mode: a slip of writing.slips (the figure's words, its meaning spelt out, …)
    slips: list[str] = field(default_factory=list)  # which of them (writing.slips' words: "stacks a new simile")


@dataclass
class Result:
    narrative: str
    expression: dict | None
    mode: str
    inferences: list[str]
    continuations: list[Ranked]
    settings: dict
    seconds: float
    judge: str = ""
    notes: list[str] = field(default_factory=list)
    shortfall: list[str] = field(default_factory=list)  # what was delivered short of the request, and why
    drawn: int = 0  # samples drawn (the pool in tuned mode)
    distinct: int = 0  # distinct continuations among them, before the best n were kept

    def to_dict(self) -> dict:
        return asdict(self)


def prompts_for(narrative: str, inferences: list[str]) -> list[str]:
    """One prompt per inference, "inference ⟨sep⟩ narrative": the inference as a bracketed note line."""
    return [f"({inf.strip().rstrip('.')}.)\n{narrative}" for inf in inferences] or [narrative]


def ended_sentence(text: str) -> str:
    """The narrative with a full stop when its last sentence has no end mark, so that the next sentence is what a
    model continues with, not the end of this one: "…high and dry" → "…high and dry.", "He waited," → "He waited.";
    a closing quote or bracket ends it only after an end mark ('She said "no!"', not 'He said "no"')."""
    text = text.rstrip()
    if re.search(r"[.!?…][\"'”’)\]]*$", text) or not text:
        return text
    return text.rstrip(",;:-–— ") + "."


def merge_identical(samples) -> list[Ranked]:
    """One row per distinct continuation, in order of first appearance, counting its samples: summing a dozen
    prompts' logits sharpens the distribution, so literal and context samples often coincide, and the judge
    would otherwise split its probability between copies of one sentence."""
    merged: dict[str, Ranked] = {}
    for x in samples:
        # one sentence with and without its closing quote ('He said, "I am God."' and '…God.') is one row, written
        # with its quotes closed where a sample closed them
        key = _QUOTES.sub("", x.text).strip()
        if key in merged:
            row = merged[key]
            row.samples += 1
            if _open_quote(row.text) and not _open_quote(x.text):
                row.text, row.tokens, row.cut = x.text, x.tokens, not getattr(x, "complete", True)
        else:
            merged[key] = Ranked(x.text, None, x.tokens, cut=not getattr(x, "complete", True))
    return list(merged.values())


_QUOTES = re.compile(r"[\"“”]")


def _open_quote(text: str) -> bool:
    """A double quotation left open: an odd number of straight quotes, or more opening curly quotes than closing."""
    return text.count('"') % 2 == 1 or text.count("“") > text.count("”")


def inferences_for(mode: str, narrative: str, expr: Expression | None, seed: int) -> list[str]:
    if mode in ("plain", "tuned"):
        return []
    if mode == "literal":
        if expr is None:
            raise InputError("Literal mode needs an idiom or a simile, and none was found: mark it with [ ] "
                             "(e.g. 'she was [as cool as a cucumber]').")
        return literal_inferences(expr, seed=seed)
    return context_inferences(narrative, seed=seed)


def continue_narrative(narrative: str, settings: Settings | None = None, *, inferences: list[str] | None = None,
                       progress=None, should_stop=None) -> Result:
    """`progress(fraction, what)` follows the work (inferences, every decoding step, the judge); `should_stop()` is
    polled at each step and ends the job with `Stopped`. Plain callables, no UI."""
    def step(fraction: float, what: str) -> None:
        check_stop(should_stop, "Continuing")
        if progress is not None:
            progress(fraction, what)

    started = time.perf_counter()
    s = (settings or Settings()).check()
    raw = require_story(narrative)
    step(0.01, "finding the idiom or simile")
    text, expr = find_expression(raw)
    ended = ended_sentence(text)  # what the small models continue: "…high and dry" would get ". I was sad." first
    notes = [note + "." for note in mark_notes(raw)]
    if typos := spelling_notice(raw):  # a notice: the models read it as typed
        notes.append(typos)
    if expr is None and (held := untaken_idiom(text)):
        notes.append(f"“{held}”, which ends the story, is a Wiktionary idiom that is mostly read literally, so it was "
                     f"not taken: mark it, “[{held}]”, to continue from its idiomatic meaning.")
    if expr is None and (earlier := earlier_idiom(text)):  # beside a held-back one: "…flying colors. Then she went
        # home." names both
        notes.append(f"“{earlier}”, earlier in the story, is an idiom, but Continue reads the figure a story ends "
                     f"with: mark it, “[{earlier}]”, to continue from its meaning.")
    lm, prompts, used, guess, samples = None, None, [], "", None
    if s.mode == "writer":
        try:
            step(0.1, "writing")
            samples = write(ended, expr, s, progress=progress, should_stop=should_stop)
            if expr is not None and not expr.meaning:
                notes.append((f"no meaning of “{expr.text}” is known to the lexicon" if expr.kind == "idiom" else
                              f"“{expr.text}” does not say in what way the two are alike") +
                             ": the writer model reads it on its own.")
        except ModelUnavailable as exc:
            notes.append(f"the writer model is not available ({exc.reason}); the tuned generator continued instead")
            s.mode, s.pool, s.max_new_tokens = "tuned", POOL, 20
    if s.mode == "tuned":
        try:
            lm = get_registry().get("continuation_generator")
            known = expr is not None and bool(expr.meaning)
            prompts = [generator_prompt(ended, expr.text, expr.meaning) if known else generator_prompt(ended)]
            if expr is not None and not known:
                unknown = (f"no meaning of “{expr.text}” is known to the lexicon" if expr.kind == "idiom"
                           else f"“{expr.text}” states no property") + ": the generator continues without one"
                if expr.kind == "idiom":
                    step(0.05, "paraphrasing the idiom")
                    guess = model_paraphrase(lm, text, expr.text)
                if guess:  # shown, never used: neither the generator nor the judge is given it
                    unknown += ("; the meaning shown is its own paraphrase, a guess (often wrong), given to neither "
                                "the continuation nor the judge")
                notes.append(unknown + ".")
        except ModelUnavailable as exc:
            notes.append(f"the fine-tuned generator is not available ({exc.reason}); the plain lm continued instead")
    if lm is None and samples is None:
        lm = get_registry().get("lm")
        if s.mode not in ("plain", "tuned") and inferences is None:
            step(0.04, f"drawing {s.mode} inferences")
        used = list(inferences) if inferences is not None else inferences_for(s.mode, text, expr, s.seed)
        if s.mode not in ("plain", "tuned") and not used:
            raise InputError(f"No {s.mode} inferences could be drawn for this narrative; try the plain mode.")
        prompts = prompts_for(ended, used)
    if samples is None:
        step(0.1, "decoding")
        samples = ensemble_sample(lm, prompts, n_samples=s.draws, max_new_tokens=s.max_new_tokens,
                                  top_k=s.top_k, temperature=s.temperature, no_repeat_ngram_size=3, seed=s.seed,
                                  stop_at_sentence_end=True, combine=s.combine, shared_text=ended,
                                  progress=None if progress is None else (
                                      lambda f, what: progress(0.1 + 0.8 * f, what)),
                                  should_stop=should_stop)
    step(0.92, "ranking with the plausibility judge")
    worded = [x for x in samples if any(ch.isalpha() for ch in x.text)]  # ". …" is no continuation
    wordless, samples = len(samples) - len(worded), worded
    for x in samples:  # a sentence of its own: "he was so proud." after a story typed in lower case
        x.text = x.text[:1].upper() + x.text[1:]
    ranked = merge_identical(samples)
    bad = [bool(offensive_words(r.text)) for r in ranked]  # the small models learned from old books too
    dropped = sum(r.samples for r, b in zip(ranked, bad) if b)
    unwritten = max(0, s.draws - len(samples) - wordless)  # empty, or the writer prompt's own example (`write`)
    ranked = [r for r, b in zip(ranked, bad) if not b]
    copied = [copies_the_story(text, r.text) for r in ranked]  # a visitor was offered a sentence of their story
    copies = sum(r.samples for r, c in zip(ranked, copied) if c)
    ranked = [r for r, c in zip(ranked, copied) if not c]
    judge_name, distinct = "", len(ranked)
    if s.rank and len(ranked) >= 1:
        from .judge import get_judge

        judge, probs = get_judge(), None
        if judge is None:
            notes.append("the plausibility judge is not trained: run python -m studio train judge")
        else:
            probs = judge.rank(text, [r.text for r in ranked], expr)
            judge_name = judge.name
        if s.mode == "writer":  # the best n of the writer's pool by the judge (without one, alike), a sentence
            # that restates the story's last one moved down, slips and cut ones last (ranking.writer_order)
            found, restates = pool_signals(text, expr, [r.text for r in ranked], _embedder(notes))
            for i, r in enumerate(ranked):
                r.slipped, r.slips = bool(found[i]), found[i]
                r.restating = None if restates is None else round(restates[i], 4)
            best = writer_order(probs if probs is not None else [1.0] * len(ranked), [r.cut for r in ranked], found,
                                restates)[: s.n]
            ranked = [ranked[i] for i in best]
            if probs is not None:
                probs = np.asarray(probs)[best]
                probs = probs / probs.sum()
        elif s.draws > s.n:  # the pool: the best n by fluency and the judge (ranking.py)
            step(0.96, "ranking by fluency")
            for r, f in zip(ranked, fluency(get_registry().get("lm"), ended, [r.text for r in ranked])):
                r.fluency = round(float(f), 4)
            best = order([r.fluency for r in ranked], probs, [r.cut for r in ranked])[: s.n]
            ranked = [ranked[i] for i in best]
            if probs is not None:
                probs = np.asarray(probs)[best]
                probs = probs / probs.sum()  # shared among the continuations shown
        elif probs is not None:
            best = sorted(range(len(ranked)), key=lambda i: -probs[i])
            ranked, probs = [ranked[i] for i in best], np.asarray(probs)[best]
        if probs is not None and len(ranked) > 1:
            for r, p in zip(ranked, probs):
                r.p_plausible = float(p)
        elif probs is not None and ranked:  # a share among one is 100 %, which says nothing (a visitor read it so)
            notes.append("only one continuation is shown, so no plausibility is given: it is a share among the "
                         "continuations shown, and a share among one is always 100 %.")
    shown = expr.to_dict() if expr else None
    if shown is not None and guess:
        shown.update(meaning=guess, meaning_source="model")
    return Result(narrative=text, expression=shown, mode=s.mode, inferences=used,
                  continuations=ranked, settings=asdict(s), seconds=round(time.perf_counter() - started, 3),
                  judge=judge_name, notes=notes,
                  shortfall=shortfall_lines(ranked, s, dropped, distinct, unwritten, wordless, copies),
                  drawn=s.draws, distinct=distinct)


def _embedder(notes: list[str]):
    """The registry's embedder for writer mode's order (ranking.restating), or None (and a note) when it cannot
    serve: the judge alone orders the pool then."""
    try:
        return get_registry().get("embedder")
    except ModelUnavailable as exc:
        notes.append(f"the embedder is not available ({exc.reason}); the judge alone ordered the continuations.")
        return None


def write(narrative: str, expr: Expression | None, s: Settings, progress=None, should_stop=None) -> list[Sample]:
    """s.draws samples of the registry's `writer`, told what the figure means (writing.py), each one sentence."""

    writer = get_registry().get("writer")
    tokens = [0] * s.draws

    def grown(i: int, text: str) -> None:
        check_stop(should_stop, "Continuing")
        tokens[i] += 1
        if progress is not None:
            progress(0.1 + 0.8 * min(1.0, sum(tokens) / (s.draws * s.max_new_tokens * 0.6)),
                     f"writing {s.draws} sentences")

    gens = writer.reply(SYSTEM, user_message(narrative, expr), n=s.draws, max_new_tokens=s.max_new_tokens,
                        top_k=s.top_k, temperature=s.temperature, seed=s.seed, stop_at_sentence_end=True,
                        stop_at_newline=True, on_text=grown)
    out = []
    for g in gens:
        text = g.text.strip()
        if len(text) > 1 and text[0] == text[-1] == '"' and text.count('"') == 2:  # the whole answer quoted
            text = text[1:-1].strip()
        if text.lower().startswith("next sentence:"):
            text = text[len("next sentence:"):].strip()
        if text and not copies_an_example(text):  # another story's line, from the prompt
            out.append(Sample(text=text, tokens=g.new_tokens, complete=ends_a_sentence(text)))
    return out


#: tokens of an idiom paraphrase
PARAPHRASE_TOKENS = 16


_PARAPHRASES: dict[tuple[str, str], str] = {}  # (model id, prompt) -> paraphrase: greedy, so the same every time
_PARAPHRASES_KEPT = 256


def model_paraphrase(lm, narrative: str, expression: str) -> str:
    """The generator's own reading of an idiom in this narrative (greedy: the same text every time, so it is
    kept per model and prompt), one sentence without a final stop, or "" when it writes nothing usable."""
    model_id = getattr(lm, "model_id", None)
    if not model_id:
        return _paraphrase(lm, narrative, expression)
    key = (str(model_id), paraphrase_prompt(narrative, expression))
    if key not in _PARAPHRASES:
        if len(_PARAPHRASES) >= _PARAPHRASES_KEPT:
            _PARAPHRASES.pop(next(iter(_PARAPHRASES)))
        _PARAPHRASES[key] = _paraphrase(lm, narrative, expression)
    return _PARAPHRASES[key]


def _paraphrase(lm, narrative: str, expression: str) -> str:
    sample = ensemble_sample(lm, [paraphrase_prompt(narrative, expression)], max_new_tokens=PARAPHRASE_TOKENS,
                             temperature=0.0, no_repeat_ngram_size=3, stop_at_sentence_end=True)[0]
    text = sample.text.strip().strip('"').strip().rstrip(".").strip()
    if not sample.complete or len(text.split()) < 2 or expression.lower().strip() in text.lower():
        return ""  # cut short, a single word, or the idiom restated
    return text


def shortfall_lines(ranked: list[Ranked], s: Settings, dropped: int = 0, distinct: int | None = None,
                    unwritten: int = 0, wordless: int = 0, copies: int = 0) -> list[str]:
    """What the visitor gets short of the request, and why: fewer distinct continuations than asked (repeats,
    `dropped` ones with a slur or an obscenity, `unwritten` ones the writer left empty or copied from its prompt's
    example, and `copies` of a sentence of the story, among the samples drawn), and continuations the token limit cut
    before their sentence ended. `distinct`: the distinct clean samples before the best n were kept."""
    lines = []
    distinct = len(ranked) if distinct is None else distinct

    if len(ranked) < s.n:
        repeats = s.draws - distinct - dropped - unwritten - wordless - copies
        why = [f"{dropped} held a slur or an obscenity and {agreeing(dropped, 'was', 'were')} dropped"] \
            if dropped else []
        why += [f"{copies} repeated a sentence of the story and {agreeing(copies, 'was', 'were')} dropped"] \
            if copies else []
        why += [f"{wordless} had no words (only punctuation) and {agreeing(wordless, 'was', 'were')} dropped"] \
            if wordless else []
        why += [f"{unwritten} {agreeing(unwritten, 'was', 'were')} empty or repeated the writer's own example and "
                f"{agreeing(unwritten, 'was', 'were')} dropped"] if unwritten else []
        why += [f"{repeats} repeated one already listed (the downloads' samples column counts "
                f"{agreeing(repeats, 'it', 'them')})"] if repeats > 0 else []
        drawn = f"the {s.draws} samples drawn for the {s.n} asked" if s.draws > s.n else f"the {s.n} samples asked"
        lines.append(f"{counted(len(ranked), 'distinct continuation')} from {drawn}: of the others, "
                     + " and ".join(why) + ". A higher temperature or top-k gives more variety.")
    # a sample also ends unfinished where the model wrote a new line or stopped before its sentence's end ("He
    # said:" then a new line): not the token limit, and more tokens would not finish it
    limited = sum(r.cut and r.tokens >= s.max_new_tokens for r in ranked)
    broken = sum(r.cut and r.tokens < s.max_new_tokens for r in ranked)
    if limited:
        lines.append(f"{counted(limited, 'continuation')} reached the limit of {s.max_new_tokens} new tokens before "
                     f"{agreeing(limited, 'its', 'their')} sentence ended; {agreeing(limited, 'it is', 'they are')} "
                     "shown cut, ending in “…”. Raise Max new tokens for whole sentences.")
    if broken:
        lines.append(f"{counted(broken, 'continuation')} ended before {agreeing(broken, 'its', 'their')} sentence "
                     f"did (a new line or the model's own stop, after fewer than {s.max_new_tokens} new tokens); "
                     f"{agreeing(broken, 'it is', 'they are')} shown ending in “…”.")
    return lines
