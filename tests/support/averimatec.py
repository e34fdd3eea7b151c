"""AVerImaTeC tests' shared parts: a small gold file and a system's predictions in the task's
layouts, with real PNG images drawn on the spot, and a loopback judge that returns recorded
counts (one claim's evidence reply always malformed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from PIL import Image

LABELS = ["Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"]
CLAIMS = 9
MALFORMED_CLAIM = 3
"""The claim (position) whose evidence judgment never parses."""
NO_EVIDENCE_CLAIM = 5
"""The claim whose prediction carries no evidence (recall 0 without a judge)."""


def draw(folder: Path, name: str, shade: int) -> str:
    """A small PNG of one colour; its file name."""
    Image.new("RGB", (8 + shade % 5, 6), (shade * 23 % 256, shade * 41 % 256, shade * 67 % 256)).save(folder / name)
    return name


def gold_label(n: int) -> str:
    return LABELS[n % 4]


def predicted_verdict(n: int) -> str:
    """Right for claims whose position is not a multiple of 3."""
    return LABELS[n % 4] if n % 3 else LABELS[(n + 1) % 4]


def gold_record(n: int, folder: Path) -> dict:
    """One claim: an image, 2-3 questions (one answered by an image), a justification."""
    questions = [
        {
            "question": f"Where was the photo of claim {n} first posted?",
            "input_images": [draw(folder, f"q{n}.png", n + 40)],
            "answers": [{"answer_type": "Extractive", "answer_text": f"On a forum in {2010 + n}."}],
        },
        {
            "question": f"Does the earlier photo match claim {n}?",
            "input_images": [],
            "answers": [
                {"answer_type": "Image", "image_answers": [draw(folder, f"a{n}.png", n + 80)]},
                {"answer_type": "Boolean", "answer_text": "No", "boolean_explanation": "The skyline differs."},
            ],
        },
    ]
    if n % 2:
        questions.append(
            {
                "question": f"Who took photo {n}?",
                "answers": [{"answer_type": "Abstractive", "answer_text": "A tourist."}],
            }
        )
    return {
        "claim_text": f"Photo {n} shows the flood of last week [bold]",
        "claim_images": [draw(folder, f"c{n}.png", n)],
        "date": "2024-05-01",
        "location": "GB",
        "label": gold_label(n),
        "justification": f"The photo of claim {n} is older and from elsewhere.",
        "questions": questions,
    }


def prediction_record(n: int, folder: Path) -> dict:
    """One answer: questions, evidence naming an image, a verdict right for most claims."""
    evidence = [
        {"text": f"The photo [IMG_1] was on a forum in {2010 + n}.", "images": [draw(folder, f"p{n}.png", n + 40)]},
        {"text": "The skyline differs from the city named.", "images": []},
    ]
    return {
        "questions": [f"When was photo {n} first online?", "Is it the same city?"][: 1 + n % 2],
        "evidence": [] if n == NO_EVIDENCE_CLAIM else evidence,
        "verdict": predicted_verdict(n),
        "justification": f"Found online in {2010 + n}, so it is not from last week.",
    }


def write_files(folder: Path) -> tuple[Path, Path]:
    """The gold file and the predictions file (images beside them)."""
    gold = [gold_record(n, folder) for n in range(CLAIMS)]
    predicted = [prediction_record(n, folder) for n in range(CLAIMS)]
    (folder / "val.json").write_text(json.dumps(gold, indent=1))
    (folder / "predictions.json").write_text(json.dumps(predicted, indent=1))
    return folder / "val.json", folder / "predictions.json"


def recorded_counts(n: int, part: str) -> dict[str, int]:
    """The counts the judge returns for claim n and a part: evidence recall on both sides of 0.4."""
    reference = {"questions": 2 + n % 2, "evidence": 2 + n % 2, "justification": 2 + n % 4}[part]
    supported = {"questions": n % (reference + 1), "evidence": (n * 2) % (reference + 1)}.get(
        part, (n + 1) % (reference + 1)
    )
    predicted = 1 + n % 2 if part == "questions" else 2
    return {
        "reference_facts": reference,
        "reference_supported": supported,
        "predicted_facts": predicted,
        "predicted_supported": min(n % 3, predicted),
    }


PART_MARKS = {
    "Questions asked by professional": "questions",
    "Reference evidence, gathered": "evidence",
    "Reference justification": "justification",
}


def prompt_text(body: dict) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")


def recorded_judge(seen: list):
    """A loopback judge answering from recorded_counts (each request kept in `seen`)."""

    def answer(body: dict) -> str:
        seen.append(body)
        text = prompt_text(body)
        if "What colour is this image" in text:
            return "Red"
        n = int(re.search(r"Claim being checked: Photo (\d+) ", text).group(1))
        part = next(part for mark, part in PART_MARKS.items() if mark in text)
        if part == "evidence" and n == MALFORMED_CLAIM:
            return "They overlap quite a bit, maybe half."
        return "Counts:\n```json\n" + json.dumps(recorded_counts(n, part)) + "\n```"

    return answer


def imported(tmp_path, db_path) -> None:
    """The gold and prediction files written and imported: dataset `avm`, run `sys`."""
    from tests.support.judging import cli

    gold, predicted = write_files(tmp_path)
    done = cli(db_path, "import-averimatec", str(gold), "--dataset", "avm")
    assert done.exit_code == 0, done.output
    done = cli(db_path, "import-averimatec", str(predicted), "--dataset", "avm", "--run", "sys")
    assert done.exit_code == 0, done.output


def scored(db_path, server, *extra) -> dict:
    """What `averimatec sys --json` prints with the loopback judge at `server`."""
    from tests.support.judging import cli

    found = cli(
        db_path, "averimatec", "sys", "--judge", "openai-compatible:gemma", "--base-url", server.url, "--json", *extra
    )
    assert found.exit_code == 0, found.output
    return json.loads(found.output[found.output.index("{\n") :])
