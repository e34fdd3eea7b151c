"""The store's records live by what reads them: a reading command makes only the dataclasses
it prints (each costs it about a millisecond), and every record is still found in
store.records and store, checked by pydantic as before when outside data comes in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

import store
import store.records as records
from store.records import Claim, Dataset, Evidence, Flag, LabelSpace, Prediction, Run, validated

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ("Claim", "ClaimImage", "Evidence", "LabelSpace", "Dataset", "Run", "Prediction", "Flag")


def test_every_record_is_found_where_it_was():
    for name in RECORDS:
        assert getattr(records, name) is getattr(store, name)
        assert name in dir(records)
    with pytest.raises(AttributeError, match="no attribute 'Claims'"):
        records.Claims  # noqa: B018


def test_outside_data_is_checked_as_before():
    claim = validated(Claim, {"external_id": "a1", "text": "Tides", "evidence": [{"kind": "qa", "text": "yes"}]})
    assert isinstance(claim.evidence[0], Evidence) and claim.evidence[0].text == "yes"
    with pytest.raises(ValidationError, match="claim text is empty"):
        validated(Claim, {"external_id": "a1", "text": "  "})
    with pytest.raises(ValidationError, match="colour"):
        validated(Claim, {"external_id": "a1", "text": "Tides", "colour": "red"})
    with pytest.raises(ValidationError, match="evidence.0.kind"):
        validated(Claim, {"external_id": "a1", "text": "Tides", "evidence": [{"kind": "rumour"}]})
    space = validated(Dataset, {"name": "d", "source_format": "csv", "label_space": {"name": "x", "labels": ["A"]}})
    assert isinstance(space.label_space, LabelSpace)
    with pytest.raises(ValidationError, match="status"):
        validated(Run, {"name": "r", "model": "m", "status": "sleeping"})
    with pytest.raises(ValidationError, match="run_id"):
        validated(Prediction, {"claim_id": 1, "status": "ok"})
    assert validated(Flag, {"claim_id": 1, "kind": "contaminated"}).source == "manual"


MADE = (
    "import atexit, json, sys\n"
    "def made():\n"
    "    found = set()\n"
    "    for module in [m for name, m in sys.modules.items() if name.split('.')[0] == 'store']:\n"
    f"        found |= {{name for name in {RECORDS!r} if name in vars(module)}}\n"
    "    print(json.dumps(sorted(found)))\n"
    "atexit.register(made)\n"
)


def made_by(db: Path, *command: str) -> set[str]:
    """The store's records a command's process has made (as dataclasses) when it exits."""
    code = MADE + (
        f"from workbench.cli import main\nsys.argv = ['workbench', '--db', {str(db)!r}, *{list(command)!r}]\nmain()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_the_reading_commands_make_only_the_records_they_print(demo_with_a_search):
    assert made_by(demo_with_a_search, "claims", "--limit", "3") == set()
    assert made_by(demo_with_a_search, "runs") == {"Run", "Prediction"}
    assert made_by(demo_with_a_search, "datasets") == {"Dataset", "LabelSpace"}
    assert "Run" not in made_by(demo_with_a_search, "show", "1")
