"""Predictions made elsewhere (a vLLM cluster, an agent framework, a shared-task submission)
brought in as a run against a dataset, so they are browsed, scored, compared and triaged
like any run of the workbench.

    report = import_predictions(store, PredictionRequest(Path("dev_baseline.json"), dataset="dev"))

Each record is matched to a claim by id (the dataset's own ids), or by exact claim text
when the file has no ids; its verdict is put in the dataset's label space (a verdict the
space has no place for is a parse failure with the raw value kept); an explanation and
predicted evidence (question-answer items) come along. The run records the file's name,
its sha256 and the model's name.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from store import LabelSpace, Prediction, Run, Store
from workbench import labels
from workbench.choices import DATA_VERSION_KEY
from workbench.errors import WorkbenchError
from workbench.importers import values as convert
from workbench.importers.advice import census_of, with_advice
from workbench.importers.formats import ReadOptions, read_records
from workbench.importers.mapper import RecordMapper, record_shown
from workbench.importers.paths import MISSING, Context, PathError
from workbench.importers.pipeline import ImportPlan, ImportRequest, plan_import
from workbench.importers.reading import BadInput, Located
from workbench.importers.warnings import ImportWarnings

STATUSES = ("ok", "abstain", "parse_failure", "error")
SHOWN = 5


class PredictionsError(WorkbenchError, ValueError):
    """A predictions file that cannot become a run; the message says why."""


@dataclass
class PredictionRequest:
    path: Path
    dataset: str
    run_name: str | None = None
    model: str | None = None
    format: str = "auto"
    profile: str | None = None
    maps: list[str] = field(default_factory=list)
    label_maps: list[str] = field(default_factory=list)
    split: str | None = None
    strict: bool = False


@dataclass
class PredictionsReport:
    run: Run | None
    plan: ImportPlan
    matched: int
    matched_by: str
    unmatched: list[str]
    """Ids (or claim texts) of records no claim of the dataset has."""
    without: int
    """Claims of the dataset the file has no prediction for."""
    statuses: Counter
    verdicts: Counter
    already: Run | None = None
    """The run an earlier import of the same file made (then nothing was written)."""


def import_predictions(store: Store, request: PredictionRequest, write: bool = True) -> PredictionsReport:
    """Read, match and check every prediction, then write the run in one transaction (write=False:
    a dry run)."""
    dataset = store.datasets.get(request.dataset)
    if dataset is None:
        names = ", ".join(d.name for d in store.datasets.list()) or "none; import one first"
        raise PredictionsError(f"no dataset {request.dataset!r}; datasets: {names}")
    plan = plan_import(
        ImportRequest(
            request.path,
            request.format,
            request.profile,
            list(request.maps),
            label_maps=list(request.label_maps),
            split=request.split,
            strict=request.strict,
        ),
        kind="predictions",
    )
    reader = _Reader(plan, dataset.label_space)
    try:
        rows = [reader.row(located) for located in read_records(plan.source, _options(plan))]
    except BadInput as error:  # with what the file's fields hold, read once more
        again = ReadOptions(plan.read.columns, plan.read.records, plan.read.quoting, ImportWarnings())
        raise with_advice(plan, error, census_of(read_records(plan.source, again))) from None
    if not rows:
        raise BadInput(plan.source.path, "no predictions in the file")
    claims, matched_by = _match(store, dataset.id, rows, plan)
    unmatched = [row.key for row, claim_id in zip(rows, claims) if claim_id is None]
    if len(unmatched) == len(rows):
        raise PredictionsError(
            f"{plan.source.path}: not one of its {len(rows):,} predictions matches a claim of"
            f" {dataset.name} by {matched_by} (first: {', '.join(map(repr, unmatched[:SHOWN]))})"
        )
    pairs = [(claim_id, row) for claim_id, row in zip(claims, rows) if claim_id is not None]
    predictions = [row.prediction(claim_id) for claim_id, row in pairs]
    report = PredictionsReport(
        None,
        plan,
        len(pairs),
        matched_by,
        unmatched,
        len(store.claims.ids_by_external_id(dataset.id)) - len(pairs),
        Counter(p.status for p in predictions),
        Counter(p.verdict for p in predictions),
    )
    if write:
        run = _run(request, dataset.id, plan, reader.model)
        report.already = _same_import(store, run, request)
        if report.already is not None:  # the same file into the same run again: nothing to add
            report.run = report.already
            return report
        run.name = store.runs.unique_name(run.name)
        claim_ids = [claim_id for claim_id, _ in pairs]
        run.versions[DATA_VERSION_KEY] = store.claims.content_hash(claim_ids)  # for comparing runs
        report.run = store.runs.create_with_predictions(run, claim_ids, predictions)
    return report


def _same_import(store: Store, run: Run, request: PredictionRequest) -> Run | None:
    """The run an earlier import of this very file (same bytes, same dataset) made under this
    name (the default name, or the --run given), if there is one."""
    named = (
        (lambda name: name == request.run_name)
        if request.run_name is not None
        else (lambda name: re.fullmatch(re.escape(run.name) + r"(-\d+)?", name) is not None)
    )
    return next(
        (
            found
            for found in store.runs.with_config(run.config_key)
            if found.dataset_id == run.dataset_id and named(found.name)
        ),
        None,
    )


def _options(plan: ImportPlan) -> ReadOptions:
    return ReadOptions(plan.read.columns, plan.read.records, plan.read.quoting, plan.warnings)


@dataclass
class _Row:
    located: Located
    key: str
    by_id: bool
    fields: dict[str, Any]

    def prediction(self, claim_id: int) -> Prediction:
        return Prediction(run_id=0, claim_id=claim_id, **self.fields)


class _Reader:
    """One record -> the prediction it holds, its verdict in the label space."""

    def __init__(self, plan: ImportPlan, space: LabelSpace):
        self.plan, self.space = plan, space
        self.mapping = plan.mapping
        self.map = {labels.squash(k): v for k, v in self.mapping.labels.map.items()}
        self.evidence = RecordMapper(self.mapping, plan.source.path, plan.warnings)
        self.model: str | None = None

    def row(self, located: Located) -> _Row:
        record = located.value
        where = convert.Where(
            str(located.path or self.plan.source.path), located.line, record_shown(located), self.plan.warnings
        )
        context = Context.of(record)
        key_id = convert.identifier(self._get("id", context), where, self._name("id"))
        claim = convert.text(self._get("claim", context), where, self._name("claim"))
        if key_id is None and claim is None:
            raise where.error(self._name("id"), "a prediction needs an id or the claim's text to match it by")
        self.model = self.model or convert.text(self._get("model", context), where, "model")
        fields = self._answer(context, where, record)
        try:
            evidence = self.evidence.evidence_items(context, where)
        except PathError as error:  # the file's value is not the kind the path reads
            raise where.error(None, str(error)) from None
        if evidence:
            parsed = fields.get("parsed") if isinstance(fields.get("parsed"), dict) else {}
            fields["parsed"] = {**parsed, "evidence": [_evidence_item(item) for item in evidence]}
        return _Row(located, key_id if key_id is not None else claim, key_id is not None, fields)

    def _answer(self, context: Context, where: convert.Where, record: dict) -> dict:
        raw = convert.label(self._get("verdict", context), where, self._name("verdict"))
        stored = {name: self._get(name, context) for name in ("status", "raw_verdict", "raw_output", "parsed", "error")}
        stored = {name: MISSING if value == "" else value for name, value in stored.items()}  # an empty CSV cell
        if isinstance(stored["parsed"], str) and stored["parsed"].lstrip().startswith(("{", "[")):
            stored["parsed"] = convert.attribute_cell(stored["parsed"])  # JSON in a CSV cell
        explanation = convert.text(self._get("explanation", context), where, self._name("explanation"), long=True)
        raw_output = (
            stored["raw_output"]
            if isinstance(stored["raw_output"], str)
            else json.dumps(convert.json_safe(record), ensure_ascii=False)
        )
        fields = {
            "verdict": None,
            "raw_verdict": raw,
            "explanation": explanation,
            "raw_output": raw_output,
            "parsed": convert.json_safe(stored["parsed"]) if stored["parsed"] not in (MISSING, None) else None,
            "error": convert.text(stored["error"], where, "error", long=True),
            "attempts": 1,
        }
        status = stored["status"] if stored["status"] in STATUSES else None
        if isinstance(stored["raw_verdict"], str):
            fields["raw_verdict"] = stored["raw_verdict"]
        fields.update(self._verdict(raw, status))
        return fields

    def _verdict(self, raw: str | None, status: str | None) -> dict:
        """status and verdict: a verdict in the space is ok; the abstain label an abstention;
        anything else a parse failure (the raw value kept); no verdict at all an error."""
        if raw is None:
            return {"status": status if status in ("parse_failure", "error") else "parse_failure", "verdict": None}
        mapped = self.mapping.labels.map.get(raw) or self.map.get(labels.squash(raw), raw)
        verdict = labels.normalise(mapped, self.space)
        if verdict is None or (verdict not in self.space.labels and verdict != self.space.abstain):
            return {"status": "parse_failure", "verdict": None}
        return {"status": "abstain" if verdict == self.space.abstain else "ok", "verdict": verdict}

    def _get(self, name: str, context: Context) -> Any:
        value = self.mapping.fields.get(name)
        return value.get(context) if value is not None else MISSING

    def _name(self, name: str) -> str:
        value = self.mapping.fields.get(name)
        return value.text if value is not None and value.paths else name


def _evidence_item(item: dict) -> dict:
    """A predicted evidence item as the AVeriTeC scorer reads it (question, answer, url)."""
    found = {"question": item.get("question") or "", "answer": item.get("text") or ""}
    if item.get("url"):
        found["url"] = item["url"]
    if item.get("title"):
        found["title"] = item["title"]
    return found


def _match(store: Store, dataset_id: int, rows: list[_Row], plan: ImportPlan) -> tuple[list[int | None], str]:
    """Each row's claim id: by the dataset's ids when the rows have ids, else by exact text."""
    by_id = all(row.by_id for row in rows)
    table = (
        store.claims.ids_by_external_id(dataset_id)
        if by_id
        else {text: ids[0] for text, ids in store.claims.ids_by_text(dataset_id).items() if len(ids) == 1}
    )
    claims = [table.get(row.key) for row in rows]
    seen: dict[int, _Row] = {}
    for row, claim_id in zip(rows, claims):
        if claim_id is None:
            continue
        if claim_id in seen:
            first = seen[claim_id].located
            where = f"line {first.line}" if first.line is not None else f"record {first.record}"
            raise BadInput(
                row.located.path or plan.source.path,
                f"{row.key!r} matches the same claim as the prediction on {where}; one prediction per claim",
                line=row.located.line,
                record=record_shown(row.located),
            )
        seen[claim_id] = row
    return claims, "id" if by_id else "claim text"


def _run(request: PredictionRequest, dataset_id: int, plan: ImportPlan, model: str | None) -> Run:
    digest = hashlib.sha256()
    for path in plan.source.files:
        digest.update(path.read_bytes())
    name = request.model or model or plan.source.name_hint
    identity = {
        "backend": "imported",
        "file": plan.source.path.name,
        "sha256": digest.hexdigest(),
        "profile": plan.mapping.name,
        "model": request.model or model,
    }
    return Run(
        name=request.run_name or f"imported-{name}",
        dataset_id=dataset_id,
        model=f"imported:{name}",
        model_identity={k: v for k, v in identity.items() if v},
        setting="imported",
        status="finished",
        config_key=f"imported:{digest.hexdigest()}",
        versions={"factcheck-workbench": _version()},
        notes=f"imported from {plan.source.path}",
    )


def _version() -> str:
    try:
        return metadata.version("factcheck-workbench")
    except metadata.PackageNotFoundError:
        return "unknown"
