"""The demo's AVerImaTeC files (workbench/demo_data/averimatec*.json, invented image-text
claims with the demo's own pictures): imported and scored as a user would, the figures checked
by hand, one claim's evidence reply malformed."""

from __future__ import annotations

import json
import re

from tests.conftest import DEMO_DATA
from tests.loopback_servers import LoopbackServer
from tests.support.averimatec import prompt_text
from tests.support.judging import cli

TOLERANCE = 1e-12
MALFORMED = "burglaries quadrupled"


def counting_judge(seen: list):
    """Every reply covers one reference item (one fact of the justification's two); the chart
    claim's evidence reply is prose."""

    def answer(body: dict) -> str:
        seen.append(body)
        text = prompt_text(body)
        if "What colour is this image" in text:
            return "Green"
        if MALFORMED in text and "Reference evidence, gathered" in text:
            return "Mostly the same story, I think."
        facts = 2 if "Reference justification" in text else int(re.search(r"\((\d+)(?: items)?, R1", text).group(1))
        return json.dumps(
            {"reference_facts": facts, "reference_supported": 1, "predicted_facts": 1, "predicted_supported": 1}
        )

    return answer


def test_the_demo_files_import_and_score_as_the_formula_says(db_path):
    gold_path, predicted_path = DEMO_DATA / "averimatec.json", DEMO_DATA / "averimatec_predictions.json"
    assert cli(db_path, "import-averimatec", str(gold_path), "--dataset", "img").exit_code == 0
    done = cli(db_path, "import-averimatec", str(predicted_path), "--dataset", "img", "--run", "sub")
    assert done.exit_code == 0, done.output
    seen: list[dict] = []
    with LoopbackServer("openai", answer=counting_judge(seen)) as server:
        found = cli(db_path, "averimatec", "sub", "--judge", "openai-compatible:g", "--base-url", server.url, "--json")
    assert found.exit_code == 0, found.output
    figures = json.loads(found.output[found.output.index("{\n") :])
    gold, predicted = json.loads(gold_path.read_text()), json.loads(predicted_path.read_text())
    n = len(gold)
    questions = [1 / len(g["questions"]) for g in gold]
    # evidence: one covered item of each; the chart claim (2) failed, the last claim has no evidence
    evidence = [
        1 / len(g["questions"]) if p["evidence"] and MALFORMED not in g["claim_text"] else 0.0
        for g, p in zip(gold, predicted)
    ]
    gate = [e > 0.4 for e in evidence]
    verdict = [float(g["label"] == p["verdict"] and ok) for g, p, ok in zip(gold, predicted, gate)]
    justification = [0.5 if ok else 0.0 for ok in gate]
    failed = [MALFORMED in g["claim_text"] for g in gold]
    for name, values in (
        ("question_recall", questions),
        ("evidence_recall", evidence),
        ("score", verdict),
        ("justification_recall", justification),
    ):
        assert abs(figures[name]["official"] - sum(values) / n) < TOLERANCE, name
        if name != "question_recall":
            kept = [v for v, f in zip(values, failed) if not f]
            assert abs(figures[name]["failures_excluded"] - sum(kept) / len(kept)) < TOLERANCE, name
            assert figures[name]["failures"] == 1
    assert figures["score"]["official"] == 0.25  # only the first claim: right, with evidence recall 0.5
    assert figures["images_shown"]["evidence"] is True
    assert any(
        part.get("type") == "image_url"
        for b in seen
        for part in (b["messages"][-1]["content"] if isinstance(b["messages"][-1]["content"], list) else [])
    )
