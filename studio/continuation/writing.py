"""The writer's prompt for Continue: the registry's `writer` (the largest offline instruction-tuned LM) is told what
the figure of speech means in the story and asked for the next sentence. The instructions are the blind reader's
failure patterns turned around (docs/continuation.md): follow the meaning, not the words; keep the story's facts;
do not restate the figure, explain it or stack another; be specific. They sit in the system message, which the
llama.cpp form evaluates once and keeps, so a request pays only for its story."""
from __future__ import annotations

import re

from .expression import Expression
from .prompting import narrative_tail

#: the prompt's worked examples: (story, meaning, next sentence)
EXAMPLES = (
    ("Maya had waited all summer for the scholarship letter. When it finally came and she read the first line, she "
     "was as happy as a clam.", "she was very happy.",
     "She ran next door to show her grandmother, waving the letter over her head."),
    ("The twins had promised to clean the garage before dinner, but when their father came home they had bitten off "
     "more than they could chew.", "they had taken on more than they could manage.",
     "Half the boxes were still stacked by the door, and Leo was asleep on a pile of old coats."),
    ("Tom had hidden his bad report card for a week. At dinner his little sister spilled the beans.",
     "she revealed the secret.",
     "Their mother put down her fork and asked Tom to bring her the report card at once."),
)

SYSTEM = (
    "You continue short stories. Each story ends with an idiom or a simile, and you are told what it means there. "
    "Write the one sentence that comes next in the story.\n"
    "Rules:\n"
    "- The idiom or simile is figurative: never take its words literally (no real cats, beans or logs).\n"
    "- Show what happens next as a direct result of what it means: an action, an event or something a character "
    "says or does, with the story's own characters (by name or pronoun), facts, place and mood.\n"
    "- Do not repeat, explain or paraphrase the idiom or simile, and use no other idiom or simile.\n"
    "- No sentence that would fit any story, such as 'He felt a sense of pride.'\n"
    "- One plain sentence of 8 to 25 words. Answer with the sentence only."
    + "".join(f"\n\nExample.\nStory: {story}\nMeaning: {meaning}\nNext sentence: {sentence}"
              for story, meaning, sentence in EXAMPLES)
)


def meaning_line(expr: Expression | None) -> str:
    """What the figure means, as the writer is told it ("" when the lexicon does not know)."""
    if expr is None or not expr.meaning:
        return ""
    meaning = expr.meaning.strip().rstrip(".")
    if expr.kind == "simile" and expr.meaning_source != "lexicon":  # the property it states (else an idiom's sense)
        who = expr.topic.strip() or "it"
        return f"{who} was very {meaning}"
    return meaning


def user_message(narrative: str, expr: Expression | None) -> str:
    lines = [f"Story: {narrative_tail(narrative)}"]
    meaning = meaning_line(expr)
    if meaning:
        lines.append(f"Meaning: {meaning}.")
    lines.append("Next sentence:")
    return "\n".join(lines)


_WORD = re.compile(r"[a-z']+")
#: a new simile: "like a …", "as … as …" (not a connective, "as soon as", "as long as the war lasted", but "as
#: long as a river"; nor a comparison of degree with no image, "as efficiently as possible", "as hard as she could",
#: "as tall as him", "as fast as his legs…": a visitor saw the first flagged; nor "as good as new / done", which
#: means "almost")
_NEW_FIGURE = re.compile(r"\b(?:like (?:a|an|the)|as long as an?\b|"
                         r"as (?!(?:well|soon|long|far|much|many)\b)"
                         r"(?!good as (?:new|dead|done|gone|finished|over|won|lost|certain)\b)"
                         r"\w+ as(?! (?:possible|ever|usual|before|always|"
                         r"expected|planned|i|he|she|they|we|you|it|him|her|them|me|us|his|their|my|our|your|its|"
                         r"could|can|humanly)\b)|felt like)\b", re.I)
#: a bare feeling, the whole sentence: "He felt a sense of pride." fits any story (the committed Continue reads hold
#: it 23 times, never usable; such lines: dev reads 2 of 32 usable against 20 % of the others, report reads 2 of 17)
_STOCK_FEELING = re.compile(r"^(?:\w+'?s? ){1,3}(?:felt|feels|feel) an? (?:sense|feeling) of \w+(?: and \w+)?[.!]?$",
                            re.I)
#: words about the text rather than in the story ("…was a direct result of the idiom.", "The next sentence could be:",
#: the instructions given back for a story of one word): every such line of the committed reads (7) is unusable
_META = re.compile(r"\b(?:similes?|idioms?|figurative|metaphors?|narratives?|next sentence|figure of speech)\b", re.I)
#: words of a figure that say nothing of its image ("as red as a beetroot": as, a)
_FUNCTION = {"a", "an", "the", "as", "like", "of", "to", "in", "on", "at", "out", "up", "off", "and", "or", "his",
             "her", "their", "its", "my", "your", "our", "one", "with", "for", "into", "from", "by", "be", "is", "was",
             "were", "been", "get", "got", "make", "made", "take", "took", "give", "gave", "have", "had", "all", "let",
             "put", "keep", "kept", "go", "went", "come", "came", "turn", "see", "know", "back", "down", "over",
             "it", "he", "she", "they", "you", "we", "him", "them", "own", "very", "so", "too", "just", "than"}


def _stem(word: str) -> str:
    word = _bare(word)
    return word[:5] if len(word) > 5 else word.rstrip("s")


def _bare(word: str) -> str:
    """A word without its possessive ending ("cat's" → "cat", "dogs'" → "dogs")."""
    return word[:-2] if word.endswith("'s") else word.rstrip("'")


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text.lower()))


_EXAMPLE_SENTENCES = {_words(sentence) for _, _, sentence in EXAMPLES}


def ends_a_sentence(text: str) -> bool:
    """A writer sample that ends a sentence (an end mark, then at most closing quotes or brackets); one that does not
    was cut by the token limit."""
    return bool(re.search(r"[.!?][\"')\]]*$", text))


def copies_an_example(sentence: str) -> bool:
    """The writer answered with one of the prompt's own example sentences (it does, for a story close to one:
    "She was as happy as a clam." → Maya's "She ran next door to show her grandmother, …"): another story's line."""
    return _words(sentence) in _EXAMPLE_SENTENCES


def _whole(text: str) -> set[str]:
    """A text's content words, whole (a plural's "s" off)."""
    return {_bare(w).rstrip("s") for w in _WORD.findall(text.lower()) if w not in _FUNCTION and len(w) > 2}


def _compounds(text: str) -> set[str]:
    """Each two neighbouring content words written as one, whole ("dog house" → "doghouse"): a compound is spelt
    either way ("in the dog house", "He's in the doghouse.")."""
    words = [_bare(w) for w in _WORD.findall(text.lower())]
    return {(a + b).rstrip("s") for a, b in zip(words, words[1:])
            if a not in _FUNCTION and b not in _FUNCTION and len(a) > 2 and len(b) > 2}


def _content(text: str) -> set[str]:
    """The stems of a text's words that carry content (no function word, three letters or more)."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _FUNCTION and len(w) > 2}


def slips(sentence: str, narrative: str, expr: Expression | None) -> list[str]:
    """The blind reader's failure patterns a continuation shows, as cheap checks: it reuses the figure's image words
    that the story has nowhere else (a literal reading, or the figure restated: "The cat ran out of the bag"), it
    spells out the figure's meaning in the meaning's own words that the story does not use ("She began to
    improvise." after "…decided to wing it", whose meaning reads "To improvise; …"), or it stacks a new simile
    ("like a fish out of water"), or it is a bare feeling that would fit any story ("He felt a sense of pride."), or
    it talks about the text ("…a direct result of the idiom.").
    why: docs/experiments.md#continuation-meaning-slip, #continuation-stock-feeling, #continuation-meta-slip"""
    found = []
    if expr is not None:
        image = expr.vehicle if expr.kind == "simile" and expr.vehicle else expr.text
        rest = narrative[:expr.start] + " " + narrative[expr.end:]
        elsewhere = {_stem(w) for w in _WORD.findall(rest.lower())}
        said = _content(sentence)
        # a compound spelt either way ("in the dog house", "He's in the doghouse."): whole words, not stems
        besides, line = _whole(rest) | _compounds(rest), _whole(sentence)
        if (_content(image) - elsewhere) & said or (_compounds(image) - besides) & line \
                or (_whole(image) - besides) & _compounds(sentence):
            found.append("reuses the figure's own words")
        if expr.meaning and (_content(expr.meaning) - _content(narrative)) & said:
            found.append("spells out the figure's meaning")
    if _NEW_FIGURE.search(sentence):
        found.append("stacks a new simile")
    if _STOCK_FEELING.match(sentence.strip()):
        found.append("a bare feeling that would fit any story")
    if (meta := _META.search(sentence)) and meta.group().lower() not in narrative.lower():
        found.append("talks about the text, not the story")
    return found
