"""A run's AVeriTeC scores: the gold records rebuilt from its claims' question-answer
evidence (as the dataset file had them), the predicted records from its answers and the
evidence they carry (an imported submission, or a model that lists its evidence)."""

from __future__ import annotations

from store import Claim, Run, Store
from workbench.contamination.averitec_scorer import EvidenceDataError, EvidenceScores, score_evidence


def run_records(store: Store, run: Run) -> tuple[list[dict], list[dict]]:
    """(gold records, predicted records), paired by position, for the run's claims."""
    gold, predicted = [], []
    for claim_id in store.runs.claim_ids(run.id):
        claim = store.claims.get(claim_id)
        if claim.label is None:
            raise EvidenceDataError(f"claim {claim.dataset}:{claim.external_id} of run {run.name} has no gold label")
        questions = gold_questions(claim)
        if not questions:
            raise EvidenceDataError(
                f"claim {claim.dataset}:{claim.external_id} has no question-answer evidence;"
                " AVeriTeC scoring needs the dataset's questions and answers"
            )
        gold.append({"claim": claim.text, "label": claim.label, "questions": questions})
        prediction = store.runs.prediction(run.id, claim_id)
        parsed = prediction.parsed if prediction is not None and isinstance(prediction.parsed, dict) else {}
        predicted.append(
            {
                "claim_id": claim.external_id,
                "evidence": list(parsed.get("evidence") or []),
                "pred_label": prediction.verdict if prediction is not None and prediction.status == "ok" else None,
            }
        )
    return gold, predicted


def gold_questions(claim: Claim) -> list[dict]:
    """The claim's questions with their answers, in the dataset's order."""
    questions: list[dict] = []
    current = object()
    for item in sorted((e for e in claim.evidence if e.kind == "qa"), key=lambda e: e.rank):
        key = item.attributes.get("question_index", item.question)
        if key != current:
            questions.append({"question": item.question or "", "answers": []})
            current = key
        if item.attributes.get("no_answers"):
            continue
        answer = {"answer": item.text or "", "answer_type": item.answer_type}
        if item.answer_type == "Boolean":
            answer["boolean_explanation"] = item.explanation or ""
        questions[-1]["answers"].append(answer)
    return questions


def score_run_evidence(store: Store, run: Run, workers: int | None = None, report=None) -> EvidenceScores:
    """The AVeriTeC scores of a run, exactly as the scorer gives them for the same files
    (`report`: as score_evidence's)."""
    gold, predicted = run_records(store, run)
    return score_evidence(
        gold,
        predicted,
        workers,
        gold_name=f"run {run.name} claims",
        pred_name=f"run {run.name}",
        checked=False,
        report=report,
    )
