"""The offline NLI cross-encoder (studio.models.pair_nli over studio.models.pair_encoder): batching keeps the input
order, the registry serves it, its splits never share a premise, and the committed weights see contradictions."""
from __future__ import annotations

import json

import numpy as np
import pytest

from studio.models.pair_folder import CONFIG, WEIGHTS, has_pair_encoder
from studio.models.specs import HEADS_DIR, spec_for
from studio.shared_data import shared_data_dir

CROSS = HEADS_DIR / "nli-cross"
HAVE_NLI = (shared_data_dir() / "nli" / "mnli_dev_matched.jsonl").is_file()


def _tiny_cross_nli():
    """A CrossEncoderNLI over a random 2-layer BERT (the real class and tokenizer path, tiny weights)."""
    import torch
    from transformers import BertConfig, BertModel

    from studio.models.pair_encoder import _scorer_class
    from studio.models.pair_nli import CrossEncoderNLI

    class Tok:  # whitespace tokenizer with the call signature the class uses
        def __call__(self, a, b, truncation=None, max_length=16, padding=True, return_tensors="pt"):
            ids = [[1] + [hash(w) % 90 + 5 for w in (x + " [SEP] " + y).split()][:max_length - 2] + [2]
                   for x, y in zip(a, b)]
            n = max(len(i) for i in ids)
            mask = [[1] * len(i) + [0] * (n - len(i)) for i in ids]
            ids = [i + [0] * (n - len(i)) for i in ids]
            return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask)}

    torch.manual_seed(0)
    bert = BertModel(BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                                intermediate_size=32))
    model = _scorer_class()(bert, outputs=3, pool="all").eval()
    config = {"labels": ["contradiction", "entailment", "neutral"], "max_length": 16, "kind": "nli"}
    return CrossEncoderNLI(config, Tok(), model, "tiny")


def test_cross_nli_batches_keep_the_input_order_and_label_order():
    nli = _tiny_cross_nli()
    premises = ["a b c d e f g", "x", "the cat sat", "loud voice very loud indeed"]
    hypotheses = ["a", "y z w v u", "the cat stood", "a whisper"]
    together = nli.predict(premises, hypotheses, batch_size=2)
    alone = np.vstack([nli.predict([p], [h]) for p, h in zip(premises, hypotheses)])
    assert together.shape == (4, 3) and together.sum(1) == pytest.approx(np.ones(4))
    assert together == pytest.approx(alone, abs=1e-5)
    # the stored label order (contradiction first here) is served as entailment, neutral, contradiction
    import torch

    x = nli.tok(premises[:1], hypotheses[:1])
    with torch.inference_mode():
        raw = torch.softmax(nli.model(**x), -1).numpy()[0]
    assert together[0] == pytest.approx(raw[[1, 2, 0]], abs=1e-5)
    assert nli.predict([], []).shape == (0, 3)
    with pytest.raises(ValueError):
        nli.predict(["a"], [])


def test_an_override_folder_with_a_pair_encoder_is_served_as_one(tmp_path):
    (tmp_path / CONFIG).write_text("{}")
    (tmp_path / WEIGHTS).write_bytes(b"")
    assert spec_for("offline", "nli", str(tmp_path)).backend == "pair_nli"
    assert spec_for("offline", "nli").backend == "pair_nli"
    assert spec_for("offline", "nli", str(HEADS_DIR / "sentiment")).backend == "transformers_nli"  # no NLI head


@pytest.mark.skipif(not HAVE_NLI, reason="../shared/data/nli is not available")
def test_nli_splits_share_no_premise_and_no_flute_sentence():
    from studio.lab.evaluation.nli import splits

    data = splits()
    for name in ("mnli", "snli"):
        parts = {p: {r[0] for r in rows} for p, rows in data[name].items()}
        assert parts["dev"] and parts["test"] and not parts["train"] & (parts["dev"] | parts["test"])
        assert not parts["dev"] & parts["test"]
        n = sum(len(rows) for rows in data[name].values())
        assert 0.15 < (len(data[name]["dev"]) + len(data[name]["test"])) / n < 0.35
    for kind in ("simile", "metaphor", "idiom"):
        d = {p: {r[1] for r in rows} for p, rows in data[f"flute_{kind}"].items()}
        assert d["dev"] and d["test"] and not d["dev"] & d["test"] and not d["train"] & d["test"]


def test_committed_cross_encoder_within_budget():
    assert has_pair_encoder(CROSS), "run `python -m studio train nli-cross`"
    assert (CROSS / WEIGHTS).stat().st_size <= 20 * 2**20
    config = json.loads((CROSS / CONFIG).read_text())
    assert config["kind"] == "nli" and set(config["labels"]) == {"entailment", "neutral", "contradiction"}
    assert all(key.endswith("/ dev") for key in config["metrics"])  # the trainer looked at dev only


@pytest.mark.offline
def test_cross_encoder_sees_a_stated_contradiction(offline):
    """A simile that states the opposite property contradicts; one that keeps it does not. (The ironic "as loud as
    a whisper" is still read as entailment: docs/hauser.md, known misses.)"""
    nli = offline.get("nli")
    assert "cross-encoder" in nli.backend
    literal = "Her voice was very loud."
    probs = nli.predict([literal] * 3, ["Her voice was as quiet as a mouse.", "Her voice was as loud as thunder.",
                                        "Her voice was as loud as a lion's roar."])
    labels = ["entailment", "neutral", "contradiction"]
    assert labels[int(probs[0].argmax())] == "contradiction"
    assert labels[int(probs[1].argmax())] == "entailment" and labels[int(probs[2].argmax())] != "contradiction"


def test_wordnet_antonyms_and_kb_template_pairs(tmp_path):
    """The training-only augmentation: WordNet's direct antonym pointers, and pairs whose label follows the vehicle's
    typical property (as loud as thunder: entailment; as loud as a whisper: contradiction)."""
    from studio.lab.hauser.nli_augment import kb_pairs, wordnet_antonyms
    from studio.figures.kb import SimileKB

    adj = tmp_path / "data.adj"
    adj.write_text(
        "  1 this is the licence header\n"
        "00000001 00 a 01 loud 0 001 ! 00000002 a 0101 | loud\n"
        "00000002 00 a 02 soft 0 quiet 0 001 ! 00000001 a 0101 | soft\n")
    ants = wordnet_antonyms(adj)
    assert ants == {"loud": {"soft"}, "soft": {"loud"}}
    kb = SimileKB({"meta": {}, "lemmas": {}, "vehicles": {"thunder": 3, "whisper": 2},
                   "pairs": {"voice\tthunder": 2, "voice\twhisper": 1},
                   "triplets": {"voice\tthunder": [["loud", 2, 0.9]], "voice\twhisper": [["soft", 1, 0.9]]},
                   "contexts": []})
    rows = kb_pairs(60, seed=1, kb=kb, antonyms=ants)
    assert len(rows) == 60 and {r[2] for r in rows} == {"entailment", "contradiction"}
    for premise, hypothesis, label in rows:
        said = premise.split(" was very ")[1].rstrip(".")
        if hypothesis.endswith(("as loud as thunder.", "like a thunder.")) or \
                hypothesis.endswith(("as soft as a whisper.", "like a whisper.")):
            typical = "loud" if "thunder" in hypothesis else "soft"
            assert label == ("entailment" if said == typical else "contradiction"), (premise, hypothesis, label)
    ironic = [r for r in rows if r[1].endswith(("as loud as a whisper.", "as soft as a thunder."))]
    assert ironic and all(label == "contradiction" for _, _, label in ironic)


def test_train_nli_cross_refuses_bad_options_in_one_line(capsys, tmp_path):
    from studio.cli import main

    assert main(["train", "nli-cross", "--init", str(tmp_path / "none"), "--no-save"]) == 2
    assert "no stored cross-encoder" in capsys.readouterr().err
    assert main(["train", "nli-cross", "--batch", "0", "--no-save"]) == 2


@pytest.mark.offline
@pytest.mark.skipif(not HAVE_NLI, reason="MNLI (../shared/data/nli) is not available")
@pytest.mark.parametrize("rank", [0, 2], ids=["minilm-top-layers", "mpnet-low-rank"])
def test_train_nli_cross_runs_its_steps_and_saves_a_servable_folder(offline, tmp_path, rank):
    """Two steps of the shared loop (studio.lab.hauser.pair_training), from MiniLM or with low-rank factors over
    all-mpnet-base-v2; the folder loads as the NLI role's model and keeps its recipe and dev-only metrics."""
    from studio.lab.hauser.train_nli_cross import train
    from studio.models.pair_nli import load_cross_nli

    out = tmp_path / "nli"
    result = train(["--max-rows", "32", "--batch", "16", "--eval-limit", "4", "--lora-rank", str(rank),
                    "--out", str(out)])
    assert result["recipe"]["steps"] == result["recipe"]["steps_planned"] == 2
    assert all(key.endswith("/ dev") for key in result["metrics"])
    assert (result.get("delta"), result.get("rank")) == (("low_rank", rank) if rank else (None, None))
    nli = load_cross_nli(out)
    assert ("low-rank" in nli.backend) == bool(rank)
    probs = nli.predict(["A man plays a guitar."], ["Nobody plays."])
    assert probs.shape == (1, 3) and probs.sum() == pytest.approx(1.0)
    if rank:  # measured as served: the stored factors over the shared float32 base score what training reported
        from studio.lab.evaluation.nli import measure

        assert measure(nli, parts=("dev",), limit=4) == result["metrics"]


HAVE_FIGURATIVE = (shared_data_dir() / "figurative" / "idiom_train.jsonl").is_file()


@pytest.mark.skipif(not (HAVE_NLI and HAVE_FIGURATIVE), reason="../shared/data/nli or figurative is not available")
def test_flute_rows_of_the_judges_dev_and_test_expressions_are_found():
    """`train nli-cross --without-held-expressions`: FLUTE paraphrases the narrative benchmark's train file, so the
    rows holding an idiom or simile of our dev / test parts are found (364 of 3,018 when measured; an idiom inflected
    inside a word, "cross examined", is missed)."""
    from studio.lab.continuation.data import held_expressions, mentions_held_expression, split3
    from studio.lab.evaluation.nli import splits

    for kind in ("idiom", "simile"):
        parts = split3(kind)
        held_items = parts["dev"] + parts["test"]
        found = sum(mentions_held_expression([item.narrative], kind) for item in held_items)
        assert found >= 0.97 * len(held_items)
        assert len(held_expressions(kind)) >= len({item.expression.lower() for item in held_items})
    data = splits()
    found = sum(mentions_held_expression(row[:2], kind) for kind in ("idiom", "simile")
                for row in data[f"flute_{kind}"]["train"])
    assert 300 <= found <= 420
