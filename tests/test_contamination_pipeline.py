"""The contamination pipeline end to end with the real SmolLM2 GGUF as target and extractor.

SmolLM2-135M writes poor articles and poor evidence lists; these tests check the
machinery a user relies on: every step stored as a run, evidence lists or recorded
parse failures, scores in [0, 1] with their pairs, flags that agree with tau, and
re-running costing no model call.
"""

from __future__ import annotations

import threading

import pytest
from click.testing import CliRunner

from store import Store
from workbench.backends.llama import LlamaBackend
from workbench.cli import main
from workbench.cli.demo import load_demo
from workbench.contamination.pipeline import ContaminationRequest, plan_pipeline, run_pipeline
from workbench.contamination.pipeline_evidence import generated_side, oracle_side
from workbench.runs.types import ItemFinished

pytestmark = pytest.mark.slow
SMALL = dict(
    model="gguf:default",
    extractor="gguf:default",
    params={"max_tokens": 48},
    extractor_params={"max_tokens": 64},
    max_evidence=3,
)
CLI_SMALL = [
    "--model",
    "gguf:default",
    "--param",
    "max_tokens=48",
    "--extractor-param",
    "max_tokens=64",
    "--max-evidence",
    "3",
]


class ModelCalls:
    """Counts calls into llama.cpp (each still runs the real model)."""

    def __init__(self, monkeypatch):
        self.count = 0
        original = LlamaBackend.complete_blocking

        def counting(backend, request):
            self.count += 1
            return original(backend, request)

        monkeypatch.setattr(LlamaBackend, "complete_blocking", counting)


class Piped:
    def __init__(self, db_path, calls):
        self.db_path, self.calls = db_path, calls

    def run(self, **changes):
        """Plan and run a request; (outcome, [(step, prepared)])."""
        store = Store.open(self.db_path)
        try:
            plan = plan_pipeline(store, ContaminationRequest(**{**SMALL, "claim_ids": [1, 2], **changes}))
        finally:
            store.close()
        steps = []
        cancel = changes.pop("_cancel", None) if "_cancel" in changes else None
        outcome = run_pipeline(self.db_path, plan, lambda step, prepared: steps.append((step, prepared)), None, cancel)
        return outcome, steps

    def store(self) -> Store:
        return Store.open(self.db_path)


@pytest.fixture(scope="module")
def piped(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("contamination")
        patch.setenv("WORKBENCH_CONFIG", str(folder / "no-config.toml"))
        db_path = folder / "workbench.db"
        store = Store.open(db_path)
        load_demo(store)
        store.close()
        pipeline = Piped(db_path, ModelCalls(patch))
        pipeline.first = pipeline.run()
        yield pipeline


def oracle_known(store, outcome) -> list[int]:
    """Claims whose oracle article yielded evidence (only these get an article)."""
    oracle = store.runs.get(outcome.runs["oracle evidence"])
    return [p.claim_id for p in store.runs.predictions(oracle.id) if p.status == "ok" and p.parsed["evidence"]]


def test_every_step_is_a_stored_run_with_its_answers(piped):
    outcome, steps = piped.first
    assert outcome.status == "finished", outcome.message
    store = piped.store()
    known = oracle_known(store, outcome)
    assert known, "SmolLM2 found no evidence in either oracle article; pick other demo claims"
    assert [step for step, _ in steps] == ["oracle evidence", "articles", "generated evidence"]
    runs = {step: store.runs.get(name) for step, name in outcome.runs.items()}
    assert [runs[s].kind for s in ("oracle evidence", "articles", "generated evidence")] == [
        "extract",
        "article",
        "extract",
    ]
    assert runs["oracle evidence"].setting == "oracle articles"
    assert store.runs.claim_ids(runs["oracle evidence"].id) == [1, 2]
    assert store.runs.claim_ids(runs["articles"].id) == known
    articles = store.runs.predictions(runs["articles"].id)
    assert all(p.raw_output.strip() for p in articles if p.status == "ok")
    for step in ("oracle evidence", "generated evidence"):
        for p in store.runs.predictions(runs[step].id):
            assert p.status in ("ok", "parse_failure") and p.raw_output is not None
            if p.status == "ok":
                evidence = p.parsed["evidence"]
                assert isinstance(evidence, list) and len(evidence) <= 3
                assert all(isinstance(s, str) and s.strip() for s in evidence)
            else:
                assert p.parsed is None and p.attempts == 3  # retried with a new seed and a nudge
    store.close()


def test_scores_keep_their_pairs_and_lie_in_zero_to_one(piped):
    store = piped.store()
    known = oracle_known(store, piped.first[0])
    rows = {r.claim_id: r for r in store.contamination.score_rows("gguf:default", "meteor")}
    assert set(rows) == {1, 2}
    for claim_id, row in rows.items():
        claim = store.claims.get(claim_id)
        oracle = oracle_side(store, claim, row.oracle_run_id).sentences
        generated = generated_side(store, claim_id, row.article_run_id, row.generated_run_id).sentences
        assert row.oracle_run_id is not None
        assert (row.article_run_id is not None) == (claim_id in known)
        if not row.scorable:
            assert row.score is None and not (oracle and generated is not None)
            continue
        assert 0.0 <= row.score <= 1.0
        assert row.n_oracle == len(oracle) and row.n_generated == len(generated)
        assert all(0 <= o < row.n_oracle and 0 <= g < row.n_generated and 0 < f <= 1 for o, g, f in row.pairs)
        assert row.score == pytest.approx(sum(f for _, _, f in row.pairs) / row.n_oracle)
    store.close()


def test_flags_agree_with_tau(piped):
    outcome, _ = piped.first
    store = piped.store()
    rows = store.contamination.score_rows("gguf:default", "meteor")
    flagged = store.annotations.flagged_claim_ids("contaminated", "gguf:default", "meteor", "pipeline")
    assert outcome.tau == 0.25
    assert flagged == {r.claim_id for r in rows if r.scorable and r.score >= 0.25}
    store.close()


def test_running_again_calls_no_model(piped):
    before = piped.calls.count
    outcome, steps = piped.run()
    assert outcome.status == "finished" and piped.calls.count == before
    assert outcome.runs == piped.first[0].runs  # the finished steps are reused
    assert all(not prepared.pending_claim_ids for _, prepared in steps)


def test_a_new_run_of_a_step_is_answered_from_the_cache(piped):
    store = piped.store()
    for step in ("articles", "generated evidence"):
        store.runs.delete(store.runs.get(piped.first[0].runs[step]).id)
    store.close()
    before = piped.calls.count
    outcome, steps = piped.run()
    assert outcome.status == "finished" and piped.calls.count == before
    store = piped.store()
    articles = store.runs.predictions(store.runs.get(outcome.runs["articles"]).id)
    assert articles and all(p.cached for p in articles)
    store.close()


def test_the_embedding_metric_reuses_every_model_step(piped):
    before = piped.calls.count
    outcome, _ = piped.run(metric="embedding")
    assert outcome.status == "finished" and outcome.tau == 0.6 and piped.calls.count == before
    store = piped.store()
    rows = store.contamination.score_rows("gguf:default", "embedding")
    meteor = {r.claim_id: r.scorable for r in store.contamination.score_rows("gguf:default", "meteor")}
    assert {r.claim_id: r.scorable for r in rows} == meteor  # the same evidence, scored another way
    assert all(0 <= r.score <= 1 for r in rows if r.scorable)
    flagged = store.annotations.flagged_claim_ids("contaminated", "gguf:default", "embedding", "pipeline")
    assert flagged == {r.claim_id for r in rows if r.scorable and r.score >= 0.6}
    store.close()


def test_cancelling_keeps_what_finished(piped):
    cancel = threading.Event()
    finished = []

    def on_event(event):
        if isinstance(event, ItemFinished):
            finished.append(event.claim_id)
            cancel.set()

    store = piped.store()
    plan = plan_pipeline(store, ContaminationRequest(**{**SMALL, "claim_ids": [5, 6]}))
    store.close()
    outcome = run_pipeline(piped.db_path, plan, None, on_event, cancel)
    assert outcome.status == "cancelled" and finished
    store = piped.store()
    oracle_run = store.runs.get(outcome.runs["oracle evidence"])
    kept = {p.claim_id for p in store.runs.predictions(oracle_run.id) if p.status != "error"}
    assert set(finished) <= kept  # nothing finished was lost
    store.close()
    steps = []
    again = run_pipeline(piped.db_path, plan, lambda step, prepared: steps.append((step, prepared)))
    assert again.status == "finished" and again.runs["oracle evidence"] == oracle_run.name
    assert not set(finished) & set(steps[0][1].pending_claim_ids)  # not asked again


def test_cli_run_on_averitec_claims_uses_the_qa_pairs_as_oracle(piped):
    result = CliRunner().invoke(
        main,
        [
            "--db",
            str(piped.db_path),
            "contamination",
            "run",
            *CLI_SMALL,
            "--dataset",
            "demo-averitec",
            "--limit",
            "2",
            "--metric",
            "embedding",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "2 use their gold question-answer pairs directly (no extraction)" in " ".join(result.output.split())
    assert "oracle evidence: run" not in result.output  # no extraction run over oracle articles
    assert "S =" in result.output and "flagged at tau 0.60" in result.output
    store = piped.store()
    averitec = store.claims.ids('dataset:"demo-averitec"')[:2]
    rows = [r for r in store.contamination.score_rows("gguf:default", "embedding") if r.claim_id in averitec]
    assert len(rows) == 2
    for row in rows:
        claim = store.claims.get(row.claim_id)
        assert row.oracle_run_id is None and row.n_oracle == len([e for e in claim.evidence if e.kind == "qa"])
        assert row.scorable and 0 <= row.score <= 1
    store.close()
    again = CliRunner().invoke(
        main,
        [
            "--db",
            str(piped.db_path),
            "contamination",
            "run",
            *CLI_SMALL,
            "--dataset",
            "demo-averitec",
            "--limit",
            "2",
            "--metric",
            "embedding",
        ],
    )
    assert again.exit_code == 0 and again.output.count("(reused)") == 2
