"""Explanation-judging tests' shared parts: finished runs to judge, the database holding them, a scripted judge."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from store import Prediction, Run, Store
from tests.run_fixtures import many_claims, write_mini
from workbench.cli import main
from workbench.importers import import_file

LABELS = ["Supported", "Refuted", "NotEnoughInfo"]


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *args], terminal_width=120)


def add_answers(store: Store, name: str, right_every: int, count: int = 30) -> Run:
    """A finished verdict run over the `many` claims: every `right_every`-th answer right."""
    ids = store.claims.ids("dataset:many")[:count]
    run = store.runs.create(Run(name=name, model="m", dataset_id=1, status="finished"), ids)
    for n, claim_id in enumerate(ids):
        gold = store.claims.get(claim_id).label
        verdict = gold if n % right_every == 0 else next(x for x in LABELS if x != gold)
        store.runs.record(
            Prediction(
                run_id=run.id,
                claim_id=claim_id,
                status="ok",
                verdict=verdict,
                explanation=f"Reasons for claim {claim_id} ({name}).",
            )
        )
    return run


@pytest.fixture
def judged_db(store, db_path, tmp_path):
    import_file(store, write_mini(tmp_path, many_claims(30), name="many"), "jsonl")
    add_answers(store, "sys-a", right_every=2)
    add_answers(store, "sys-b", right_every=3)
    return db_path


def scripted_judge(body: dict) -> str:
    """Scores 8 when the prompt shows a verdict equal to the gold conclusion, else 3; a
    claim number ending in 7 gets 9 whatever the verdict (a rubric violation when wrong)."""
    prompt = body["messages"][-1]["content"]
    gold = re.search(r"concluded: (\S+)", prompt).group(1)
    verdict = re.search(r"verdict: (\S+)", prompt).group(1)
    claim = int(re.search(r"Reasons for claim (\d+)", prompt).group(1))
    score = 9 if claim % 10 == 7 else (8 if verdict == gold else 3)
    return json.dumps({"score": score, "justification": f"judged claim {claim}"})
