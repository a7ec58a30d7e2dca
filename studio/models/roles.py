"""The small typed interface of each role. Capability code sees these, never raw model objects
(except `LanguageModel.tokenizer`, whose token ids custom decoding such as the logit ensemble works with)."""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

NLI_LABELS = ("entailment", "neutral", "contradiction")


class Role(ABC):
    role: str = ""
    #: short human-readable description of what produced the numbers ("MiniLM head", "VADER", ...)
    backend: str = ""
    model_id: str = ""
    #: the self-checks of the accelerated forms tried when this role loaded (studio/models/selfcheck.py), the
    #: served form's last; empty when it is served as its weights are (float32, or a model with no fast form)
    checks: tuple = ()

    def close(self) -> None:
        """Drop references to heavy objects so that unloading frees memory."""


class Embedder(Role):
    role = "embedder"
    dim: int = 0

    @property
    def cache_key(self) -> str:
        """What embeddings cached on disk are filed under: the weights and how they are served (the same weights in
        int8 or bfloat16 give slightly different vectors)."""
        return f"{self.model_id}|{self.backend}"

    @abstractmethod
    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """L2-normalized float32 matrix of shape (len(texts), dim)."""


@dataclass
class Generation:
    text: str
    prompt: str
    new_tokens: int


class LanguageModel(Role):
    role = "lm"
    model = None
    tokenizer = None
    device = "cpu"

    @abstractmethod
    def generate(
        self,
        prompts: Sequence[str],
        *,
        max_new_tokens: int = 20,
        top_k: int = 5,
        temperature: float = 0.7,
        no_repeat_ngram_size: int = 3,
        num_return_sequences: int = 1,
        seed: int = 0,
        logits_processor=None,
        stop_at_sentence_end: bool = False,
    ) -> list[list[Generation]]:
        """Sample continuations; one list of `num_return_sequences` per prompt."""

    @abstractmethod
    def loglik(self, contexts: Sequence[str], continuations: Sequence[str], batch_size: int = 16) -> list[tuple[float, int]]:
        """(sum of log-probabilities, number of tokens) of each continuation given its context."""

    def loglik_shared(self, context: str, continuations: Sequence[str],
                      score_last: Sequence[int] | None = None) -> list[tuple[float, int]]:
        """`loglik` of many continuations of one context (models compute the context once). With `score_last`, only
        the last score_last[i] tokens of continuation i are summed (and counted); the tokens before them are read as
        context — one pass gives log P(vehicle | context + words before it)."""
        if score_last is not None:
            raise NotImplementedError(f"{type(self).__name__} cannot score the last tokens only")
        return self.loglik([context] * len(continuations), list(continuations))

    def loglik_many(self, asks: Sequence[tuple[str, Sequence[str], Sequence[int] | None]]) -> list[list[tuple[float, int]]]:
        """`loglik_shared` of several (context, continuations, score_last) asks, one list per ask; models that can
        compute several contexts in one pass do (the llama.cpp form: one decode instead of two per ask)."""
        return [self.loglik_shared(context, conts, score_last=last) for context, conts, last in asks]

    def sample_shared(self, context: str, n: int, *, max_new_tokens: int = 8, top_k: int = 30,
                      temperature: float = 0.8, seed: int = 0, stop: str = "\n", until: tuple[str, ...] = (),
                      on_step=None) -> list[str]:
        """n seeded samples continuing one context, each cut at `stop`; a backend that decodes step by step also
        ends a row once its text contains one of `until` (the text is kept and the caller cuts: `until` saves
        decoding, and changes other rows only where a backend's arithmetic depends on the batch, as llama.cpp's);
        `on_step(done, steps)` after each decoding step (here, where generate() decodes in one call, once at the end,
        and `until` saves nothing)."""
        gens = self.generate([context], max_new_tokens=max_new_tokens, top_k=top_k, temperature=temperature,
                             no_repeat_ngram_size=0, num_return_sequences=n, seed=seed)[0]
        if on_step is not None:
            on_step(int(max_new_tokens), int(max_new_tokens))
        return [g.text.split(stop, 1)[0] if stop else g.text for g in gens]

    def ensemble(self, prompt_ids: list[list[int]], n: int, combine: str, max_new_tokens: int = 64):
        """A context manager giving (first, step) for the logit ensemble of continuation/decoding.py: first = the
        combined ("sum" or "mean") next-token logits, a (n, vocab) tensor, of the m prompts for each of n samples;
        step(next_ids) feeds sample s's token to its m prompts and returns the new combined logits; at most
        `max_new_tokens` steps."""
        raise NotImplementedError(f"{type(self).__name__} has no logit ensemble")

    def reply(self, system: str, user: str, *, n: int = 1, max_new_tokens: int = 40, top_k: int = 40,
              temperature: float = 0.8, seed: int = 0, stop_at_sentence_end: bool = False,
              stop_at_newline: bool = False, on_text=None) -> list[Generation]:
        """n seeded samples of the assistant's answer to a system + user message (the chat template applied).
        `on_text(i, text)` is called as sample i grows; models that stream call it per token, others once."""
        prompt = "".join(split_chat_prompt(self.tokenizer, system, user))
        greedy = not temperature or temperature <= 0  # one greedy answer, the same for every sample
        gens = self.generate([prompt], max_new_tokens=max_new_tokens, top_k=top_k, temperature=temperature,
                             no_repeat_ngram_size=0, num_return_sequences=1 if greedy else n, seed=seed)[0]
        gens = gens * n if greedy else gens
        out = []
        for i, g in enumerate(gens):
            text = g.text.strip().split("\n", 1)[0].strip() if stop_at_newline else g.text.strip()
            text = cut_sentence_outside_quotes(text) if stop_at_sentence_end else text
            out.append(Generation(text=text, prompt=prompt, new_tokens=g.new_tokens))
            if on_text is not None:
                on_text(i, text)
        return out

    def chat(self, user_message: str, system: str | None = None) -> str:
        """The model's chat template applied to one user turn, ready for generation."""
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user_message}]
            return tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return (system + "\n" if system else "") + user_message + "\n"


def scored_tails(conts: Sequence[Sequence[int]], score_last: Sequence[int] | None) -> list[int]:
    """How many final tokens of each tokenized continuation `loglik_shared` sums: all of them, or score_last[i]
    clamped to 0 … its length."""
    if score_last is None:
        return [len(c) for c in conts]
    if len(score_last) != len(conts):
        raise ValueError("score_last and continuations differ in length")
    return [max(0, min(int(k), len(c))) for k, c in zip(score_last, conts)]


class NLIModel(Role):
    role = "nli"

    @abstractmethod
    def predict(self, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """(n, 3) probabilities in the order of NLI_LABELS: entailment, neutral, contradiction."""


class SentimentModel(Role):
    role = "sentiment"

    @abstractmethod
    def p_positive(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """P(positive) for each text, float array of shape (n,)."""


@dataclass
class TextFeatures:
    features: np.ndarray  # (n, d) L2-normalized
    truncated: list[bool]  # True where the text exceeded the context length


class ClipModel(Role):
    role = "clip"
    context_length: int = 77

    @abstractmethod
    def encode_text(self, texts: Sequence[str]) -> TextFeatures: ...

    @abstractmethod
    def encode_image(self, images: Sequence) -> np.ndarray:
        """(n, d) L2-normalized features of PIL images."""


@dataclass(frozen=True)
class RenderDefaults:
    steps: int
    guidance: float
    size: int
    max_steps: int = 100


class DiffusionModel(Role):
    role = "diffusion"
    defaults: RenderDefaults = RenderDefaults(steps=4, guidance=0.0, size=512)

    @abstractmethod
    def render(
        self,
        prompt: str,
        *,
        seed: int,
        steps: int | None = None,
        guidance: float | None = None,
        size: int | None = None,
        on_step: Callable[[int, int], None] | None = None,
    ):
        """One PIL image; identical for identical arguments."""


class LanguageIdentifier(Role):
    """Which language a text is written in, among LANGUAGES (English and the Latin-script languages a visitor is
    likeliest to type by mistake)."""
    role = "language"
    #: ISO 639-1 code -> the name a message shows
    LANGUAGES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "nl": "Dutch",
                 "pt": "Portuguese"}

    @abstractmethod
    def classify(self, text: str) -> tuple[str, float]:
        """(code, probability) of the likeliest language of LANGUAGES; the probabilities over them sum to 1."""


class SpellingDictionary(Role):
    """Which words of English a dictionary knows, and the likeliest known word for one it does not (a typo's
    correction)."""
    role = "spelling"

    @abstractmethod
    def known(self, word: str) -> bool:
        """Whether the dictionary knows the (lower-case) word."""

    def correction(self, word: str) -> str | None:
        """The likeliest known word one edit from the (lower-case) word, or None (one edit keeps it fast: two edits
        of a long word are hundreds of thousands of candidates); one that keeps the word's first letter, or swaps two
        neighbouring letters back, before any other."""
        found = self.candidates(word)
        return found[0] if found else None

    @abstractmethod
    def candidates(self, word: str) -> list[str]:
        """The known words a (lower-case) word not known may stand for, likeliest first by frequency: one edit from
        it, those that keep its first letter or swap two neighbouring letters back before (and instead of) any
        other; the word itself when known; [] for none."""


class Parser(Role):
    role = "parser"
    nlp = None

    def __call__(self, text: str, disable: Sequence[str] = ()):
        return self.nlp(text, disable=self._present(disable))

    def pipe(self, texts: Sequence[str], batch_size: int = 64, disable: Sequence[str] = ()):
        """`disable`: pipeline components a caller does not read (e.g. "ner"), skipped for speed; a name the
        pipeline lacks is ignored."""
        return self.nlp.pipe(texts, batch_size=batch_size, disable=self._present(disable))

    def _present(self, names: Sequence[str]) -> list[str]:
        return [n for n in names if n in self.nlp.pipe_names]


def split_chat_prompt(tokenizer, system: str, user: str) -> tuple[str, str]:
    """(prefix, rest): the chat template's text for a system and a user message, cut where the system part ends
    (a fixed prefix a model may evaluate once and keep); ("", whole) when the template does not render the system
    part first, and the plain "system\n\nuser\n" without a template."""
    if not getattr(tokenizer, "chat_template", None):
        return "", f"{system}\n\n{user}\n"
    try:
        whole = tokenizer.apply_chat_template([{"role": "system", "content": system},
                                               {"role": "user", "content": user}],
                                              tokenize=False, add_generation_prompt=True)
        alone = tokenizer.apply_chat_template([{"role": "system", "content": system}], tokenize=False)
    except Exception:  # noqa: BLE001 - a template that refuses a system turn (Gemma's): one user turn
        return "", tokenizer.apply_chat_template([{"role": "user", "content": f"{system}\n\n{user}"}],
                                                 tokenize=False, add_generation_prompt=True)
    if alone and whole.startswith(alone):
        return alone, whole[len(alone):]
    return "", whole


_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*(?=\s|$)")


def cut_sentence_outside_quotes(text: str) -> str:
    """The text up to its first sentence end that is not inside an open double quote ("I can't believe it! …" goes
    on to the quote's end) nor a title's full stop ("Mrs."); the whole text when none."""
    for m in _SENTENCE_END.finditer(text):
        head, after = text[: m.end()], text[m.end():].lstrip()[:1]
        if head.count('"') % 2 == 0 and not _ABBREVIATION.search(head) and not after.islower():
            return head  # ('"Run!" she shouted.' goes on: a lower-case word continues the sentence)
    return text


#: a full stop that ends a title, not a sentence ("Mrs. Lee")
_ABBREVIATION = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Mt|Prof|Jr|Sr)\.$")
