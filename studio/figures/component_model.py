"""The learned part of the component extractor: where the vehicle phrase ends.

The rules of components.py find the comparator, the vehicle's head noun and where the phrase starts; the parse alone
cannot tell whether a prepositional phrase after the vehicle belongs to it ("a kid in a candy store") or to the verb
("resounded like thunder throughout the land"). A linear reranker scores every end position from the head noun to a
dozen tokens on (features of the boundary: what the cut leaves outside, what the phrase takes in, the preposition,
the verb) and the best-scoring end wins. Its weights are trained on similes whose vehicle boundary is known exactly
— HAUSER's candidates, each aligned with its literal sentence, where the inserted phrase is the vehicle — by
`python -m studio train simile-components` (components_train.py, never imported here), and served by the registry
as the `simile_components` role (assets/similes/components.json). Without the asset the rules' end is kept.

Pure logic: no model library, no file access (the weights come in as a dict).
"""
from __future__ import annotations

_QUOTES = {'"', "'", "“", "”", "‘", "’", "``", "''"}
MAX_AFTER_ROOT = 12


def vehicle_end_candidates(root, start: int, rule_end: int) -> list[int]:
    """Token indices where the vehicle phrase [start, end] may end: the head noun itself and each later token of its
    sentence up to MAX_AFTER_ROOT on, except punctuation (a closing quote may end it); the rules' end always."""
    doc = root.doc
    last = min(root.sent.end - 1, root.i + MAX_AFTER_ROOT)
    # a gerund keeps its object and particle ("setting off a nuclear weapon"): no end inside them
    core = root.i
    if root.tag_ == "VBG" or root.pos_ == "VERB":
        for c in root.children:
            if c.i > root.i and c.dep_ in ("dobj", "prt", "attr", "dative", "acomp", "oprd"):
                core = max(core, max(t.i for t in c.subtree))
    ends = [core]
    for e in range(core + 1, last + 1):
        tok = doc[e]
        if tok.is_punct and tok.text not in _QUOTES:
            continue
        # a phrase, not a fragment: every word after the head hangs inside it (quotes may hang anywhere)
        if any(not (start <= t.head.i <= e) and not t.is_punct for t in doc[root.i + 1:e + 1]):
            continue
        ends.append(e)
    if rule_end not in ends:  # (before the head when the parse makes a closing mark the head: "a king »")
        ends.append(rule_end)
    return sorted(set(ends))


def vehicle_end_features(root, start: int, end: int, rule_end: int, verb=None) -> dict[str, float]:
    """Sparse features of the vehicle phrase doc[start..end] whose head noun is `root`."""
    doc = root.doc
    f: dict[str, float] = {"bias": 1.0}
    after = end - root.i
    f[f"after={min(after, 6)}"] = 1.0
    f["after_n"] = min(after, 12) / 6
    f["rule_end"] = float(end == rule_end)
    f["rule_longer"] = float(rule_end > end)
    f["rule_shorter"] = float(rule_end < end)
    span = range(start, end + 1)
    nxt = doc[end + 1] if end + 1 < len(doc) else None
    if nxt is None or nxt.is_sent_start:
        f["next=END"] = 1.0
    else:
        f[f"next_pos={nxt.pos_}"] = 1.0
        f[f"next_dep={nxt.dep_}"] = 1.0
        f["next_head_in"] = float(nxt.head.i in span)
        f["next_head_root"] = float(nxt.head.i == root.i)
        if nxt.is_punct:
            f[f"next_punct={nxt.text}"] = 1.0
        if nxt.pos_ == "ADP" or nxt.dep_ == "prep":
            f[f"next_prep={nxt.lower_}"] = 1.0
            f[f"next_prep_head_in={nxt.lower_}|{int(nxt.head.i in span)}"] = 1.0
            if verb is not None:
                f[f"verb_prep={verb.lemma_.lower()}|{nxt.lower_}"] = 1.0
            f[f"root_prep={root.lemma_.lower()}|{nxt.lower_}"] = 1.0
    last = doc[end]
    f[f"last_pos={last.pos_}"] = 1.0
    f[f"last_dep={last.dep_}"] = 1.0
    f["last_quote"] = float(last.text in _QUOTES)
    # dependents the cut leaves outside, by relation; words inside whose head lies outside (not a constituent)
    for t in doc[end + 1:min(len(doc), end + 1 + MAX_AFTER_ROOT)]:
        if t.head.i in span and t.i != t.head.i:
            f[f"cut_dep={t.dep_}"] = f.get(f"cut_dep={t.dep_}", 0.0) + 1.0
    dangling = sum(1 for t in doc[root.i + 1:end + 1] if not (start <= t.head.i <= end))
    f["dangling"] = float(dangling)
    f["dangling_any"] = float(dangling > 0)
    for t in doc[root.i + 1:end + 1]:
        f[f"in_dep={t.dep_}"] = f.get(f"in_dep={t.dep_}", 0.0) + 1.0
        if t.dep_ == "prep" or t.pos_ == "ADP":
            f[f"in_prep={t.lower_}"] = 1.0
        if t.is_punct:
            f["in_punct"] = f.get("in_punct", 0.0) + 1.0
    return f


def score(weights: dict[str, float], feats: dict[str, float]) -> float:
    return sum(weights.get(k, 0.0) * v for k, v in feats.items())


def choose_vehicle_end(weights: dict[str, float], root, start: int, rule_end: int, verb=None,
                       margin: float = 0.0) -> int:
    """The best-scoring end of the vehicle phrase; the rules' end unless another scores `margin` more."""
    scored = {end: score(weights, vehicle_end_features(root, start, end, rule_end, verb))
              for end in vehicle_end_candidates(root, start, rule_end)}
    best = max(scored, key=lambda e: (scored[e], e == rule_end))
    end = best if scored[best] > scored[rule_end] + margin else rule_end
    doc = root.doc
    while end > start and doc[end].is_punct:  # as the rules: no trailing punctuation
        end -= 1
    return end
