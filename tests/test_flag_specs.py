"""Contamination holds for a model: `contaminated@MODEL` and `@run` read only that model's
pipeline flags (plus people's flags, which name no model), in filters and in every score.

Demo claims 1-12 as in test_scoring: run A (model "model-a") and run B (model "model-b").
"""

from __future__ import annotations

import pytest

from store import FilterError, FlagSpec, FlagSpecError, Prediction, Run
from workbench.scoring.compare import compare_runs
from workbench.scoring.runs import ScoringError, score_run


def make_run(store, name, model, answers):
    run = store.runs.create(Run(name=name, dataset_id=1, model=model), list(answers))
    for claim_id, verdict in answers.items():
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status="ok", verdict=verdict))
    return run


@pytest.fixture
def flagged_store(demo_store):
    store = demo_store
    everything_refuted = {claim_id: "Refuted" for claim_id in range(1, 13)}
    make_run(store, "A", "model-a", everything_refuted)
    make_run(store, "B", "model-b", everything_refuted)
    store.annotations.flag([1, 2], "contaminated", source="pipeline", model="model-a", metric="meteor")
    store.annotations.flag([3], "contaminated", source="pipeline", model="model-b", metric="meteor")
    store.annotations.flag([4], "contaminated")  # a person's flag: every model
    return store


def test_a_model_qualified_flag_term_reads_that_models_flags_and_peoples(flagged_store):
    ids = flagged_store.claims.ids
    assert ids("flagged:contaminated") == [1, 2, 3, 4]
    assert ids("flagged:contaminated@model-a") == [1, 2, 4]
    assert ids("flagged:contaminated@model-b") == [3, 4]
    assert ids("run:A flagged:contaminated@run") == [1, 2, 4]
    assert ids("run:B flagged:contaminated@run") == [3, 4]
    assert ids("run:A -flagged:contaminated@run id<7") == [3, 5, 6]


def test_a_model_name_with_spaces_is_quoted_after_the_at(flagged_store):
    flagged_store.annotations.flag(
        [5], "contaminated", source="pipeline", model="gguf:/models/my model.gguf", metric="meteor"
    )
    assert flagged_store.claims.ids('flagged:contaminated@"gguf:/models/my model.gguf"') == [4, 5]
    assert flagged_store.claims.ids('flagged:"contaminated@gguf:/models/my model.gguf"') == [4, 5]


def test_a_comparison_will_not_break_down_by_either_runs_model(flagged_store):
    with pytest.raises(ScoringError, match="could mean either run's model"):
        compare_runs(flagged_store, "A", "B", by="flag:contaminated@run", resamples=0)
    by_model = compare_runs(flagged_store, "A", "B", by="flag:contaminated@model-a", resamples=0).full
    assert {s.value: s.shared for s in by_model.slices} == {"yes": 3, "no": 8}


def test_a_misspelt_model_or_a_run_less_at_run_is_an_error_at_the_term(flagged_store):
    text = "label:Refuted flagged:contaminated@model-c"
    with pytest.raises(FilterError, match="no flag was found for model 'model-c'.*model-a, model-b") as caught:
        flagged_store.claims.ids(text)
    assert text[caught.value.start : caught.value.end] == "flagged:contaminated@model-c"
    with pytest.raises(FilterError, match="@run needs a run"):
        flagged_store.claims.ids("flagged:contaminated@run")
    with pytest.raises(FlagSpecError, match="name a model after @"):
        FlagSpec.parse("contaminated@")


def test_scores_without_one_models_contaminated_claims(flagged_store):
    # Gold of 1-12 (see test_scoring): Refuted at 1, 5, 8, 10, 12; 11 is Unclear (not scored).
    by_model = score_run(flagged_store, "A", exclude_flag="contaminated@model-a", resamples=0)
    assert by_model.flagged == 3  # 1, 2 and 4
    assert by_model.filtered.overall.summary.scored == 8
    assert by_model.filtered.overall.summary.correct == 4  # 5, 8, 10, 12
    per_run = score_run(flagged_store, "B", exclude_flag="contaminated@run", resamples=0)
    assert per_run.flagged == 2  # 3 and 4
    assert per_run.filtered.overall.summary.correct == 5  # 1, 5, 8, 10, 12: model B keeps 1
    breakdown = score_run(flagged_store, "A", by=["flag:contaminated@run"], resamples=0).full.breakdowns
    assert breakdown["flag:contaminated@run"]["yes"].summary.scored == 3


def test_a_comparison_leaves_out_what_either_runs_model_is_contaminated_on(flagged_store):
    result = compare_runs(flagged_store, "A", "B", exclude_flag="contaminated@run", resamples=0)
    assert result.filtered.shared == result.full.shared - 4  # 1, 2, 3 and 4
    assert flagged_store.claims.ids(result.filtered.right_to_wrong_filter) == result.filtered.right_to_wrong


def test_scoring_names_a_model_no_flag_was_found_for(flagged_store):
    with pytest.raises(ScoringError, match="no flag was found for model 'gpt-9'"):
        score_run(flagged_store, "A", exclude_flag="contaminated@gpt-9", resamples=0)
