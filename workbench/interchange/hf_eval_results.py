"""A run's headline score as a Hugging Face Hub `.eval_results/*.yaml` entry: the file a
model repository holds so the score shows on the model's page and on the benchmark's
leaderboard (the Hub documents the format at huggingface.co/docs/hub/eval-results; the Hub
checks it when the file is pushed, and no library validates it offline).

    write_eval_results(store, run, Path(".eval_results/demo.yaml"), HubResultOptions("org/bench"))

One entry per file: the Hub wants each variant of a score (another setting, with tools)
in a file of its own. The value is the metric in percent, as the Hub's leaderboards show
scores; the setting, template and bootstrap interval go in `notes`.
"""

from __future__ import annotations

import datetime
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from store import Run, Store
from workbench.errors import WorkbenchError
from workbench.interchange.files import as_a_new_file

METRICS = ("macro_f1", "accuracy", "mcc")
"""What can be published (MCC is not a percentage: it is written as it is, -1 to 1)."""


class HubResultError(WorkbenchError, ValueError):
    """A run whose score cannot be written as a Hub result; the message says why."""


@dataclass
class HubResultOptions:
    dataset_id: str
    """The benchmark's dataset on the Hub (org/name); the Hub lists only registered benchmarks."""
    task_id: str | None = None
    metric: str = "macro_f1"
    revision: str | None = None
    source_url: str | None = None
    source_name: str | None = None


def eval_result_entry(store: Store, run: Run, options: HubResultOptions) -> dict:
    """The entry for `run`, in the documented field order."""
    from workbench.scoring.runs import ScoringError, score_run

    if options.metric not in METRICS:
        raise HubResultError(f"--metric {options.metric!r}: one of {', '.join(METRICS)}")
    if "/" not in options.dataset_id:
        raise HubResultError(f"--hf-dataset {options.dataset_id!r}: a Hub dataset id is OWNER/NAME")
    try:
        overall = score_run(store, run.id).full.overall
    except ScoringError as error:
        raise HubResultError(str(error)) from None
    value = getattr(overall.summary, options.metric)
    if value is None or math.isnan(value):
        raise HubResultError(f"run {run.name!r} has no {options.metric} (nothing was scored)")
    scale = 1 if options.metric == "mcc" else 100
    dataset = {"id": options.dataset_id, "task_id": options.task_id, "revision": options.revision}
    entry = {
        "dataset": {k: v for k, v in dataset.items() if v},
        "value": round(value * scale, 2),
        "date": (run.finished_at or datetime.datetime.now(datetime.UTC).isoformat())[:10],
        "notes": _notes(run, overall, options.metric, scale),
    }
    if options.source_url:
        entry["source"] = {"url": options.source_url, **({"name": options.source_name} if options.source_name else {})}
    return entry


def _notes(run: Run, overall, metric: str, scale: int) -> str:
    parts = [f"{metric.replace('_', '-')} over {overall.summary.scored} scored claims"]
    interval = overall.intervals.get(metric)
    if interval is not None:
        parts.append(f"95% bootstrap interval {interval.low * scale:.2f} to {interval.high * scale:.2f}")
    parts += [f"setting {run.setting}" if run.setting else "", f"template {run.prompt_name}" if run.prompt_name else ""]
    if run.params.get("search"):
        parts.append(f"with tools (search: {run.params['search']})")
    return "; ".join(p for p in parts if p)


def write_eval_results(store: Store, run: Run, output: Path, options: HubResultOptions) -> dict:
    """Write the entry as a one-item YAML list, atomically; returns the entry."""
    import yaml

    entry = eval_result_entry(store, run, options)
    output = Path(output)
    handle, temporary = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            yaml.safe_dump([entry], stream, sort_keys=False, allow_unicode=True)
        as_a_new_file(temporary)
        os.replace(temporary, output)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return entry
