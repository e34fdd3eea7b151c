"""Ev2R tests' shared parts: the demo AVeriTeC claims with the demo submission imported as a
run, and a judge that returns recorded counts (one claim's Q+A reply always malformed)."""

from __future__ import annotations

import json
import re

from tests.conftest import DEMO_DATA
from tests.support.judging import cli

SUBMISSION = "demo-sub"
MALFORMED_CLAIM = 3
"""The demo claim (position in the file) whose Q+A judgment never parses."""


def demo_submission_db(db_path) -> None:
    """The demo AVeriTeC claims and the demo submission imported as run demo-sub."""
    assert cli(db_path, "import", str(DEMO_DATA / "averitec.json")).exit_code == 0
    done = cli(
        db_path,
        "import-predictions",
        str(DEMO_DATA / "averitec_predictions.json"),
        "--dataset",
        "averitec",
        "--run",
        SUBMISSION,
    )
    assert done.exit_code == 0, done.output


def recorded_counts(position: int, part: str) -> dict[str, int]:
    """The counts recorded for one claim and part: varied, recall on both sides of 0.5 and at it."""
    reference = 2 + position % 5
    supported = (position * 3 + (part == "pairs")) % (reference + 1)
    predicted = 1 + (position * 7) % 4
    return {
        "reference_facts": reference,
        "reference_supported": supported,
        "predicted_facts": predicted,
        "predicted_supported": (position + (part == "questions")) % (predicted + 1),
    }


def claim_positions() -> dict[str, int]:
    """Claim text -> its position in the demo file (how the recorded judge knows a claim)."""
    claims = json.loads((DEMO_DATA / "averitec.json").read_text())
    return {c["claim"]: n for n, c in enumerate(claims)}


def recorded_judge(positions: dict[str, int]):
    """A loopback judge answering from recorded_counts; MALFORMED_CLAIM's Q+A reply is prose."""

    def answer(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        claim = re.search(r"Claim being checked: (.*)", prompt).group(1).strip()
        part = "questions" if "(questions only)" in prompt else "pairs"
        position = positions[claim]
        if part == "pairs" and position == MALFORMED_CLAIM:
            return "The evidence mostly overlaps, I would say about half of it."
        counts = recorded_counts(position, part)
        return "Here are the counts:\n```json\n" + json.dumps(counts) + "\n```"

    return answer
