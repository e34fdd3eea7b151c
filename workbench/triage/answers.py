"""Failure categories are for wrong answers: which answer a label may go on, and why not.

Wrong, here as in the `wrong` filter term and the failure counts of `metrics`, is a wrong
verdict, an abstention (unknown) or an answer that could not be read, on a claim whose gold
label is scored. A right answer, an answer to a claim whose gold label is not scored and an
API error take no label."""

from __future__ import annotations

from store import WRONG_OUTCOMES
from workbench.triage import TriageError

SET_APART = {
    "correct": "answers that are right",
    "unscored": "answers to claims whose gold label is not scored",
    "error": "API errors",
}
"""How the failure counts name the labels they leave out, by the answer's outcome."""


def refusal(outcome: str | None, run_name: str, claim: object) -> str | None:
    """Why RUN's answer to CLAIM takes no failure categories; None when it is wrong."""
    if outcome in WRONG_OUTCOMES:
        return None
    why = {
        "correct": f"run {run_name!r} answered claim {claim} correctly",
        "error": f"run {run_name!r} got an API error for claim {claim}, not an answer",
    }.get(
        outcome or "",
        f"claim {claim}'s gold label is not scored, so run {run_name!r}'s answer is neither right nor wrong",
    )
    return f"{why}: failure categories are for wrong answers (wrong verdicts, abstentions, unreadable answers)"


def wrong_answer(store, run, claim_id: int, claim_ref: str) -> int:
    """The prediction id of RUN's wrong answer to a claim; TriageError saying why otherwise."""
    found = store.answer_outcomes.outcomes(run.id, [claim_id]).get(claim_id)
    if found is None:
        raise TriageError(f"run {run.name!r} has no answer for claim {claim_ref!r}")
    prediction_id, outcome = found
    why = refusal(outcome, run.name, repr(claim_ref))
    if why is not None:
        raise TriageError(why)
    return prediction_id
