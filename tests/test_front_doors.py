"""Issue 40 item 3: a typed front door per capability. A capability that declares one (`Capability.front_door`) is
reached by its tab and its commands through that module only: they import no other module of any capability's
package (besides other capabilities' front doors), only the UI's and the command line's own helpers,
studio.errors and studio.capabilities (the declarations: a tab's title); so a request goes ui → capability → models and back, and the front ends only format. Read from the
source, as tests/test_architecture.py reads it."""
from __future__ import annotations

from test_architecture import STUDIO, imported_modules, studio_modules

from studio.capabilities import CAPABILITIES

#: what a tab or a command may import besides a front door (studio.capabilities: the declarations, a tab's title)
#: what a tab or a command may use beside its capability's door: the front ends' own helpers, the errors, the
#: capabilities' table and the measured figures it shows beside a result (results/*.json: a blind read's share)
FRONT_END_HELPERS = ("studio.ui", "studio.cli", "studio.errors", "studio.capabilities", "studio.results",
                     "studio.atomic", "studio.wording")
DOORS = {c.name: c for c in CAPABILITIES if c.front_door}


def _front_ends(capability) -> list[str]:
    return ([capability.tab.split(":")[0]] if capability.tab else []) + list(capability.commands)


def test_every_capability_has_a_front_door():
    assert {c.name: c.front_door for c in CAPABILITIES} == {
        "similes": "studio.similes.service", "hauser": "studio.hauser.service", "imagine": "studio.imagine.service",
        "proverbs": "studio.proverbs.service", "continuation": "studio.continuation.service"}


def test_tabs_and_commands_import_only_the_front_door():
    modules = studio_modules()
    doors = {c.front_door for c in DOORS.values()}
    reached = {}
    for capability in DOORS.values():
        for name in _front_ends(capability):
            for target in imported_modules(name, modules[name], modules):
                helper = any(target == h or target.startswith(h + ".") for h in FRONT_END_HELPERS)
                if target not in doors and not helper:
                    reached.setdefault(name, []).append(target)
    assert not reached, reached
    # and the capability's package is reached at all, through its door
    for capability in DOORS.values():
        imported = {t for name in _front_ends(capability) for t in imported_modules(name, modules[name], modules)}
        assert capability.front_door in imported, capability.name


def test_the_results_are_typed():
    import dataclasses

    from studio.hauser.service import RerankResult, rerank, rerank_many
    from studio.similes.service import PolishResult, polish

    for cls in (PolishResult, RerankResult):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert polish.__annotations__["return"] in ("PolishResult", PolishResult)
    assert rerank.__annotations__["return"] in ("RerankResult", RerankResult)
    assert rerank_many.__annotations__["return"] in ("list[RerankResult]",)


def test_one_place_checks_the_inputs():
    """The tabs and commands neither check a text's length nor rebuild the scorer's settings from its internals:
    the front door refuses what it refuses."""
    for capability in DOORS.values():
        for name in _front_ends(capability):
            source = (STUDIO.parent / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8")
            for check in ("refuse_over_limit(", "require_text(", "check_length(", "relative_weights("):
                assert check not in source, (name, check)


def test_polish_result_json_keeps_the_command_lines_keys(tiny_registry):
    from studio.similes.service import polish

    result = polish("He yelps and howls.", n=3, seed=0, strategies=["property", "insertion"])
    data = result.to_dict()
    assert list(data)[:7] == ["candidates", "asked", "delivered", "score", "ranked_by", "generator",
                              "expected_keepers"]
    assert ("shortfall" in data) == bool(result.shortfall)
    assert data["candidates"] == [c.to_dict() for c in result.candidates] and data["asked"] == 3


def test_rerank_result_carries_the_rows_and_the_evidence(tiny_registry):
    from studio.hauser.scorer import Settings, evidence_text, score_groups, table_rows
    from studio.hauser.service import rerank

    literal, candidates = "The lake was calm.", ["The lake was as calm as a mirror.", "The lake was calm like glass."]
    result = rerank(literal, candidates, Settings())
    group = score_groups([(literal, candidates)], Settings())[0].to_dict()
    assert result.to_dict() == group
    assert [{k: v for k, v in r.items() if k != "creativity_rel"} for r in result.rows] == table_rows(group)
    relative = [r["creativity_rel"] for r in result.rows if r["creativity_rel"] is not None]
    assert relative and all(0 <= x <= 1 for x in relative)
    assert [r["evidence"] for r in result.rows] == [evidence_text(c) for c in result.ranked()]
