"""Contamination scores without a language model: pair scores (real METEOR with WordNet,
real MiniLM embeddings), the Hungarian claim score, flags at tau, their intersection,
and the threshold sweep. Also holds the constructed evidence other tests score."""

from __future__ import annotations

import pytest

from tests.support.contamination import EVIDENCE, ORACLE, make_scores
from workbench.contamination.flagging import ContaminationError, combine_flags, pick_group, summarise, write_flags
from workbench.contamination.pipeline_evidence import aligned_rows
from workbench.contamination.pipeline_tasks import parse_evidence_list
from workbench.contamination.similarity import PairScorer, parse_metric, score_claim
from workbench.contamination.sweep import sweep
from workbench.nlp.meteor import MeteorScorer


@pytest.fixture(scope="module")
def meteor():
    return PairScorer(parse_metric("meteor"))


@pytest.fixture(scope="module")
def embedding():
    return PairScorer(parse_metric("embedding"))


def test_meteor_claim_score_is_the_matched_sum_over_the_oracle_count(meteor):
    oracle, generated = EVIDENCE[2]
    result = score_claim(oracle, generated, meteor)
    direct = MeteorScorer()
    same = direct.score(oracle[0], generated[0])  # reference = oracle, hypothesis = generated
    assert result.pairs[0][:2] == (0, 0) and result.pairs[0][2] == pytest.approx(same)
    assert same > 0.99  # an identical sentence
    assert result.score == pytest.approx(sum(f for _, _, f in result.pairs) / 3)
    assert 0.3 < result.score < 0.4  # one of three oracle sentences reproduced
    assert (result.n_oracle, result.n_generated, result.scorable) == (3, 2, True)


def test_pairs_are_one_to_one_and_every_oracle_sentence_counts(meteor):
    oracle = ["Prices rose 5 percent in 2020.", "Prices rose 5 percent in 2021."]
    generated = ["Prices rose 5 percent in 2020.", "Prices rose 5 percent in 2020.", "Prices rose 5 percent in 2021."]
    result = score_claim(oracle, generated, meteor)
    assert sorted(o for o, _, _ in result.pairs) == [0, 1]
    assert len({g for _, g, _ in result.pairs}) == 2  # no generated sentence used twice
    assert result.score > 0.99


def test_no_generated_evidence_scores_zero_and_no_oracle_is_not_scorable(meteor, embedding):
    for scorer in (meteor, embedding):
        empty = score_claim(ORACLE, [], scorer)
        assert (empty.score, empty.scorable, empty.n_oracle, empty.pairs) == (0.0, True, 3, [])
        none = score_claim([], ["Something."], scorer)
        assert none.score is None and not none.scorable and none.n_generated == 1


def test_embedding_cosine_is_one_for_identical_sentences_and_lower_for_unrelated(embedding):
    same = embedding.matrix([ORACLE[0]], [ORACLE[0]])[0, 0]
    unrelated = embedding.matrix([ORACLE[0]], ["A football club won the league in a dramatic final."])[0, 0]
    assert same == pytest.approx(1.0, abs=1e-4)
    assert 0.0 <= unrelated < 0.3
    full = score_claim(*EVIDENCE[1], embedding)
    partial = score_claim(*EVIDENCE[2], embedding)
    assert full.score == pytest.approx(1.0, abs=1e-4)
    assert 0.33 < partial.score < 0.6 and partial.score < full.score


def test_metric_names_and_errors(tmp_path):
    assert parse_metric("meteor").default_tau == 0.25
    assert parse_metric("embedding").default_tau == 0.6
    with pytest.raises(ValueError, match="unknown metric 'bleu'"):
        parse_metric("bleu")
    with pytest.raises(RuntimeError, match="no embedding model folder"):
        parse_metric(f"embedding:{tmp_path / 'nowhere'}")
    with pytest.raises(RuntimeError, match="not a sentence-transformers model folder"):
        parse_metric(f"embedding:{tmp_path}")


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"evidence": ["A  b.", "A b.", "", "C."]}', ["A b.", "C."]),
        ('Here you go:\n```json\n["x", "y"]\n```', ["x", "y"]),
        ('{"Evidence": []}', []),
        ('[{"text": "t1"}, {"sentence": "s2", "n": 1}]', ["t1", "s2"]),
        ("The evidence is that the sky is blue.", None),
        ('{"evidence": ["cut off', None),
    ],
)
def test_evidence_lists_are_read_tolerantly(text, expected):
    assert parse_evidence_list(text) == expected


def test_aligned_rows_put_pairs_first_then_the_unmatched():
    assert aligned_rows(3, 2, [[2, 0, 0.5], [0, 1, 0.9]]) == [(0, 1, 0.9), (2, 0, 0.5), (1, None, None)]
    assert aligned_rows(1, 3, [[0, 2, 0.4]]) == [(0, 2, 0.4), (None, 0, None), (None, 1, None)]


def test_flags_follow_tau_and_leave_other_models_alone(demo_store):
    rows = make_scores(demo_store, "gguf:A")
    make_scores(demo_store, "gguf:B")
    group = pick_group(demo_store, "gguf:A", "meteor")
    for tau in (0.0, 0.3, 0.9, 1.0):
        write_flags(demo_store, group, tau)
        flagged = demo_store.annotations.flagged_claim_ids("contaminated", "gguf:A", "meteor", "pipeline")
        assert flagged == {r.claim_id for r in rows if r.score >= tau}
    assert demo_store.annotations.flagged_claim_ids("contaminated", "gguf:B") == set()
    summary = summarise(demo_store, group, 0.3)
    scores = [r.score for r in rows]
    assert summary.mean_score == pytest.approx(sum(scores) / 4)
    assert summary.would_flag == sum(s >= 0.3 for s in scores) == 2 and summary.share_flagged == 0.5


def test_combine_flags_the_intersection_under_combined_names(demo_store, embedding):
    make_scores(demo_store, "gguf:A", evidence={**EVIDENCE, 3: (ORACLE, [ORACLE[1]])})
    make_scores(demo_store, "gguf:B")
    make_scores(demo_store, "gguf:A", scorer=embedding)
    write_flags(demo_store, pick_group(demo_store, "gguf:A", "meteor"), 0.3)  # claims 1, 2, 3
    write_flags(demo_store, pick_group(demo_store, "gguf:B", "meteor"), 0.3)  # claims 1, 2
    write_flags(demo_store, pick_group(demo_store, "gguf:A", "embedding"), 0.9)  # claim 1
    _, flags = combine_flags(demo_store, ["gguf:A", "gguf:B"], ["meteor"])
    assert {f.claim_id for f in flags} == {1, 2}
    assert {(f.model, f.metric) for f in flags} == {("gguf:A&gguf:B", "meteor")}
    assert demo_store.annotations.flagged_claim_ids("contaminated", "gguf:A&gguf:B", "meteor") == {1, 2}
    _, flags = combine_flags(demo_store, ["gguf:A"], ["meteor", "embedding"])
    assert [(f.claim_id, f.model, f.metric) for f in flags] == [(1, "gguf:A", "meteor&embedding")]
    scores = demo_store.contamination.score_values("gguf:A", "meteor")
    assert flags[0].score == pytest.approx(
        min(scores[1], demo_store.contamination.score_values("gguf:A", "embedding")[1])
    )
    with pytest.raises(ContaminationError, match="two or more"):
        combine_flags(demo_store, ["gguf:A"], ["meteor"])
    with pytest.raises(ContaminationError, match="no contamination scores for model gguf:C"):
        combine_flags(demo_store, ["gguf:A", "gguf:C"], ["meteor"])


def test_sweep_finds_the_known_best_tau():
    scores = {1: 0.10, 2: 0.20, 3: 0.42, 4: 0.70, 5: 0.90}
    labels = {1: False, 2: False, 3: True, 4: True, 5: False}
    result = sweep(scores, labels)
    # Flags at 0.21-0.42 get 1-4 right and 5 wrong (4/5); above 0.90 only 3 and 4 are wrong (3/5).
    assert result.best_agreement == pytest.approx(0.8)
    assert result.tied == (0.21, 0.42) and result.best_tau == 0.31 and result.is_tie
    assert result.confusion == {
        "flagged_contaminated": 2,
        "flagged_clean": 1,
        "missed_contaminated": 0,
        "passed_clean": 2,
    }
    assert len(result.taus) == 101 and result.agreement[0] == pytest.approx(0.4)


def test_sweep_with_a_single_best_tau_and_unscored_labels():
    scores = {1: 0.10, 2: 0.11, 3: 0.50}
    result = sweep(scores, {1: False, 2: True, 3: True, 99: True})  # 99 has no score: left out
    assert result.labelled == 3 and result.positives == 2
    assert result.best_tau == 0.11 and result.best_agreement == 1.0  # only tau in (0.10, 0.11] separates
    assert result.tied == (0.11, 0.11) and not result.is_tie


def test_score_rows_round_trip(demo_store):
    rows = make_scores(demo_store)
    again = {r.claim_id: r for r in demo_store.contamination.score_rows("gguf:A", "meteor")}
    assert again[2].pairs == rows[1].pairs and again[2].external_id == "js-002"
    assert [r.claim_id for r in demo_store.contamination.score_rows(scorable_only=True)][0] == 1  # highest first


@pytest.mark.parametrize(
    "top, ticks", [(0, [0, 1]), (3, [0, 1, 2, 3]), (7, [0, 2, 4, 6, 7]), (300, [0, 75, 150, 225, 300])]
)
def test_histogram_counts_are_labelled_with_whole_numbers(top, ticks):
    from workbench.render.charts import count_ticks, histogram_counts

    assert count_ticks(top) == ticks
    assert histogram_counts([0.0, 0.049, 0.05, 1.0]) == [2, 1] + [0] * 17 + [1]


def test_histogram_chart_shows_the_counts_and_tau():
    from workbench.render.charts import as_text, draw_histogram

    text = as_text(draw_histogram, [0.0, 0.0, 0.0, 0.11], 0.25, "", True, width=60, height=8)
    rows = [line for line in text.splitlines() if "┤" in line]
    assert [row.split("┤")[0].strip() for row in rows] == ["3", "2", "1", "0"]  # one row per claim count
    assert "s" not in text.splitlines()[-1]  # compact: no x label row
