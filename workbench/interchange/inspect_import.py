"""An Inspect AI eval log brought in as a finished run against a dataset, read with
inspect_ai's own `read_eval_log` (the `inspect` extra).

    report = import_inspect_log(store, LogImportRequest(Path("run.eval"), "demo"))

A sample is matched to a claim by its id (the dataset's own ids), else by its input text
against the claims' text; what matches neither is listed, never dropped silently. The
verdict is the verdict score's answer put in the dataset's label space (a log this
workbench wrote also carries the answer's status), else the output read by our parser.
Like `import-predictions`: all or nothing in one transaction, and the same file into the
same dataset again adds nothing.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from store import LabelSpace, Prediction, Run, Store
from store.names import no_such
from workbench import labels
from workbench.choices import DATA_VERSION_KEY
from workbench.errors import WorkbenchError
from workbench.importers.predictions import PredictionsError, _same_import, _version
from workbench.interchange.inspect_export import VERDICT_SCORER
from workbench.parsing import parse_answer

SHOWN = 5


class LogError(WorkbenchError, ValueError):
    """An eval log that cannot become a run; the message names the file and the sample."""


@dataclass
class LogImportRequest:
    path: Path
    dataset: str
    run_name: str | None = None


@dataclass
class LogImportReport:
    run: Run | None
    path: Path
    matched: int
    matched_by: Counter
    unmatched: list[str]
    """Ids of samples no claim of the dataset has."""
    later_epochs: int
    """Samples of epochs after the first (one answer per claim is kept: the first epoch's)."""
    without: int
    """Claims of the dataset the log has no sample for."""
    statuses: Counter
    verdicts: Counter
    already: Run | None = None

    def as_dict(self) -> dict[str, Any]:
        """What happened, for --json."""
        return {
            "run": self.run.name if self.run else None,
            "run_id": self.run.id if self.run else None,
            "already_imported": self.already is not None,
            "matched": self.matched,
            "matched_by": dict(self.matched_by),
            "unmatched": self.unmatched,
            "later_epochs_not_imported": self.later_epochs,
            "claims_without_prediction": self.without,
            "statuses": dict(self.statuses),
            "verdicts": {str(k): v for k, v in self.verdicts.items()},
        }

    def lines(self, dry_run: bool) -> list[str]:
        """What happened, in words."""
        by = ", ".join(f"{n:,} by {how}" for how, n in self.matched_by.items())
        if self.already is not None:
            head = f"{self.path} was imported before as run {self.already.name}: nothing added"
        else:
            verb = "would import" if dry_run else f"imported as run {self.run.name}:" if self.run else "imported"
            head = f"{verb} {self.matched:,} samples ({by})"
        found = [head, "statuses: " + ", ".join(f"{k} {v:,}" for k, v in sorted(self.statuses.items()))]
        if self.unmatched:
            shown = ", ".join(self.unmatched[:SHOWN]) + (", ..." if len(self.unmatched) > SHOWN else "")
            found.append(f"{len(self.unmatched):,} samples match no claim and were not imported: {shown}")
        if self.later_epochs:
            found.append(f"{self.later_epochs:,} samples of later epochs not imported (one answer per claim)")
        if self.without:
            found.append(f"{self.without:,} claims of the dataset have no sample in the log")
        return found


@dataclass
class _Answer:
    key: str
    text: str
    fields: dict[str, Any] = field(default_factory=dict)


def import_inspect_log(store: Store, request: LogImportRequest, write: bool = True) -> LogImportReport:
    """Read, match and check every sample, then write the run in one transaction (write=False:
    a dry run)."""
    dataset = store.datasets.get(request.dataset)
    if dataset is None:
        raise PredictionsError(no_such("dataset", request.dataset, [d.name for d in store.datasets.list()]))
    log = _read(request.path)
    first = [s for s in log.samples if s.epoch == 1] or log.samples
    answers = [_answer(request.path, sample, dataset.label_space) for sample in first]
    claim_ids, matched_by = _match(store, dataset.id, answers, request.path)
    unmatched = [a.key for a, claim_id in zip(answers, claim_ids) if claim_id is None]
    if len(unmatched) == len(answers):
        raise LogError(
            f"{request.path}: not one of its {len(answers):,} samples matches a claim of {dataset.name}"
            f" by id or by input text (first: {', '.join(map(repr, unmatched[:SHOWN]))})"
        )
    pairs = [(claim_id, a) for claim_id, a in zip(claim_ids, answers) if claim_id is not None]
    predictions = [Prediction(run_id=0, claim_id=claim_id, **a.fields) for claim_id, a in pairs]
    report = LogImportReport(
        None,
        request.path,
        len(pairs),
        matched_by,
        unmatched,
        len(log.samples) - len(first),
        len(store.claims.ids_by_external_id(dataset.id)) - len(pairs),
        Counter(p.status for p in predictions),
        Counter(p.verdict for p in predictions),
    )
    if write:
        run = _run(request, dataset.id, log)
        report.already = _same_import(store, run, request)
        if report.already is not None:
            report.run = report.already
            return report
        run.name = store.runs.unique_name(run.name)
        ids = [claim_id for claim_id, _ in pairs]
        run.versions[DATA_VERSION_KEY] = store.claims.content_hash(ids)
        report.run = store.runs.create_with_predictions(run, ids, predictions)
    return report


def _read(path: Path):
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as error:  # inspect_ai raises many kinds for a file that is not a log
        raise LogError(f"{path}: not a readable Inspect eval log ({type(error).__name__}: {error})") from None
    if not log.samples:
        raise LogError(f"{path}: the eval log has no samples (a header-only log holds no answers to import)")
    return log


def _answer(path: Path, sample, space: LabelSpace) -> _Answer:
    """One sample -> the prediction it holds (status, verdict, explanation, raw output)."""
    output = sample.output.completion if sample.output is not None else ""
    score = _verdict_score(sample.scores or {})
    ours = (score.metadata or {}) if score is not None else {}
    fields: dict[str, Any] = {
        "raw_output": output,
        "latency_s": sample.total_time,
        "attempts": (sample.metadata or {}).get("attempts", 1),
        "parsed": (sample.metadata or {}).get("parsed"),
    }
    usage = sample.output.usage if sample.output is not None else None
    if usage is not None:
        fields |= {"tokens_in": usage.input_tokens, "tokens_out": usage.output_tokens}
    if sample.error is not None:
        fields |= {"status": "error", "verdict": None, "error": sample.error.message}
    elif ours.get("status") in ("ok", "abstain", "parse_failure", "error"):  # written by this workbench
        verdict = labels.normalise(score.answer, space) if score.answer else None
        fields |= {"status": ours["status"], "verdict": verdict, "raw_verdict": ours.get("raw_verdict")}
        fields["explanation"] = score.explanation
    elif score is not None and score.answer:
        fields |= _in_space(score.answer, space) | {"raw_verdict": score.answer, "explanation": score.explanation}
    else:
        parsed = parse_answer(output, space)
        fields |= {"status": parsed.status, "verdict": parsed.verdict, "raw_verdict": parsed.raw_verdict}
        fields["explanation"] = parsed.explanation
    return _Answer(str(sample.id), _input_text(sample.input), fields)


def _verdict_score(scores: dict):
    """The verdict score: ours by name, else the only one, else the first with an answer."""
    if VERDICT_SCORER in scores:
        return scores[VERDICT_SCORER]
    if len(scores) == 1:
        return next(iter(scores.values()))
    return next((s for s in scores.values() if s.answer), None)


def _in_space(answer: str, space: LabelSpace) -> dict:
    verdict = labels.normalise(answer, space)
    if verdict is None or (verdict not in space.labels and verdict != space.abstain):
        return {"status": "parse_failure", "verdict": None}
    return {"status": "abstain" if verdict == space.abstain else "ok", "verdict": verdict}


def _input_text(value) -> str:
    """A sample's input as text: the string, or its last user message's text."""
    if isinstance(value, str):
        return value.strip()
    users = [m for m in value if getattr(m, "role", None) == "user"]
    return users[-1].text.strip() if users else ""


def _match(store: Store, dataset_id: int, answers: list[_Answer], path: Path) -> tuple[list[int | None], Counter]:
    """Each sample's claim id: by the dataset's ids, else by input text equal to one claim's."""
    by_id = store.claims.ids_by_external_id(dataset_id)
    by_text = {text.strip(): ids[0] for text, ids in store.claims.ids_by_text(dataset_id).items() if len(ids) == 1}
    found: list[int | None] = []
    how: Counter = Counter()
    seen: dict[int, str] = {}
    for answer in answers:
        claim_id = by_id.get(answer.key)
        if claim_id is not None:
            how["id"] += 1
        elif answer.text in by_text:
            claim_id = by_text[answer.text]
            how["input text"] += 1
        if claim_id is not None and claim_id in seen:
            raise LogError(
                f"{path}: sample {answer.key!r} matches the same claim as sample {seen[claim_id]!r};"
                " one sample per claim"
            )
        if claim_id is not None:
            seen[claim_id] = answer.key
        found.append(claim_id)
    return found, how


def _run(request: LogImportRequest, dataset_id: int, log) -> Run:
    digest = hashlib.sha256(request.path.read_bytes()).hexdigest()
    model = log.eval.model.removeprefix("imported:")  # a run imported here, exported, and back
    return Run(
        name=request.run_name or f"imported-{model}",
        dataset_id=dataset_id,
        model=f"imported:{model}",
        model_identity={"backend": "imported", "format": "inspect", "file": request.path.name, "sha256": digest},
        setting="imported",
        status="finished",
        config_key=f"imported:{digest}",
        versions={"factcheck-workbench": _version(), "inspect-eval-log": log.version},
        params={"task": log.eval.task},
        notes=f"imported from {request.path} (Inspect eval log)",
    )
