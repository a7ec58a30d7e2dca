"""The knowledge-base side of HAUSER: relevance (Eq. 2 or 3) and vehicle frequencies N_v, with the back-off level
of every lookup. Lookups are memoised: 12k candidates share a few thousand topic-vehicle pairs.

A simile that states its property ("as quiet as a grave") and whose topic-vehicle pair the KB never saw (most topics:
"room ~ grave") backs Eq. 2 off to the property: the triplets (·, p, v) of every topic the KB compared with the
vehicle through that property, n summed and P their noisy-or, so that Σ n·P is on Eq. 2's own scale (level
"property"). Eq. 3, the paper's approximation, stays as it is.
Why: docs/experiments.md#hauser-property-backoff"""
from __future__ import annotations

from ..offensive import masked
from ..figures.kb import as_written
from . import criteria as C

NO_TOPIC = "no topic"
#: the level of a pair backed off to the simile's property (`SimileKB.property_triplets`)
PROPERTY = "property"


class KBFeatures:
    def __init__(self, kb=None):
        from ..figures.kb import load_kb

        self.kb = kb or load_kb()
        self._pairs: dict[tuple, tuple] = {}
        self._freqs: dict[str, tuple[float, str]] = {}
        self._properties: dict[tuple[str, str], tuple[list, str]] = {}

    @property
    def description(self) -> str:
        meta = self.kb.meta or {}
        sizes = ", ".join(f"{meta[k]:,} {k}" for k in ("triplets", "pairs", "vehicles", "instances")
                          if isinstance(meta.get(k), int))
        return "studio simile KB" + (f" ({sizes})" if sizes else "")

    def pair_lookup(self, topic: str | None, vehicle: str, method: str) -> tuple[list | float, str]:
        """The (property, n, P) triplets of a pair (Eq. 2) or its count n(t, v) (Eq. 3), with the back-off level."""
        if not topic:
            return ([] if method == "eq2" else 0.0), NO_TOPIC  # no topic, no (t, v) pair to look up
        key = (topic.lower(), vehicle.lower(), method)
        if key not in self._pairs:
            if method == "eq2":
                hit = self.kb.triplets(topic, vehicle)
                self._pairs[key] = ([(p, float(n), float(q)) for p, n, q in hit.value], hit.level)
            else:
                hit = self.kb.pair_count(topic, vehicle)
                self._pairs[key] = (float(hit.value), hit.level)
        return self._pairs[key]

    def relevance_lookup(self, simile, method: str, property_backoff: bool = True) -> tuple[list | float, str]:
        """`pair_lookup` of the simile's topic and vehicle; with Eq. 2, a pair the KB never saw (or no topic) backs
        off to the simile's stated property (`property_triplets`), when the KB gave the vehicle that property."""
        value, level = self.pair_lookup(simile.topic, simile.vehicle, method)
        if not property_backoff or method != "eq2" or level not in ("none", NO_TOPIC) or not simile.property:
            return value, level
        key = (simile.property.lower(), simile.vehicle.lower())
        if key not in self._properties:
            hit = self.kb.property_triplets(simile.property, simile.vehicle)
            self._properties[key] = ([(p, float(n), float(q)) for p, n, q in hit.value], hit.level)
        triplets, found = self._properties[key]
        return (triplets, PROPERTY) if found != "none" else (value, level)

    def vehicle_freq(self, vehicle: str) -> tuple[float, str]:
        key = vehicle.lower()
        if key not in self._freqs:
            hit = self.kb.vehicle_freq(vehicle)
            self._freqs[key] = (float(hit.value), hit.level)
        return self._freqs[key]

    def features(self, similes, method: str = "eq2", property_backoff: bool = True):
        """(relevance, levels per pair, N_v per vehicle, levels per vehicle, vehicles) of one candidate's similes;
        relevance is None when the candidate has no vehicle."""
        with_vehicle = [s for s in similes if s.vehicle]
        if not with_vehicle:
            return None, [], [], [], []
        pairs = [self.relevance_lookup(s, method, property_backoff) for s in with_vehicle]
        values = [v for v, _ in pairs]
        relevance = C.relevance_eq2(values) if method == "eq2" else C.relevance_eq3(values)
        freqs = [self.vehicle_freq(s.vehicle) for s in with_vehicle]
        return (relevance, [lvl for _, lvl in pairs], [f for f, _ in freqs], [lvl for _, lvl in freqs],
                [s.vehicle for s in with_vehicle])

    def evidence(self, similes, k: int = 3, method: str = "eq2", property_backoff: bool = True) -> dict:
        """The KB instances behind a candidate's relevance (per topic-vehicle pair, or the property it backed off
        to) and creativity (per vehicle): level, matched KB entries with counts, top-k triplets, sources."""
        with_vehicle = [s for s in similes if s.vehicle]
        pairs = []
        for s in with_vehicle:
            if self.relevance_lookup(s, method, property_backoff)[1] == PROPERTY:
                found = self.kb.property_evidence(s.property, s.vehicle, k)
                found["written"] = {"topic": as_written(s.topic) or None, **found["written"]}
                pairs.append({"topic": self.kb.normalize(s.topic) if s.topic else None, **found, "level": PROPERTY})
            elif not s.topic:
                pairs.append({"topic": None, "vehicle": s.vehicle, "level": NO_TOPIC, "matched": [], "triplets": [],
                              "sources": {}})
            else:
                pairs.append(self.kb.pair_evidence(s.topic, s.vehicle, k))
        creativity = [self.kb.vehicle_evidence(s.vehicle, k) for s in with_vehicle]
        # the KB is mined partly from 19th-century books: a matched instance with a slur is counted, not written out
        for ev in pairs + creativity:
            for m in ev.get("matched", []):
                for key in ("pair", "vehicle", "written"):  # "written": the KB's own surface of a matched vehicle
                    if key in m:
                        m[key] = masked(m[key])
        return {"relevance": pairs, "creativity": creativity}
