"""AVerImaTeC (FEVER-9, 2026): its gold and prediction files imported with their images, and its
scores computed by a loopback judge that returns recorded counts, checked against the
organisers' formula written out by hand, with the one malformed reply kept apart."""

from __future__ import annotations

import json

from tests.loopback_servers import LoopbackServer
from tests.support.averimatec import (
    CLAIMS,
    MALFORMED_CLAIM,
    NO_EVIDENCE_CLAIM,
    gold_label,
    predicted_verdict,
    recorded_counts,
    recorded_judge,
    write_files,
)
from tests.support.judging import cli

TOLERANCE = 1e-12


def imported(tmp_path, db_path) -> None:
    gold, predicted = write_files(tmp_path)
    done = cli(db_path, "import-averimatec", str(gold), "--dataset", "avm")
    assert done.exit_code == 0, done.output
    done = cli(db_path, "import-averimatec", str(predicted), "--dataset", "avm", "--run", "sys")
    assert done.exit_code == 0, done.output


def scored(db_path, server, *extra) -> dict:
    found = cli(
        db_path, "averimatec", "sys", "--judge", "openai-compatible:gemma", "--base-url", server.url, "--json", *extra
    )
    assert found.exit_code == 0, found.output
    return json.loads(found.output[found.output.index("{\n") :])


def hand_computed(threshold: float = 0.4) -> dict:
    """The organisers' formula written out: each recall = covered reference items (facts for the
    justification) / reference items, capped at 1; verdict and justification count only when
    the evidence recall is above 0.4; an unreadable reply is a count of 0."""
    figures: dict[str, tuple[list, list]] = {key: ([], []) for key in ("q", "e", "v", "j")}
    for n in range(CLAIMS):
        recall = {}
        for part in ("questions", "evidence", "justification"):
            counts = recorded_counts(n, part)
            recall[part] = min(1.0, counts["reference_supported"] / counts["reference_facts"])
        evidence = 0.0 if n in (MALFORMED_CLAIM, NO_EVIDENCE_CLAIM) else recall["evidence"]
        gate = evidence > threshold
        values = {
            "q": recall["questions"],
            "e": evidence,
            "v": float(predicted_verdict(n) == gold_label(n) and gate),
            "j": recall["justification"] if gate else 0.0,
        }
        for key, value in values.items():
            official, readable = figures[key]
            official.append(value)
            if key == "q" or n != MALFORMED_CLAIM:
                readable.append(value)
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    return {key: (mean(official), mean(readable)) for key, (official, readable) in figures.items()}


def test_each_figure_equals_the_published_formula_and_failures_are_apart(tmp_path, db_path):
    imported(tmp_path, db_path)
    seen: list[dict] = []
    with LoopbackServer("openai", answer=recorded_judge(seen)) as server:
        found = scored(db_path, server, "--vision", "yes")
        asked = len(seen)
        again = scored(db_path, server, "--vision", "yes")
        assert len(seen) == asked  # a second call reads the saved judgments and asks nothing
    assert again == found
    # 9 claims for questions and justification, 8 for evidence (one has none), and the
    # malformed evidence reply asked 3 times in all
    assert asked == 9 + 9 + 8 + 2
    expected = hand_computed()
    names = {"q": "question_recall", "e": "evidence_recall", "v": "score", "j": "justification_recall"}
    for key, name in names.items():
        official, readable = expected[key]
        assert abs(found[name]["official"] - official) < TOLERANCE, name
        assert abs(found[name]["failures_excluded"] - readable) < TOLERANCE, name
    assert found["verdict_accuracy"] == found["score"]
    for name in ("evidence_recall", "score", "justification_recall"):
        figure = found[name]
        assert figure["failures"] == 1 and abs(figure["failure_rate"] - 1 / CLAIMS) < TOLERANCE
        # the same sum over one claim fewer: the countings differ exactly by the failed claim
        assert abs(figure["official"] * CLAIMS - figure["failures_excluded"] * (CLAIMS - 1)) < TOLERANCE
    assert found["question_recall"]["failures"] == 0
    assert found["prompt"]["evidence"]["name"] == "averimatec" and found["prompt"]["evidence"]["source"] == "ours"
    assert found["images_shown"] == {"questions": False, "evidence": True, "justification": False}
