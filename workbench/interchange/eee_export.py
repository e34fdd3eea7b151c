"""A run as Every Eval Ever records: the aggregate (each metric with its bootstrap interval,
the model, the benchmark, who ran it, when) and one instance-level record per claim, built
with the every-eval-ever package's own pydantic models and checked with its validator before
anything is written (the `eee` extra; docs/exporting.md says what is lost).

    written = write_eee_records(store, run, Path("eee"), EeeOptions(organization="Our lab"))

The files go where EEE's datastore keeps them, under the folder given:
`data/<benchmark>/<developer>/<model>/<uuid>.json` and its `<uuid>_samples.jsonl`, so the
folder can be a datastore checkout. Both are made whole in a staging folder, validated, and
only then moved in: a refusal leaves nothing behind.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from store import Run, Store
from workbench.errors import WorkbenchError
from workbench.interchange import EEE_RELATIONSHIPS as RELATIONSHIPS
from workbench.interchange.eee_instances import InstanceContext, instance_records
from workbench.interchange.eee_metrics import evaluation_results

DEPLOYMENT = {"gguf": ("self_deployed", "open_weights"), "openai": ("externally_managed", "closed_weights")}
DEPLOYMENT["anthropic"] = DEPLOYMENT["openai"]
"""Our backend -> EEE's deployment_type and model_availability (others: unknown, unknown)."""
LIBRARY = "factcheck-workbench"


class EeeError(WorkbenchError, ValueError):
    """A run that cannot be written as Every Eval Ever records; the message says why."""


@dataclass
class EeeOptions:
    organization: str
    """Who ran the evaluation (EEE's source_organization_name)."""
    relationship: str = "third_party"
    model_id: str | None = None
    """The model in Hugging Face form (OWNER/NAME); default: from the run's model."""


@dataclass
class EeeWritten:
    """What was written, as paths relative to the folder given."""

    aggregate: str
    samples: str
    records: int
    warnings: list[str] = field(default_factory=list)
    """The validator's advice (not errors: the records are valid)."""


def default_model_id(model: str) -> str:
    """`backend:name` -> a Hugging Face-style id: the name when it is one (OWNER/NAME),
    else `backend/name`."""
    backend, _, name = model.partition(":")
    if not name:
        return model
    return name if "/" in name else f"{backend}/{name}"


def write_eee_records(
    store: Store, run: Run, folder: Path, options: EeeOptions, prompts_dir: Path | None = None
) -> EeeWritten:
    """Build, validate and write `run`'s aggregate and instance records under `folder`."""
    if run.kind != "verdict":
        raise EeeError(f"run {run.name!r} is a {run.kind} run; only verdict runs are exported as EEE records")
    if options.relationship not in RELATIONSHIPS:
        raise EeeError(f"relationship {options.relationship!r}: one of {', '.join(RELATIONSHIPS)}")
    if not options.organization.strip():
        raise EeeError("--organization: give who ran the evaluation")
    report = _scores(store, run)
    model_id = options.model_id or default_model_id(run.model)
    collection, developer, model = _datastore_folders(report.full.dataset, model_id, run)
    name = str(uuid.uuid4())
    where = f"data/{collection}/{developer}/{model}"
    aggregate_path, samples_path = f"{where}/{name}.json", f"{where}/{name}_samples.jsonl"
    aggregate, lines = _build(store, run, report, model_id, samples_path, options, prompts_dir)
    staging = Path(tempfile.mkdtemp(prefix=".eee-", dir=folder if folder.is_dir() else folder.parent))
    try:
        (staging / where).mkdir(parents=True)
        (staging / samples_path).write_text(lines, encoding="utf-8")
        (staging / aggregate_path).write_text(aggregate, encoding="utf-8")
        warnings = _validate(staging, aggregate_path, samples_path)
        _move_in(staging, folder, where, (samples_path, aggregate_path))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return EeeWritten(aggregate_path, samples_path, lines.count("\n"), warnings)


def _scores(store: Store, run: Run):
    """The run's scores as `metrics --json` has them (the profile's natural cluster)."""
    from workbench.reports import ReportOptions, build_report
    from workbench.scoring.runs import ScoringError

    try:
        return build_report(store, run, ReportOptions(), parts=("scores",)).scores
    except ScoringError as error:
        raise EeeError(str(error)) from None


def _datastore_folders(dataset: str, model_id: str, run: Run) -> tuple[str, str, str]:
    from every_eval_ever.helpers.io import datastore_path_components

    try:
        return datastore_path_components(dataset, model_id, _backend(run))
    except ValueError as error:
        raise EeeError(
            f"model id {model_id!r} makes no EEE datastore folder ({error}): give --model-id OWNER/NAME"
        ) from None


def _backend(run: Run) -> str:
    return run.model.partition(":")[0]


def _build(store, run, report, model_id, samples_path, options, prompts_dir) -> tuple[str, str]:
    """The aggregate's JSON text and the instances' JSON Lines, from the package's models."""
    from every_eval_ever.eval_types import EvaluationLog
    from every_eval_ever.schema import get_schema_version
    from pydantic import ValidationError

    version, scores = get_schema_version(), report.full
    evaluation_id = f"{scores.dataset}/{model_id}/{_epoch(run.started_at or run.created_at)}"
    results = evaluation_results(run, report, _timestamp(run))
    accuracy = next((r["evaluation_result_id"] for r in results if r["metric_config"]["metric_id"] == "accuracy"), None)
    context = InstanceContext(
        store, run, version, evaluation_id, scores.dataset, accuracy, model_id,
        list(scores.overall.summary.classes), _template(run, prompts_dir),
    )  # fmt: skip
    try:
        records = instance_records(context)
        lines = "".join(_json_line(r) for r in records)
        log = EvaluationLog.model_validate(
            {
                "schema_version": version,
                "evaluation_id": evaluation_id,
                "evaluation_timestamp": _timestamp(run),
                "retrieved_timestamp": str(_epoch(None)),
                "source_metadata": _source(run, options),
                "eval_library": {"name": LIBRARY, "version": _library_version()},
                "model_info": _model_info(run, model_id),
                "evaluation_results": results,
                "detailed_evaluation_results": {
                    "format": "jsonl",
                    "file_path": samples_path,
                    "hash_algorithm": "sha256",
                    "checksum": hashlib.sha256(lines.encode()).hexdigest(),
                    "total_rows": len(records),
                },
            }
        )
    except ValidationError as error:
        raise EeeError(f"the every-eval-ever schema refuses the record: {error}") from None
    aggregate = json.dumps(log.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False)
    return aggregate + "\n", lines


def _json_line(record) -> str:
    return json.dumps(record.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n"


def _source(run: Run, options: EeeOptions) -> dict:
    return {
        "source_name": LIBRARY,
        "source_type": "evaluation_run",
        "source_organization_name": options.organization,
        "evaluator_relationship": options.relationship,
        "additional_details": {"run": run.name, "run_id": str(run.id), "status": run.status},
    }


def _model_info(run: Run, model_id: str) -> dict:
    deployment, availability = DEPLOYMENT.get(_backend(run), ("unknown", "unknown"))
    info = {
        "name": run.model,
        "id": model_id,
        "developer": _backend(run),
        "inference_platform": _backend(run),
        "additional_details": {"deployment_type": deployment, "model_availability": availability},
    }
    build = (run.versions or {}).get("llama_cpp_python") if _backend(run) == "gguf" else None
    if build:
        info["inference_engine"] = {"name": "llama.cpp (llama-cpp-python)", "version": str(build)}
    return info


def _template(run: Run, prompts_dir: Path | None):
    """The run's template when it still has the text the run used (else no formatted input)."""
    from workbench.prompting import TemplateError, load_template

    if not run.prompt_name:
        return None
    try:
        template = load_template(run.prompt_name, prompts_dir)
    except TemplateError:
        return None
    return template if not run.prompt_hash or template.content_hash == run.prompt_hash else None


def _timestamp(run: Run) -> str | None:
    return run.finished_at or run.started_at or run.created_at


def _epoch(stamp: str | None) -> int:
    """Unix seconds of an ISO time (None: now), as EEE's ids and retrieved_timestamp have it."""
    if not stamp:
        return int(datetime.datetime.now(datetime.UTC).timestamp())
    moment = datetime.datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return int(moment.timestamp())


def _library_version() -> str:
    from importlib import metadata

    try:
        return metadata.version(LIBRARY)
    except metadata.PackageNotFoundError:
        return "unknown"


def _validate(staging: Path, aggregate_path: str, samples_path: str) -> list[str]:
    """The package's validator on both files, with its datastore checks (paths, the two
    files pointing at each other); EeeError listing what it refuses, else its warnings."""
    from every_eval_ever.validator.validation_core import format_error, format_warning, validate_file

    present = frozenset({aggregate_path, samples_path})
    warnings = []
    for path in (aggregate_path, samples_path):
        report = validate_file(
            staging / path,
            repo_path=path,
            available_files=present,
            read_repo_file=lambda p: (staging / p).read_text(encoding="utf-8"),
            run_semantic_checks=True,
        )
        if not report.valid:
            found = "; ".join(format_error(e) for e in report.errors[:5])
            raise EeeError(f"the every-eval-ever validator refuses {path}: {found}")
        warnings += [f"{path}: {format_warning(w)}" for w in report.warnings]
    return warnings


def _move_in(staging: Path, folder: Path, where: str, paths: tuple[str, ...]) -> None:
    """A new folder is the staging folder renamed; into an existing one (a datastore
    checkout) the files move one by one, and a failure takes back those already moved."""
    mask = os.umask(0)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    if not folder.exists():
        staging.chmod(0o777 & ~mask)  # mkdtemp made it for its owner alone
        staging.rename(folder)
        return
    target = folder / where
    made = [d for d in (target, *target.parents) if d.is_relative_to(folder) and not d.exists()]
    moved = []
    try:
        target.mkdir(parents=True, exist_ok=True)
        for path in paths:
            os.replace(staging / path, folder / path)
            moved.append(folder / path)
    except BaseException:
        for path in moved:
            path.unlink(missing_ok=True)
        for directory in made:  # deepest first: the folders this export made, now empty again
            if directory.is_dir():
                directory.rmdir()
        raise
