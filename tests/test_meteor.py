"""MeteorScorer gives exactly nltk's single_meteor_score, on edge cases and real data."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.corpus import wordnet
from nltk.tokenize import word_tokenize
from nltk.translate.meteor_score import single_meteor_score

from workbench.nlp.meteor import MeteorScorer

AVERITEC = Path(__file__).resolve().parents[2] / "shared" / "data" / "averitec"

# Each pair exercises one part of nltk's alignment or arithmetic.
PAIRS = [
    ("", ""),
    ("", "A non-empty hypothesis."),
    ("A non-empty reference.", ""),
    ("...", "!!! ???"),
    ("Hello, world!", "hello world"),
    ("The the the cat sat.", "the cat the the"),
    ("the cat the dog the cat", "the dog the cat the dog the"),
    ("The dog ran quickly.", "The hound sprinted fast."),
    ("A big automobile", "a large car"),
    ("big great large", "large big bad great"),
    # "dog" and "hunt" both have "hound" as a synonym; nltk lets the later one take it.
    ("The hound", "the dog hunt"),
    ("The hound", "the hunt dog"),
    ("car machine auto", "automobile auto car machine"),
    ("The runners were running a run.", "Runner runs; the run was run."),
    ("It was 1–3 in the 2020–21 season", "It was 1-3 in the 2020-21 season"),
    ("Don't say \"never\" - it's Biden's", "Do not say never, it is Biden"),
    (
        "Was the claim first published on Facebook?",
        "Where was the claim first published? It was first published on Facebook.",
    ),
    # nltk's own documented example (0.6944).
    (
        "It is a guide to action that ensures that the military will forever heed Party commands",
        "It is a guide to action which ensures that the military always obeys the commands of the party",
    ),
]

# Repeats, shared stems and overlapping synonym sets (big/great, car/auto, dog/hound/
# hunt/chase/trace) make the order in which nltk pairs words matter.
VOCAB = [
    "the",
    "The",
    "a",
    "dog",
    "dogs",
    "hound",
    "hunt",
    "chase",
    "trace",
    "run",
    "running",
    "ran",
    "runner",
    "big",
    "large",
    "great",
    "bad",
    "quick",
    "fast",
    "car",
    "cars",
    "auto",
    "automobile",
    "machine",
    "house",
    "home",
    "Housing",
    ".",
    ",",
    "is",
    "be",
    "was",
]


@pytest.fixture(scope="module")
def scorer() -> MeteorScorer:
    return MeteorScorer()


def nltk_meteor(reference: str, hypothesis: str) -> float:
    return single_meteor_score(word_tokenize(reference), word_tokenize(hypothesis))


@pytest.mark.parametrize("reference,hypothesis", PAIRS)
def test_equals_nltk_on_edge_cases(scorer, reference, hypothesis):
    assert scorer.score(reference, hypothesis) == nltk_meteor(reference, hypothesis)
    assert scorer.score(hypothesis, reference) == nltk_meteor(hypothesis, reference)


def test_known_values(scorer):
    assert round(scorer.score(*PAIRS[-1]), 4) == 0.6944
    assert scorer.score("", "") == 0.0
    assert scorer.score("alpha beta", "gamma delta") == 0.0
    # Synonyms and stems count as matches, not only identical words.
    assert scorer.score("The dog ran quickly.", "The hound sprinted fast.") > scorer.score(
        "The dog ran quickly.", "The zebra sprinted elsewhere."
    )


@settings(max_examples=500, deadline=None, database=None)
@given(st.lists(st.sampled_from(VOCAB), max_size=12), st.lists(st.sampled_from(VOCAB), max_size=12))
def test_equals_nltk_on_token_lists(scorer, reference, hypothesis):
    # A small vocabulary full of repeats, stems and synonyms stresses the match order.
    assert scorer.score_tokens(reference, hypothesis) == single_meteor_score(reference, hypothesis)


def test_matrix_layout_and_cache_do_not_change_scores(scorer):
    refs = [p[0] for p in PAIRS[4:9]]
    hyps = [p[1] for p in PAIRS[6:12]]
    first = scorer.matrix(refs, hyps)
    assert first.shape == (len(refs), len(hyps))
    for i, ref in enumerate(refs):
        for j, hyp in enumerate(hyps):
            assert first[i, j] == nltk_meteor(ref, hyp)
    # Warm caches (and a fresh scorer warmed by two processes) give the same numbers.
    assert np.array_equal(scorer.matrix(refs, hyps), first)
    fresh = MeteorScorer()
    fresh.warm_up(refs, hyps, workers=2)
    assert np.array_equal(fresh.matrix(refs, hyps), first)


def nltk_synonyms(word: str) -> set[str]:
    """The synonym set nltk's METEOR builds for a hypothesis word."""
    return {
        lemma.name() for synset in wordnet.synsets(word) for lemma in synset.lemmas() if "_" not in lemma.name()
    } | {word}


def test_synonym_sets_equal_nltks(scorer):
    # Includes adjectives stored with a syntactic marker ("galore(ip)"), irregular
    # forms WordNet resolves through its exception lists, and Porter stems.
    words = random.Random(5).sample(sorted(wordnet.all_lemma_names()), 3000)
    words += ["galore", "elect", "geese", "better", "was", "larg", "run", "xyzzy"]
    assert [w for w in words if scorer.synonyms(w) != nltk_synonyms(w)] == []


def evidence_strings(path: Path) -> tuple[list[str], list[str]]:
    """Gold question+answer strings and predicted ones from the real dev files."""
    gold = json.loads((path / "dev.json").read_text(encoding="utf-8"))
    predictions = json.loads((path / "dev_baseline_predictions.json").read_text(encoding="utf-8"))
    gold_texts = [q["question"] + " " + a["answer"] for g in gold for q in g["questions"] for a in q["answers"]]
    pred_texts = [e["question"] + " " + e["answer"] for p in predictions for e in p["evidence"]]
    return gold_texts, pred_texts


def test_equals_nltk_on_real_averitec_dev_pairs(scorer):
    if not (AVERITEC / "dev.json").exists():
        pytest.skip(f"{AVERITEC} is absent (the real AVeriTeC data lives in ../shared)")
    gold_texts, pred_texts = evidence_strings(AVERITEC)
    rng = random.Random(2024)
    pairs = [(rng.choice(gold_texts), rng.choice(pred_texts)) for _ in range(1500)]
    # Also pairs that share many words: a gold string against its own question.
    pairs += [(text, text.split("?")[0]) for text in gold_texts[:300]]
    mismatches = [(r, h) for r, h in pairs if scorer.score(r, h) != nltk_meteor(r, h)]
    assert mismatches == []
