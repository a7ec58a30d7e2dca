"""The studio's simile knowledge base: (topic, property, vehicle) triplets with counts and plausibility.

Built by `python -m studio build kb` (studio/lab/similes/kb_build.py) into assets/similes/kb.json.gz. Phrases are
normalized (lowercase, no leading articles/possessives, lemmatized head). Every lookup backs off from the full
phrase to its head noun, and from an unseen head to the nearest known vehicle heads by embedding; the level
used is reported in `Lookup.level`.

Plausibility P(t, p, v) is the noisy-or of the per-instance confidences, as in MAPS-KB:
P = 1 - prod_i (1 - c_i), where c_i is the confidence that instance i is a simile with these components
(curated corpora: a fixed confidence per source; similes mined from other text: the detector's probability).
"""
from __future__ import annotations

import functools
import gzip
import json
import re
from collections import defaultdict
from typing import NamedTuple

import numpy as np

from ..embeddings import embed_cached
from ..errors import StudioError
from ..models import ModelUnavailable, get_registry
from ..paths import PROJECT_ROOT

ASSET = PROJECT_ROOT / "assets" / "similes" / "kb.json.gz"
LEVELS = ("exact", "head", "embedding", "none")
#: the source of the generated similes (HAUSER's candidates), counted apart from the texts people wrote
GENERATED_SOURCE = "hauser/candidates.jsonl"
#: cosine similarity below which an embedding neighbour is not trusted as a stand-in
EMBEDDING_MIN_SIMILARITY = 0.55
EMBEDDING_NEIGHBOURS = 3

_LEADING = {"a", "an", "the", "my", "your", "his", "her", "its", "our", "their", "this", "that", "these", "those",
            "some", "any", "one", "such", "'s"}
#: words that end the head part of a phrase ("kid in a candy store" → kid)
_PHRASE_BREAKS = {"of", "in", "on", "with", "at", "from", "under", "over", "to", "for", "by", "into", "onto", "after",
                  "before", "without", "through", "who", "which", "that", "when", "where", "whose", "behind", "near",
                  "inside", "like", "as", "and", "or", "during", "around", "across", "upon", "against", "between"}
_COLLECTIVE = {"kind", "sort", "type", "bunch", "pack", "flock", "herd", "swarm", "pair", "couple", "lot", "lots",
               "group", "barrel", "sheet", "lump", "roll", "grain", "piece", "band", "crowd", "army", "horde"}
_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*|'s")


class Lookup(NamedTuple):
    value: float | int | list
    level: str  # one of LEVELS


class SimileKB:
    def __init__(self, data: dict):
        self.meta = data["meta"]
        self._lemmas: dict[str, str] = data["lemmas"]
        self._vehicles: dict[str, int] = data["vehicles"]
        self._pairs: dict[str, int] = data["pairs"]
        self._triplets: dict[str, list] = data["triplets"]
        self.contexts: list[list] = data["contexts"]  # [vehicle, "context lemmas"] per instance, for retrieval
        self._surfaces: dict[str, str] = data.get("surfaces", {})
        sources = data.get("sources") or {}
        self._source_names: list[str] = sources.get("names", [])
        self._vehicle_sources: dict[str, list] = sources.get("vehicles", {})
        self._pair_sources: dict[str, list] = sources.get("pairs", {})
        self._head_vehicles: dict[str, int] = defaultdict(int)
        self._head_pairs: dict[str, int] = defaultdict(int)
        self._head_triplets: dict[str, dict[str, list[float]]] = defaultdict(dict)
        self._by_property: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self._by_vehicle: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self._by_vehicle_head: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self._head_of: dict[str, str] = {}
        for v, n in self._vehicles.items():
            self._head_vehicles[self._head(v)] += n
        for key, n in self._pairs.items():
            t, v = key.split("\t")
            self._head_pairs[f"{self._head(t)}\t{self._head(v)}"] += n
        for key, rows in self._triplets.items():
            t, v = key.split("\t")
            vh = self._head(v)
            bucket = self._head_triplets[f"{self._head(t)}\t{vh}"]
            for p, n, plaus in rows:
                agg = bucket.setdefault(p, [0, 1.0])
                agg[0] += n
                agg[1] *= 1.0 - plaus  # noisy-or over merged phrases
                self._by_property[p][v] += plaus
                self._by_vehicle[v][p] += plaus
                self._by_vehicle_head[vh][p] += plaus
        self._head_index: tuple[list[str], np.ndarray] | None = None
        self._neighbour_cache: dict[str, list[tuple[str, float]]] = {}
        self._neighbour_model = ""
        self._written_heads: dict[str, str] | None = None

    # ------------------------------------------------------------------ normalization

    def lemma(self, word: str) -> str:
        word = word.lower()
        if word in self._lemmas:
            return self._lemmas[word]
        # a word the build never saw: undo the regular English plural only
        if len(word) > 4 and word.endswith("ies"):
            return word[:-3] + "y"
        if len(word) > 3 and word.endswith(("ches", "shes", "sses", "xes")):
            return word[:-2]
        if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            return word[:-1]
        return word

    def normalize(self, phrase: str) -> str:
        """Lowercase, no leading articles/possessives, lemmatized head: "the Kids in a candy store" → "kid in a
        candy store"."""
        tokens = _TOKEN.findall((phrase or "").lower().replace("’", "'"))
        while tokens and tokens[0] in _LEADING:
            tokens = tokens[1:]
        if not tokens:
            return ""
        end = next((i for i, t in enumerate(tokens) if t in _PHRASE_BREAKS and i > 0), len(tokens))
        head_i = end - 1
        tokens[head_i] = self.lemma(tokens[head_i])
        return " ".join(tokens).replace(" 's", "'s")

    def _head(self, normalized: str) -> str:
        head = self._head_of.get(normalized)
        if head is None:
            tokens = normalized.split()
            end = next((i for i, t in enumerate(tokens) if t in _PHRASE_BREAKS and i > 0), len(tokens))
            head = tokens[end - 1] if tokens else ""
            if head in _COLLECTIVE and end + 1 < len(tokens) and tokens[end] == "of":
                rest = tokens[end + 1:]
                stop = next((i for i, t in enumerate(rest) if t in _PHRASE_BREAKS), len(rest))
                if stop:
                    head = self.lemma(rest[stop - 1])
            head = head.removesuffix("'s")
            self._head_of[normalized] = head
        return head

    def head(self, phrase: str) -> str:
        """The lemmatized head noun of a phrase, as the head-level back-off uses it."""
        return self._head(self.normalize(phrase))

    # ------------------------------------------------------------------ lookups

    def vehicle_freq(self, vehicle: str) -> Lookup:
        """N_v: how many similes in the KB use this vehicle."""
        v = self.normalize(vehicle)
        if v in self._vehicles:
            return Lookup(self._vehicles[v], "exact")
        h = self._head(v)
        if h in self._head_vehicles:
            return Lookup(self._head_vehicles[h], "head")
        near = self._neighbours(h)
        if near:
            return Lookup(float(np.mean([self._head_vehicles[n] for n, _ in near])), "embedding")
        return Lookup(0, "none")

    def pair_count(self, topic: str, vehicle: str) -> Lookup:
        """n(t, v): how many similes compare this topic with this vehicle."""
        t, v = self.normalize(topic), self.normalize(vehicle)
        if f"{t}\t{v}" in self._pairs:
            return Lookup(self._pairs[f"{t}\t{v}"], "exact")
        th, vh = self._head(t), self._head(v)
        if f"{th}\t{vh}" in self._head_pairs:
            return Lookup(self._head_pairs[f"{th}\t{vh}"], "head")
        if vh not in self._head_vehicles:
            near = [n for n, _ in self._neighbours(vh) if f"{th}\t{n}" in self._head_pairs]
            if near:
                return Lookup(float(np.mean([self._head_pairs[f"{th}\t{n}"] for n in near])), "embedding")
        return Lookup(0, "none")

    def triplets(self, topic: str, vehicle: str) -> Lookup:
        """value: [(property, n(t, p, v), P(t, p, v)), ...], most plausible first."""
        t, v = self.normalize(topic), self.normalize(vehicle)
        rows = self._triplets.get(f"{t}\t{v}")
        if rows:
            return Lookup(_sorted_triplets(rows), "exact")
        th, vh = self._head(t), self._head(v)
        merged = self._head_triplets.get(f"{th}\t{vh}")
        if merged:
            return Lookup(_sorted_triplets([[p, n, 1.0 - q] for p, (n, q) in merged.items()]), "head")
        if vh not in self._head_vehicles:
            rows = []
            for n_head, _ in self._neighbours(vh):
                for p, (n, q) in self._head_triplets.get(f"{th}\t{n_head}", {}).items():
                    rows.append([p, n, 1.0 - q])
            if rows:
                return Lookup(_sorted_triplets(rows), "embedding")
        return Lookup([], "none")

    def property_triplets(self, prop: str, vehicle: str) -> Lookup:
        """value: [(property, n, P)], the KB's evidence that the vehicle is an image of this property whatever the
        topic: n(·, p, v) summed over the topics it was compared with, P their noisy-or; "exact" for the vehicle
        phrase, "head" for its head noun; [] and "none" when the KB never gave the vehicle this property."""
        p = self._property_key(prop)
        v = self.normalize(vehicle)
        for keys, level in ((self._triplet_keys_of_vehicle().get(v, []), "exact"),
                            (self._triplet_keys_of_vehicle_head().get(self._head(v), []), "head")):
            rows = [row for key in keys for row in self._triplets[key] if row[0] == p]
            if rows:
                plausibility = 1.0 - float(np.prod([1.0 - q for _, _, q in rows]))
                return Lookup([(p, int(sum(n for _, n, _ in rows)), round(plausibility, 4))], level)
        return Lookup([], "none")

    def property_evidence(self, prop: str, vehicle: str, k: int = 3) -> dict:
        """What stands behind `property_triplets`: the topic-vehicle pairs that gave the vehicle this property (with
        n(t, p, v)), the merged triplet and the sources of those pairs."""
        p, v = self._property_key(prop), self.normalize(vehicle)
        hit = self.property_triplets(prop, vehicle)
        keys = (self._triplet_keys_of_vehicle().get(v, []) if hit.level == "exact" else
                self._triplet_keys_of_vehicle_head().get(self._head(v), []) if hit.level == "head" else [])
        counts = {key: sum(n for q, n, _ in self._triplets[key] if q == p) for key in keys}
        keys = sorted((key for key in keys if counts[key]), key=lambda key: (-counts[key], key))
        return {"property": p, "vehicle": v, "level": hit.level,
                "matched": [{"pair": key.replace("\t", " ~ "), "n": counts[key], "written": self.spelled_pair(key)}
                            for key in keys[:k]],
                "triplets": [{"property": q, "n": n, "P": P} for q, n, P in hit.value],
                "sources": self._sources(self._pair_sources, keys), "written": {"vehicle": as_written(vehicle)}}

    def _property_key(self, prop: str) -> str:
        """A property as the triplets store it (lemmatized when the lemma is a stored property)."""
        raw = prop.strip().lower()
        lemma = self.lemma(raw)
        return lemma if lemma in self._by_property or raw not in self._by_property else raw

    def _triplet_keys_of_vehicle(self) -> dict[str, list[str]]:
        if not hasattr(self, "_triplet_vehicle_index"):
            index: dict[str, list[str]] = defaultdict(list)
            for key in self._triplets:
                index[key.split("\t")[1]].append(key)
            self._triplet_vehicle_index = dict(index)
        return self._triplet_vehicle_index

    def _triplet_keys_of_vehicle_head(self) -> dict[str, list[str]]:
        if not hasattr(self, "_triplet_head_index"):
            index: dict[str, list[str]] = defaultdict(list)
            for key in self._triplets:
                index[self._head(key.split("\t")[1])].append(key)
            self._triplet_head_index = dict(index)
        return self._triplet_head_index

    # ------------------------------------------------------------------ evidence

    def _sources(self, table: dict[str, list], keys) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for key in keys:
            for i, n in table.get(key, []):
                out[self._source_names[i]] += n
        return dict(sorted(out.items(), key=lambda x: (-x[1], x[0])))

    def pair_evidence(self, topic: str, vehicle: str, k: int = 3) -> dict:
        """What stands behind a topic-vehicle lookup: the level, the KB pairs that matched (with their counts), the
        top-k (property, n, P) triplets and the sources (file → instances) the matched pairs came from."""
        t, v = self.normalize(topic), self.normalize(vehicle)
        out = {"topic": t, "vehicle": v, "level": "none", "matched": [], "triplets": [], "sources": {},
               "written": {"topic": as_written(topic), "vehicle": as_written(vehicle)}}
        if f"{t}\t{v}" in self._pairs:
            keys = [f"{t}\t{v}"]
            out["level"] = "exact"
        else:
            th, vh = self._head(t), self._head(v)
            keys = [key for key in self._pairs_by_head().get(f"{th}\t{vh}", [])]
            if keys:
                out["level"] = "head"
            elif vh not in self._head_vehicles:
                near = [n for n, _ in self._neighbours(vh)]
                keys = [key for n in near for key in self._pairs_by_head().get(f"{th}\t{n}", [])]
                out["level"] = "embedding" if keys else "none"
        keys = sorted(keys, key=lambda key: (-self._pairs[key], key))
        out["matched"] = [{"pair": key.replace("\t", " ~ "), "n": self._pairs[key], "written": self.spelled_pair(key)}
                          for key in keys[:k]]
        rows = [row for key in keys for row in self._triplets.get(key, [])]
        out["triplets"] = [{"property": p, "n": n, "P": q} for p, n, q in _sorted_triplets(rows)[:k]]
        out["sources"] = self._sources(self._pair_sources, keys)
        return out

    def vehicle_evidence(self, vehicle: str, k: int = 3) -> dict:
        """What stands behind N_v: the level, the KB vehicles that matched (with their counts), and their sources."""
        v = self.normalize(vehicle)
        if v in self._vehicles:
            keys, level = [v], "exact"
        else:
            h = self._head(v)
            keys = self._vehicles_by_head().get(h, [])
            level = "head" if keys else "none"
            if not keys:
                keys = [x for n, _ in self._neighbours(h) for x in self._vehicles_by_head().get(n, [])]
                level = "embedding" if keys else "none"
        keys = sorted(keys, key=lambda x: (-self._vehicles[x], x))
        return {"vehicle": v, "level": level,
                "matched": [{"vehicle": x, "n": self._vehicles[x], "written": self.surface(x)} for x in keys[:k]],
                "sources": self._sources(self._vehicle_sources, keys),
                "written": as_written(vehicle)}

    def _pairs_by_head(self) -> dict[str, list[str]]:
        if not hasattr(self, "_pair_index"):
            index: dict[str, list[str]] = defaultdict(list)
            for key in self._pairs:
                t, v = key.split("\t")
                index[f"{self._head(t)}\t{self._head(v)}"].append(key)
            self._pair_index = dict(index)
        return self._pair_index

    def _vehicles_by_head(self) -> dict[str, list[str]]:
        if not hasattr(self, "_vehicle_index"):
            index: dict[str, list[str]] = defaultdict(list)
            for v in self._vehicles:
                index[self._head(v)].append(v)
            self._vehicle_index = dict(index)
        return self._vehicle_index

    def vehicles_for_property(self, prop: str, k: int = 20) -> list[tuple[str, float]]:
        """Vehicles typical for a property, by summed plausibility of their triplets."""
        scores = self._by_property.get(self.lemma(prop.strip().lower())) or self._by_property.get(prop.strip().lower())
        if not scores:
            return []
        return sorted(((v, round(s, 4)) for v, s in scores.items()), key=lambda x: (-x[1], x[0]))[:k]

    def properties_of_vehicle(self, vehicle: str, k: int = 12) -> list[tuple[str, float]]:
        v = self.normalize(vehicle)
        scores = self._by_vehicle.get(v) or self._by_vehicle_head.get(self._head(v))
        if not scores:
            return []
        return sorted(((p, round(s, 4)) for p, s in scores.items()), key=lambda x: (-x[1], x[0]))[:k]

    def has_vehicle(self, normalized_vehicle: str) -> bool:
        """Whether the KB holds this exact (normalized) vehicle: a dict lookup, no embedding back-off."""
        return normalized_vehicle in self._vehicles

    def surface(self, normalized_vehicle: str) -> str:
        """The vehicle as it is most often written (with its article): "kid" → "a kid"."""
        return self._surfaces.get(normalized_vehicle, normalized_vehicle)

    def spelled_pair(self, key: str) -> str:
        """A KB pair key ("sky\tlightne") as a reader reads it: "sky ~ lightning", each lemma key that is no word
        spelt as the shortest word the build lemmatized to it (`_spelled`)."""
        known = self._spelling()
        return " ~ ".join(" ".join(self._spelled(w, known) for w in part.split()) for part in key.split("\t"))

    def written_bare(self, normalized_vehicle: str) -> bool:
        """Whether the KB's texts write the vehicle without an article ("thunder", "stone"): it has no surface of its
        own and a source other than the generated candidates holds it. The surfaces are counted over those other
        sources only, so a vehicle only the candidates hold ("maniac") has no surface and is not known bare."""
        if normalized_vehicle in self._surfaces or normalized_vehicle not in self._vehicles:
            return False
        generated = self._source_names.index(GENERATED_SOURCE) if GENERATED_SOURCE in self._source_names else -1
        return any(i != generated for i, _ in self._vehicle_sources.get(normalized_vehicle, ()))

    def property_counts(self) -> dict[str, float]:
        return {p: sum(vs.values()) for p, vs in self._by_property.items()}

    def properties(self) -> list[str]:
        return list(self._by_property)

    def vehicles(self) -> list[str]:
        return list(self._vehicles)

    # ------------------------------------------------------------------ embedding back-off

    def _spelled(self, head: str, known=None) -> str:
        """A head key as the embedder should read it: the build's lemmatizer left some keys that are no words
        ("glaci" for "glacier", "lightne" for "lightning"), whose embeddings found nonsense neighbours ("glaci" →
        "gyves"); such a key is read as the shortest word the build lemmatized to it. A key that is a word (or has
        no such word, or without the spelling dictionary) is read as it is. `known`: the dictionary's test, when the
        caller holds it (`_spelling`)."""
        if self._written_heads is None:
            written: dict[str, str] = {}
            for word, lemma in self._lemmas.items():
                if lemma not in written or (len(word), word) < (len(written[lemma]), written[lemma]):
                    written[lemma] = word
            self._written_heads = written
        word = self._written_heads.get(head)
        if word is None:
            return head
        known = self._spelling() if known is None else known
        return head if known is False or known(head) else word

    @staticmethod
    def _spelling():
        """The spelling dictionary's test of a word, or False without the dictionary."""
        try:
            return get_registry().get("spelling").known
        except ModelUnavailable:
            return False

    def _neighbours(self, head: str) -> list[tuple[str, float]]:
        """Known vehicle heads nearest to an unseen head by the embedder; [] when none is close enough or the
        embedder is unavailable. Memoised per embedder, so a batch pays for each unseen head once."""
        if not head:
            return []
        self.prefetch_neighbours([head])
        return self._neighbour_cache.get(head, [])

    def prefetch_neighbours(self, heads) -> None:
        """Embed every not-yet-seen head in one embedder call (12k candidates would otherwise make thousands)."""
        try:
            names, matrix, embedder = self._heads_matrix()
        except ModelUnavailable:
            return
        if self._neighbour_model != embedder.model_id:
            self._neighbour_cache, self._neighbour_model = {}, embedder.model_id
        todo = sorted({h for h in heads if h and h not in self._neighbour_cache})
        if not todo:
            return
        known = self._spelling()
        sims = embedder.encode([self._spelled(h, known) for h in todo]) @ matrix.T
        for head, row in zip(todo, sims):
            order = np.argsort(-row)[:EMBEDDING_NEIGHBOURS]
            self._neighbour_cache[head] = [(names[i], float(row[i])) for i in order
                                           if row[i] >= EMBEDDING_MIN_SIMILARITY]

    def prefetch_unseen(self, phrases) -> None:
        """Batch the embedding back-off for the heads of these phrases that the KB does not know."""
        heads = {self.head(p) for p in phrases if p}
        self.prefetch_neighbours([h for h in heads if h and h not in self._head_vehicles])

    def _heads_matrix(self):
        embedder = get_registry().get("embedder")
        key = embedder.model_id
        if self._head_index is None or self._head_index[0] != key:
            names = sorted(h for h in self._head_vehicles if h)
            known = self._spelling()
            self._head_index = (key, names, _cached_embeddings(embedder, [self._spelled(h, known) for h in names]))
        _, names, matrix = self._head_index
        return names, matrix, embedder


def as_written(text: str | None) -> str:
    """A phrase as its writer wrote it, spaces tidied: what an explanation quotes instead of the KB's lemma key
    ("lightning", whose key is "lightne")."""
    return " ".join((text or "").split())


def _sorted_triplets(rows) -> list[tuple[str, int, float]]:
    out = [(p, int(n), round(float(q), 4)) for p, n, q in rows]
    return sorted(out, key=lambda x: (-x[2], -x[1], x[0]))


def _cached_embeddings(embedder, names: list[str]) -> np.ndarray:
    """Vehicle-head embeddings through the one embedding cache (each head embedded once per embedder)."""
    return embed_cached(embedder, names, "similes-kb-heads")


@functools.lru_cache(maxsize=1)
def load_kb() -> SimileKB:
    """The committed knowledge base (memoised)."""
    if not ASSET.is_file():
        raise StudioError(f"the simile knowledge base {ASSET.relative_to(PROJECT_ROOT)} is missing; "
                          "build it with `python -m studio build kb`")
    with gzip.open(ASSET, "rt", encoding="utf-8") as fh:
        return SimileKB(json.load(fh))
