"""The evidence an Ev2R judge reads: a claim's reference question-answer pairs and a run's
predicted ones, written out for one part (questions only, or question-answer pairs).

Two layouts: ours (numbered lines, for prompts/ev2r.toml) and the organisers' (each pair as
question TAB TAB NEWLINE answer TAB TAB NEWLINE NEWLINE; questions only joined by spaces), which
a prompt taken from the organisers' scorer was written for (`--prompt-file`).
"""

from __future__ import annotations

from dataclasses import dataclass

from store import Claim, Prediction
from workbench.metrics.ev2r import MAX_PAIRS

PARTS = ("questions", "pairs")
PART_WORDS = {"questions": "questions only", "pairs": "question-answer pairs"}
PAIR_END, QUESTION_END = "\t\t\n\n", "\t\t\n"


@dataclass(frozen=True)
class Pair:
    question: str
    answer: str


def reference_pairs(claim: Claim) -> list[Pair]:
    """One pair per gold answer (a Boolean answer with its explanation), in the dataset's
    order; a question nobody answered adds none, as in the organisers' submission files."""
    # Here, not at the top: the 2024 scorer's module loads scipy, which `metrics` need not pay for.
    from workbench.contamination.averitec_runs import gold_questions

    pairs = []
    for question in gold_questions(claim):
        for answer in question["answers"]:
            text = answer["answer"]
            if answer.get("answer_type") == "Boolean" and answer.get("boolean_explanation"):
                text += ". " + answer["boolean_explanation"]
            pairs.append(Pair(question["question"], text))
    return pairs


def predicted_pairs(prediction: Prediction | None) -> tuple[list[Pair], int]:
    """(the first MAX_PAIRS pairs the answer carries, how many it carries in all)."""
    parsed = prediction.parsed if prediction is not None and isinstance(prediction.parsed, dict) else {}
    items = [item for item in parsed.get("evidence") or [] if isinstance(item, dict)]
    pairs = [Pair(str(item.get("question") or ""), str(item.get("answer") or "")) for item in items]
    return pairs[:MAX_PAIRS], len(pairs)


def ours(pairs: list[Pair], part: str) -> str:
    """Numbered lines: questions only, or each question with its answer below it."""
    if not pairs:
        return "(none)"
    if part == "questions":
        return "\n".join(f"{n}. {p.question}" for n, p in enumerate(pairs, 1))
    return "\n".join(f"{n}. Q: {p.question}\n   A: {p.answer}" for n, p in enumerate(pairs, 1))


def organisers(pairs: list[Pair], part: str) -> str:
    """The organisers' layout of the same pairs (their questions-only text drops empty questions)."""
    if part == "questions":
        return " ".join(p.question for p in pairs if p.question)
    return "".join(p.question + QUESTION_END + p.answer + PAIR_END for p in pairs)
