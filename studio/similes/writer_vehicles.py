"""The writer source of Polish: the registry's `writer` (the largest offline instruction-tuned LM) proposes the images
for a slot. It is told the sentence, where the comparison goes and what it compares (the adjective, or the action),
and the blind reader's rules (docs/similes.md): the image must be known for that very property, fit the mood, be
an image and not a person of the scene, and not restate the sentence. The writer may be steered to a domain of
images and a register. Its lists come back best first; the realiser (realiser.py) puts each image in the slot."""
from __future__ import annotations

import re

#: the domains of images a writer may ask for ("any": no constraint)
DOMAINS = ("any", "nature", "animals", "weather", "objects and machines", "food", "places", "people and roles",
           "the sea", "music and sound")
REGISTERS = ("plain", "literary")
#: images per list, and lists drawn at once (each its own sequence; their images are merged, first places first)
PER_LIST = 5
LISTS = 3
TEMPERATURE = 0.5

SYSTEM = (
    "You help writers polish sentences with similes. You are given a sentence and the place where a comparison "
    "goes. First name the quality being compared, in the sense the sentence means it. Then suggest images (short "
    "noun phrases) that complete the simile.\n"
    "Rules:\n"
    "- The image must be famous for exactly that quality, in that sense: quiet → a grave; slow → molasses; a hard "
    "exam is difficult, so not a rock but a riddle with no answer.\n"
    "- Match the mood of the sentence: a happy sentence gets a happy image, a grim one a grim image.\n"
    "- An image, not a comparison with people of the scene: never 'his wife', 'my son', 'a man', 'a person'. "
    "A type of person is fine when the type has the quality: a sleepwalker, a drill sergeant.\n"
    "- Never restate the sentence or reuse its words: for wind, not 'a breeze'; for a lake, not 'a pond'.\n"
    "- Clear, concrete images a reader sees at once; each image different from the others.\n"
    "- Each image 1 to 5 words with its article. One per line, no numbers, no explanations.\n\n"
    "Example.\n"
    "Sentence: The meeting was very boring.\n"
    "Complete: The meeting was as boring as ___\n"
    "Quality: dull, tedious\n"
    "Images:\n"
    "watching paint dry\na dripping tap\na tax form\na rainy Sunday\na sermon in Latin\n\n"
    "Example.\n"
    "Sentence: The dancer moved across the stage.\n"
    "Complete: The dancer moved across the stage like ___\n"
    "Quality: graceful, light\n"
    "Images:\n"
    "a swan on still water\nsmoke from a candle\na leaf on the wind\nfalling silk\na gull gliding"
)


def user_message(sentence: str, completion: str, domain: str = "any", register: str = "plain",
                 count: int = PER_LIST) -> str:
    """`completion`: the sentence up to the comparison and its comparator, e.g. "The room was as quiet as"."""
    lines = [f"Sentence: {sentence.strip()}", f"Complete: {completion.strip()} ___"]
    if domain and domain != "any":
        lines.append(f"Images from: {domain}.")
    if register == "literary":
        lines.append("Register: literary, unexpected but exact images.")
    lines.append(f"Give the quality, then {count} images.")
    return "\n".join(lines)


_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*")


def parse_images(text: str, count: int = PER_LIST) -> list[str]:
    """The images of one answer, in order: one per line, list marks and trailing notes removed."""
    out = []
    for line in text.splitlines():
        if ":" in line:  # "Quality: …", "Images:"
            continue
        line = _LINE.sub("", line).strip().strip('"').strip()
        line = re.split(r"\s[-–—:(]\s?|[.,;!?]", line, maxsplit=1)[0].strip()
        if line and line.lower() not in {i.lower() for i in out}:
            out.append(line)
        if len(out) >= count:
            break
    return out


def propose(writer, sentence: str, completion: str, *, seed: int = 0, domain: str = "any", register: str = "plain",
            lists: int = LISTS, per_list: int = PER_LIST, on_text=None) -> list[str]:
    """Distinct images from `lists` answers drawn together, first places first (each list is best first)."""
    gens = writer.reply(SYSTEM, user_message(sentence, completion, domain, register, per_list), n=lists,
                        max_new_tokens=12 + 8 * per_list, top_k=40, temperature=TEMPERATURE, seed=seed,
                        on_text=on_text)
    answers = [parse_images(g.text, per_list) for g in gens]
    merged, seen = [], set()
    for rank in range(per_list):
        for images in answers:
            if rank < len(images) and images[rank].lower() not in seen:
                seen.add(images[rank].lower())
                merged.append(images[rank])
    return merged
