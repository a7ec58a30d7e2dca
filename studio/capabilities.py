"""Every capability of the studio, declared once: its tab, its command-line commands, its `build` / `train` /
`eval` targets, the registry roles it uses and its serving modules.

`studio/ui/app.py` builds the tabs from this list, `python -m studio` registers the commands and the grouped
targets from it, the Models tab says which tabs use each role, and the tests check that every serving
module imports no training or evaluation code. Adding a capability is one entry here (see README, "Layout").

Names are "package.module" or "package.module:function" strings, imported only when used, so reading this list
imports neither Gradio nor a model library.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Capability:
    name: str
    title: str
    #: "module:builder" of its tab (a builder creates one gr.Tab inside the current Blocks), or None
    tab: str | None
    #: the tab's title on the page ("Polish"): the tab uses it, and the Models tab names a role's users by it
    tab_title: str | None = None
    #: command modules, each with register(subparsers)
    commands: tuple[str, ...] = ()
    #: {"build"|"train"|"eval": {target: "module:function"}}; a function takes its argv and returns a JSON-able dict
    targets: dict[str, dict[str, str]] = field(default_factory=dict)
    #: {name: "module:Class"} of its studio.lab.evaluation contracts; each is also the `eval NAME` target
    evaluations: dict[str, str] = field(default_factory=dict)
    #: the registry roles (studio.models.specs) its serving code asks for
    roles: tuple[str, ...] = ()
    #: the modules a request goes through (tests/test_serving_imports.py: none of them imports training code)
    serving: tuple[str, ...] = ()
    #: its front door: the one module of the capability's package its tab and commands import
    #: (tests/test_front_doors.py: every capability has one)
    front_door: str | None = None


CAPABILITIES: tuple[Capability, ...] = (
    Capability(
        "similes", "Simile polishing and components", "studio.ui.polish_tab:build_polish_tab",
        tab_title="Polish",
        commands=("studio.cli.components_cmd", "studio.cli.polish_cmd"),
        targets={"build": {"kb": "studio.lab.similes.kb_build:build",
                           "antonyms": "studio.lab.similes.antonyms_build:build",
                           "images": "studio.lab.similes.image_table:build",
                           "nouns": "studio.lab.similes.nouns_build:build"},
                 "train": {"simile-detector": "studio.lab.similes.train_detector:train",
                           "simile-components": "studio.lab.similes.components_train:train",
                           "polish": "studio.lab.similes.polish_train:train",
                           "polish-ranker": "studio.lab.similes.aptness_train:train"},
                 "eval": {"components-report": "studio.lab.similes.evaluate:run",
                          "polish-report": "studio.lab.similes.evaluate_polish:run"}},
        evaluations={"components": "studio.lab.evaluation.components:ComponentsEvaluation",
                     "polish": "studio.lab.evaluation.polish:PolishEvaluation",
                     "polish-read": "studio.lab.evaluation.reads:PolishReadEvaluation",
                     "polish-ranker": "studio.lab.evaluation.polish_ranker:PolishRankerEvaluation"},
        roles=("writer", "polish_writer", "polisher", "lm", "parser", "embedder", "simile_components", "polish_ranker",
               "language", "spelling"),
        serving=("studio.similes.service", "studio.similes.polish"), front_door="studio.similes.service"),
    Capability(
        "hauser", "HAUSER scoring and reranking", "studio.ui.rerank_tab:build_rerank_tab",
        tab_title="Rerank",
        commands=("studio.cli.score_cmd",),
        targets={"train": {"nli-cross": "studio.lab.hauser.train_nli_cross:train",
                           "sentiment": "studio.lab.hauser.train_heads:train_sentiment"},
                 "eval": {"hauser-report": "studio.lab.hauser.evaluate:eval_hauser"}},
        evaluations={"hauser": "studio.lab.evaluation.hauser:HauserEvaluation",
                     "nli": "studio.lab.evaluation.nli:NLIEvaluation",
                     "sentiment": "studio.lab.evaluation.sentiment:SentimentEvaluation"},
        roles=("nli", "sentiment", "embedder", "parser", "simile_components", "lm", "writer", "language",
               "spelling"),
        serving=("studio.hauser.service", "studio.hauser.scorer"), front_door="studio.hauser.service"),
    Capability(
        "imagine", "ImaginE: imaginations compared", "studio.ui.imagine_tab:build_imagine_tab",
        tab_title="Imagine",
        commands=("studio.cli.imagine_cmd",),
        roles=("diffusion", "clip"),
        serving=("studio.imagine.service", "studio.imagine.compare"), front_door="studio.imagine.service"),
    Capability(
        "proverbs", "Proverbs for a narrative (ePiC)", "studio.ui.proverbs_tab:build_proverbs_tab",
        tab_title="Proverbs",
        commands=("studio.cli.proverbs_cmd",),
        targets={"build": {"proverbs": "studio.lab.proverbs.catalog_build:build_catalog"},
                 "train": {"proverbs": "studio.lab.proverbs.train:train"},
                 "eval": {"proverbs-report": "studio.lab.proverbs.evaluate:evaluate"}},
        evaluations={"proverbs": "studio.lab.evaluation.proverbs:ProverbsEvaluation"},
        roles=("retrieval_embedder", "proverbs_encoder", "proverbs_adapter", "embedder", "parser", "language",
               "spelling"),
        serving=("studio.proverbs.service",), front_door="studio.proverbs.service"),
    Capability(
        "continuation", "Figurative narratives: continue and judge", "studio.ui.continue_tab:build_continue_tab",
        tab_title="Continue",
        commands=("studio.cli.continue_cmd",),
        targets={"build": {"idiom-lexicon": "studio.lab.continuation.lexicon_build:build_asset",
                           "literal-phrases": "studio.lab.continuation.literal_phrases:build_asset"},
                 "train": {"judge": "studio.lab.continuation.judge_train:train",
                           "judge-temperature": "studio.lab.continuation.calibrate:train",
                           "continuation": "studio.lab.continuation.generator_train:train"},
                 "eval": {"continuation-report": "studio.lab.continuation.evaluate:evaluate"}},
        evaluations={"continuation": "studio.lab.evaluation.continuation:ContinuationEvaluation",
                     "continuation-read": "studio.lab.evaluation.reads:ContinuationReadEvaluation"},
        roles=("writer", "continuation_generator", "lm", "judge_cross", "embedder", "parser", "language",
               "spelling"),
        serving=("studio.continuation.service", "studio.continuation.generate", "studio.continuation.judge"),
        front_door="studio.continuation.service"),
)

#: what belongs to the studio as a whole rather than to one capability
STUDIO_TABS = ("studio.ui.models_tab:build_models_tab", "studio.ui.about_tab:build_about_tab")
STUDIO_COMMANDS = ("studio.cli.models_cmd", "studio.cli.groups")
STUDIO_TARGETS = {"eval": {"all": "studio.lab.evaluation.cli:run_all", "table": "studio.lab.evaluation.cli:table"}}
#: the evaluations of what every front door shares (the English check and the typo notice, studio/figures/english.py)
STUDIO_EVALUATIONS = {"language": "studio.lab.evaluation.language:LanguageEvaluation",
                      "spelling": "studio.lab.evaluation.spelling:SpellingEvaluation"}


def tabs() -> list[str]:
    """"module:builder" of every tab, in display order."""
    return [c.tab for c in CAPABILITIES if c.tab] + list(STUDIO_TABS)


def command_modules() -> list[str]:
    return list(STUDIO_COMMANDS[:1]) + [m for c in CAPABILITIES for m in c.commands] + list(STUDIO_COMMANDS[1:])


def targets() -> dict[str, dict[str, str]]:
    """{group: {target: "module:function"}} over all capabilities; a target named twice is an error."""
    out: dict[str, dict[str, str]] = {"build": {}, "train": {}, "eval": {
        **STUDIO_TARGETS["eval"], **{n: f"studio.lab.evaluation.cli:{n}" for n in STUDIO_EVALUATIONS}}}
    for c in CAPABILITIES:
        named_targets = dict(c.targets)
        named_targets["eval"] = {**{n: f"studio.lab.evaluation.cli:{n}" for n in c.evaluations},
                                 **c.targets.get("eval", {})}
        for group, named in named_targets.items():
            for target, where in named.items():
                if target in out[group]:
                    raise ValueError(f"{group} target {target!r} is declared twice ({c.name})")
                out[group][target] = where
    return out


def evaluations() -> dict[str, str]:
    """{name: "module:Class"} of every evaluation contract, in the order of CAPABILITIES, the studio's own last."""
    return {**{name: where for c in CAPABILITIES for name, where in c.evaluations.items()}, **STUDIO_EVALUATIONS}


def tab_title(name: str) -> str:
    """The title of capability `name`'s tab on the page."""
    for c in CAPABILITIES:
        if c.name == name and c.tab_title:
            return c.tab_title
    raise KeyError(f"no capability {name!r} with a tab")


def tabs_using(role: str) -> list[str]:
    """The titles of the tabs whose capability uses a registry role, in display order ("Polish", "Rerank")."""
    return [c.tab_title for c in CAPABILITIES if role in c.roles and c.tab_title]
