"""A run's scores as Every Eval Ever evaluation results: one result per metric, the figures
`workbench metrics --json` prints, each with its bootstrap interval where the run has one.

Accuracy comes first: each instance-level record's correctness counts towards it. Then
macro-F1, MCC, the rates (Unknown Rate, parse failures, errors, coverage), and precision,
recall and F1 of each class of the label space. A figure that is undefined for the run (NaN:
nothing scored, a class never predicted) is left out, as EEE's scores are finite numbers.
"""

from __future__ import annotations

import math

from store import Run

# name -> (EEE metric_id, display name, kind, lower is better, min, max, what it is)
METRICS = {
    "accuracy": ("accuracy", "Accuracy", "accuracy", False, 0, 1, "Share of scored claims with the gold verdict."),
    "macro_f1": ("f1_macro", "F1-macro", "f1", False, 0, 1, "Mean F1 over the scored classes."),
    "mcc": ("mcc", "MCC", "correlation", False, -1, 1, "Matthews correlation over the scored classes."),
    "unknown_rate": (
        "unknown_rate", "Unknown Rate", "rate", True, 0, 1, "Share of scored claims the model abstained on.",
    ),
    "parse_failure_rate": (
        "parse_failure_rate", "Parse-failure rate", "rate", True, 0, 1,
        "Share of scored claims whose answer had no readable verdict.",
    ),
    "error_rate": ("error_rate", "Error rate", "rate", True, 0, 1, "Share of claims with no answer (an API error)."),
    "coverage": ("coverage", "Coverage", "rate", False, 0, 1, "Share of the run's claims that have an answer."),
}  # fmt: skip
PER_CLASS = {
    "precision": ("Precision", "Precision of the class {label!r}."),
    "recall": ("Recall", "Recall of the class {label!r}."),
    "f1": ("F1", "F1 of the class {label!r}."),
}
CONFIDENCE = 0.95
"""The level of the workbench's percentile bootstrap intervals."""


def evaluation_results(run: Run, report, timestamp: str | None) -> list[dict]:
    """The EvaluationResult dicts for a ScoreReport's full scores (accuracy first)."""
    scores = report.full
    summary, intervals = scores.overall.summary, scores.overall.intervals
    shared = {
        "evaluation_name": scores.dataset,
        "source_data": _source_data(scores),
        "evaluation_timestamp": timestamp,
        "generation_config": _generation(run),
    }
    results = []
    for name, (metric_id, display, kind, lower, low, high, description) in METRICS.items():
        value = getattr(summary, name)
        config = _config(metric_id, display, kind, lower, low, high, description)
        uncertainty = _uncertainty(intervals.get(name), summary.scored, report, scores)
        results.append(_result(shared, metric_id, config, value, uncertainty))
    for c in summary.per_class:
        for name, (display, description) in PER_CLASS.items():
            config = _config(name, display, name, False, 0, 1, description.format(label=c.label))
            config["metric_parameters"] = {"class": c.label}
            details = {"support": str(c.support)}
            results.append(_result(shared, f"{name}/{c.label}", config, getattr(c, name), None, details))
    return [r for r in results if r is not None]


def _result(shared: dict, key: str, config: dict, value, uncertainty, details=None) -> dict | None:
    if value is None or math.isnan(value):
        return None
    score = {"score": float(value), "uncertainty": uncertainty, "details": details}
    return {
        "evaluation_result_id": f"{shared['evaluation_name']}/{key}",
        **shared,
        "metric_config": config,
        "score_details": {k: v for k, v in score.items() if v is not None},
    }


def _config(metric_id, display, kind, lower, low, high, description) -> dict:
    return {
        "evaluation_description": description,
        "metric_id": metric_id,
        "metric_name": display,
        "metric_kind": kind,
        "metric_unit": "proportion" if low == 0 else "coefficient",
        "lower_is_better": lower,
        "score_type": "continuous",
        "min_score": low,
        "max_score": high,
    }


def _uncertainty(interval, scored: int, report, scores) -> dict | None:
    if interval is None or math.isnan(interval.low) or math.isnan(interval.high):
        return None
    method = "percentile bootstrap" + (f", resampling {scores.cluster} clusters together" if scores.cluster else "")
    return {
        "confidence_interval": {
            "lower": interval.low,
            "upper": interval.high,
            "confidence_level": CONFIDENCE,
            "method": f"{method} (seed {report.seed})",
        },
        "num_samples": scored,
        "num_bootstrap_samples": report.resamples,
    }


def _source_data(scores) -> dict:
    details = {"claims": str(scores.items), "scored": str(scores.overall.summary.scored)}
    if scores.excluded_by_label:
        details["excluded_by_label"] = ", ".join(f"{k}: {v}" for k, v in scores.excluded_by_label.items())
    if scores.cluster:
        details["clusters"] = f"{scores.clusters} {scores.cluster} clusters"
    return {"dataset_name": scores.dataset, "source_type": "other", "additional_details": details}


def _generation(run: Run) -> dict:
    params = run.params or {}
    args = {name: params.get(name) for name in ("temperature", "top_p", "max_tokens")}
    details = {
        "template": run.prompt_name,
        "template_sha256": run.prompt_hash,
        "setting": run.setting,
        "subset": run.subset_filter,
        "search": params.get("search"),
        "seed": None if params.get("seed") is None else str(params["seed"]),
    }
    return {
        "generation_args": {k: v for k, v in args.items() if v is not None} or None,
        "additional_details": {k: str(v) for k, v in details.items() if v} or None,
    }
