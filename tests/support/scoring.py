"""Runs with chosen answers over the demo claims, for the scoring and metrics tests."""

from __future__ import annotations

from store import Prediction, Run

JS = ["Supported", "Refuted", "NotEnoughInfo"]


# claim id -> (status, verdict) for run A; 10 has no answer (missing).
RUN_A = {
    1: ("ok", "Refuted"),
    2: ("ok", "Supported"),
    3: ("ok", "Supported"),
    4: ("parse_failure", None),
    5: ("ok", "Refuted"),
    6: ("error", None),
    7: ("ok", "NotEnoughInfo"),
    8: ("ok", "Supported"),
    9: ("ok", "Supported"),
    11: ("ok", "Refuted"),
    12: ("ok", "Refuted"),
}


RUN_B = {
    1: ("ok", "Supported"),
    2: ("ok", "Supported"),
    3: ("ok", "NotEnoughInfo"),
    4: ("ok", "Supported"),
    5: ("ok", "Refuted"),
    6: ("ok", "Supported"),
    7: ("ok", "NotEnoughInfo"),
    8: ("ok", "Supported"),
    10: ("ok", "Refuted"),
    11: ("ok", "Refuted"),
    12: ("error", None),
}


def make_run(store, name, dataset_id, claim_ids, answers):
    run = store.runs.create(Run(name=name, dataset_id=dataset_id, model="m"), list(claim_ids))
    for claim_id, (status, verdict) in answers.items():
        store.runs.record(Prediction(run_id=run.id, claim_id=claim_id, status=status, verdict=verdict))
    return run
