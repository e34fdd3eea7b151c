"""AVeriTeC evidence scoring with the official scorer's conventions.

Per claim, predicted evidence strings (question + " " + answer, first 10 only) are
matched one-to-one with the gold strings by METEOR (Hungarian assignment); the
matched sum divided by the number of gold strings is the claim's Q+A score. The
AVeriTeC score at threshold t credits a correct label only when that score is > t.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from workbench.contamination.matching import matched_score
from workbench.errors import WorkbenchError
from workbench.nlp.meteor import MeteorScorer, Report, phase_counter

LABELS = ("Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking")
THRESHOLDS = (0.1, 0.2, 0.25, 0.3, 0.4, 0.5)
MAX_EVIDENCE = 10
NO_ANSWER = " No answer could be found."
PARALLEL_FROM = 100  # fewer claims score faster in one process than a pool starts
WORKERS = 2


class EvidenceDataError(WorkbenchError, ValueError):
    """Input that cannot be scored; the message names the file, record and field."""


@dataclass(frozen=True)
class ClaimScore:
    """Scores of one claim (records paired by position)."""

    index: int
    claim_id: str
    """The claim's id as text, whether it came from a file (where it may be a number) or a run."""
    question_only: float
    qa: float
    label_correct: bool


@dataclass(frozen=True)
class EvidenceScores:
    """Dataset-level AVeriTeC results plus the per-claim scores behind them."""

    n_claims: int
    question_only: float
    qa: float
    label_accuracy: float
    macro_f1: float
    averitec: dict[float, float]
    claims: list[ClaimScore] = field(repr=False)
    # Scores depend on it: nltk 3.9.3 changed how word_tokenize splits dashes.
    nltk_version: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict; thresholds become string keys like "0.25"."""
        out = asdict(self)
        out["averitec"] = {str(t): v for t, v in self.averitec.items()}
        return out


# -- the strings compared ---------------------------------------------------------


def _answers(question: dict) -> list[dict]:
    answers = question["answers"]
    # The official scorer accepts a lone answer object in place of a list.
    return answers if isinstance(answers, list) else [answers]


def gold_strings(record: dict) -> list[str]:
    """One string per gold answer; Boolean answers carry their explanation."""
    strings = []
    for question in record["questions"]:
        answers = _answers(question)
        for answer in answers:
            text = question["question"] + " " + answer["answer"]
            if answer.get("answer_type") == "Boolean":
                text += ". " + answer["boolean_explanation"]
            strings.append(text)
        if not answers:
            strings.append(question["question"] + NO_ANSWER)
    return strings


def gold_questions(record: dict) -> list[str]:
    """One string per gold question."""
    return [question["question"] for question in record["questions"]]


def predicted_strings(record: dict) -> list[str]:
    """question + " " + answer for the first MAX_EVIDENCE predicted evidence items."""
    return [e["question"] + " " + e["answer"] for e in record["evidence"][:MAX_EVIDENCE]]


def predicted_questions(record: dict) -> list[str]:
    """The questions of the first MAX_EVIDENCE predicted evidence items."""
    return [e["question"] for e in record["evidence"][:MAX_EVIDENCE]]


# -- loading and validation ---------------------------------------------------------


def load_records(path: Path | str) -> list[dict]:
    """Read a JSON list of records, raising EvidenceDataError naming the file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvidenceDataError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EvidenceDataError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise EvidenceDataError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, list):
        kind = type(data).__name__
        raise EvidenceDataError(f"{path}: expected a JSON list of records, got {kind}")
    return data


def _need(record: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(record, dict):
        raise EvidenceDataError(f"{where}: expected an object, got {type(record).__name__}")
    if key not in record:
        raise EvidenceDataError(f"{where}: missing field '{key}'")
    if not isinstance(record[key], kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        wanted = " or ".join(k.__name__ for k in kinds)
        raise EvidenceDataError(f"{where}: field '{key}' must be a {wanted}")
    return record[key]


def _need_label(record: dict, key: str, where: str) -> None:
    if _need(record, key, str, where) not in LABELS:
        raise EvidenceDataError(f"{where}: {key} {record[key]!r} is not one of {list(LABELS)}")


def validate_gold(record: Any, where: str) -> None:
    """Raise EvidenceDataError unless `record` is a scorable gold claim."""
    questions = _need(record, "questions", list, where)
    if not questions:
        raise EvidenceDataError(f"{where}: field 'questions' is empty")
    for q_index, question in enumerate(questions):
        q_where = f"{where}, questions[{q_index}]"
        _need(question, "question", str, q_where)
        _need(question, "answers", (list, dict), q_where)
        for a_index, answer in enumerate(_answers(question)):
            a_where = f"{q_where}, answers[{a_index}]"
            _need(answer, "answer", str, a_where)
            if answer.get("answer_type") == "Boolean":
                _need(answer, "boolean_explanation", str, a_where)
    _need_label(record, "label", where)


def validate_prediction(record: Any, where: str) -> None:
    """Raise EvidenceDataError unless `record` is a scorable prediction."""
    for e_index, item in enumerate(_need(record, "evidence", list, where)):
        _need(item, "question", str, f"{where}, evidence[{e_index}]")
        _need(item, "answer", str, f"{where}, evidence[{e_index}]")
    _need_label(record, "pred_label", where)


def validate(gold: list, predictions: list, gold_name: str = "gold", pred_name: str = "predictions") -> None:
    """Check both lists pair up by position and every record can be scored."""
    if len(gold) != len(predictions):
        raise EvidenceDataError(
            f"{pred_name} has {len(predictions)} records but {gold_name} has "
            f"{len(gold)}; they are paired by position, so the counts must match"
        )
    for index, record in enumerate(gold):
        validate_gold(record, f"{gold_name}: record {index}")
    for index, record in enumerate(predictions):
        validate_prediction(record, f"{pred_name}: record {index}")


# -- scoring ---------------------------------------------------------------------------

_default_scorer: MeteorScorer | None = None


def default_scorer() -> MeteorScorer:
    """A process-wide MeteorScorer, so repeated scoring reuses its caches."""
    global _default_scorer
    if _default_scorer is None:
        _default_scorer = MeteorScorer()
    return _default_scorer


Job = tuple[list[str], list[str], list[str], list[str]]


def _score_claim(scorer: MeteorScorer, job: Job) -> tuple[float, float]:
    """(question-only, Q+A) for one claim; rows = predicted, cols = gold as upstream."""
    pred_questions, gold_qs, pred_strings, gold_strs = job
    q_only = matched_score(scorer.matrix(gold_qs, pred_questions).T, len(gold_qs))
    qa = matched_score(scorer.matrix(gold_strs, pred_strings).T, len(gold_strs))
    return q_only, qa


def _score_chunk(scorer: MeteorScorer, jobs: list[Job]) -> list[tuple[float, float]]:
    return [_score_claim(scorer, job) for job in jobs]


def _score_jobs(scorer: MeteorScorer, jobs: list[Job], workers: int | None, report: Report | None = None) -> list:
    if workers is None:
        workers = min(WORKERS, os.cpu_count() or 1) if len(jobs) >= PARALLEL_FROM else 1
    if workers > 1:
        # Tokenising and WordNet look-ups dominate: do each unique one once, shared
        # out over the workers, then score the claims with those caches inherited.
        texts = [t for job in jobs for part in job for t in part]
        hypotheses = [t for job in jobs for t in job[0] + job[2]]
        scorer.warm_up(texts, hypotheses, workers, report)
    return scorer.parallel_map(_score_chunk, jobs, workers, phase_counter(report, "scoring claims", len(jobs)))


def macro_f1(gold_labels: list[str], pred_labels: list[str], labels: tuple[str, ...] = LABELS) -> float:
    """Mean over `labels` of per-label F1 (0 where a label has no support nor guesses)."""
    f1s = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold_labels, pred_labels))
        fp = sum(g != label and p == label for g, p in zip(gold_labels, pred_labels))
        fn = sum(g == label and p != label for g, p in zip(gold_labels, pred_labels))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return float(np.mean(f1s))


def _mean(values: list[float]) -> float:
    # np.mean, as the official scorer uses, so the last bits agree too.
    return float(np.mean(values)) if values else 0.0


def averitec_at(qa_scores: list[float], correct: list[bool], threshold: float) -> float:
    """Share of claims with the right label AND Q+A evidence score strictly above t."""
    if not qa_scores:
        return 0.0
    return float(np.mean([float(ok) if qa > threshold else 0.0 for qa, ok in zip(qa_scores, correct)]))


def score_evidence(
    gold: list[dict],
    predictions: list[dict],
    workers: int | None = None,
    gold_name: str = "gold",
    pred_name: str = "predictions",
    scorer: MeteorScorer | None = None,
    checked: bool = True,
    report: Report | None = None,
) -> EvidenceScores:
    """Score predictions against gold claims, paired by position.

    `workers`: processes to use (default: 2 when there are many claims). Results do
    not depend on it. `checked`: validate both lists first (files from outside). Raises EvidenceDataError for unscorable input and
    NlpDataMissing when WordNet or punkt_tab is not installed. `report(phase, done,
    total)` hears each step as it goes (loading WordNet, tokenising, scoring claims).
    """
    if checked:  # records built from a run are known good (a missing verdict is None: never right)
        validate(gold, predictions, gold_name, pred_name)
    jobs = [
        (predicted_questions(p), gold_questions(g), predicted_strings(p), gold_strings(g))
        for g, p in zip(gold, predictions)
    ]
    _check_spaced([text for job in jobs for text in job[3]], gold_name)
    if scorer is None and _default_scorer is None and report is not None:
        report("loading WordNet", 0, None)  # nltk and WordNet: seconds
    import nltk

    scores = _score_jobs(scorer or default_scorer(), jobs, workers, report)
    gold_labels = [g["label"] for g in gold]
    pred_labels = [p["pred_label"] for p in predictions]
    correct = [g == p for g, p in zip(gold_labels, pred_labels)]
    claims = [
        ClaimScore(i, _claim_id(predictions[i], i), q, qa, ok) for i, ((q, qa), ok) in enumerate(zip(scores, correct))
    ]
    qa_scores = [c.qa for c in claims]
    return EvidenceScores(
        n_claims=len(claims),
        question_only=_mean([c.question_only for c in claims]),
        qa=_mean(qa_scores),
        label_accuracy=_mean([float(ok) for ok in correct]),
        macro_f1=macro_f1(gold_labels, pred_labels),
        averitec={t: averitec_at(qa_scores, correct, t) for t in THRESHOLDS},
        claims=claims,
        nltk_version=nltk.__version__,
    )


def _check_spaced(gold_texts: list[str], gold_name: str) -> None:
    """EvidenceDataError when the gold evidence is mostly Japanese, Chinese or another script
    written without spaces: METEOR's English words and WordNet synonyms do not apply to it."""
    from workbench.nlp.unspaced import is_unspaced

    unspaced = [text for text in gold_texts if not text.isascii() and is_unspaced(text)]
    if unspaced and len(unspaced) * 2 >= len(gold_texts):
        raise EvidenceDataError(
            f"{gold_name}: {len(unspaced)} of {len(gold_texts)} gold evidence texts are written without spaces between"
            f" words (e.g. {unspaced[0][:30]!r}); the AVeriTeC evidence score is METEOR over English words and"
            " WordNet synonyms, which do not apply to them. Compare such evidence with sentence embeddings from a"
            " multilingual model instead: `workbench contamination run --metric embedding:ORG/NAME` (a model in"
            " your Hugging Face cache) or `--metric embedding:PATH`"
        )


def _claim_id(prediction: dict, position: int) -> str:
    found = prediction.get("claim_id")
    return str(position if found is None else found)
