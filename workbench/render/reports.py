"""Reports a user can paste into a paper: Markdown tables, JSON with everything, CSV.

Markdown: see workbench/render/report_markdown.py.
CSV: one row per run x subset x slice (the overall row has field "all").
JSON: every number, interval and count, with the settings that produced them.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence

from workbench.choices import REPORT_FORMATS
from workbench.metrics import MetricSummary
from workbench.render.display import printable
from workbench.render.explanations import comparison_dict as eq_comparison_dict
from workbench.render.explanations import explanations_dict
from workbench.render.leaderboard import ev2r_comparison_dict, leaderboard_dict
from workbench.render.report_markdown import markdown_report
from workbench.render.score_text import subsets
from workbench.render.searches import search_dict
from workbench.render.triage import breakdown_dict
from workbench.render.usage import usage_dict
from workbench.reports import ComparisonReport, RunReport
from workbench.scoring.compare import RESOLUTION_ALPHA, RESOLUTION_POWER, Comparison
from workbench.scoring.runs import RunScores, Scores

# ---- JSON ------------------------------------------------------------------------------


def _clean(value):
    """JSON has no NaN: undefined numbers become null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def summary_dict(summary: MetricSummary) -> dict:
    """Every number of a summary, with per-class scores and the confusion matrix."""
    base = summary.baselines
    names = (
        "scored",
        "correct",
        "abstentions",
        "parse_failures",
        "errors",
        "missing",
        "excluded",
        "accuracy",
        "macro_f1",
        "mcc",
        "unknown_rate",
        "parse_failure_rate",
        "error_rate",
        "coverage",
    )
    result = {name: _clean(getattr(summary, name)) for name in names}
    result["per_class"] = {
        c.label: {"precision": c.precision, "recall": c.recall, "f1": c.f1, "support": c.support}
        for c in summary.per_class
    }
    result["confusion"] = {
        "rows": list(summary.confusion.classes),
        "columns": list(summary.confusion.columns),
        "counts": summary.confusion.counts.tolist(),
    }
    result["baselines"] = {
        "uniform_accuracy": _clean(base.uniform_accuracy),
        "uniform_macro_f1": _clean(base.uniform_macro_f1),
        "majority_class": base.majority_class,
        "majority_accuracy": _clean(base.majority_accuracy),
        "majority_macro_f1": _clean(base.majority_macro_f1),
    }
    return result


def scores_dict(scores: Scores) -> dict:
    """A summary with its bootstrap intervals."""
    result = summary_dict(scores.summary)
    result["intervals"] = {
        name: {"estimate": _clean(i.estimate), "low": _clean(i.low), "high": _clean(i.high)}
        for name, i in scores.intervals.items()
    }
    return result


def run_scores_dict(scores: RunScores) -> dict:
    return {
        "items": scores.items,
        "excluded_by_label": scores.excluded_by_label,
        "cutoff": scores.cutoff,
        "cluster": scores.cluster,
        "clusters": scores.clusters,
        "overall": scores_dict(scores.overall),
        "breakdowns": {
            field: {value: scores_dict(s) for value, s in slices.items()} for field, slices in scores.breakdowns.items()
        },
    }


def report_dict(report: RunReport) -> dict:
    """One run's whole report."""
    run = report.run
    return {
        "run": run.name,
        "run_id": run.id,
        "model": run.model,
        "dataset": report.scores.full.dataset,
        "cluster_declared_by": report.cluster_declared_by,
        "cutoff_note": report.cutoff_note,
        "status": run.status,
        "resamples": report.scores.resamples,
        "seed": report.scores.seed,
        "exclude_flag": report.scores.exclude_flag,
        "flagged": report.scores.flagged,
        "all": run_scores_dict(report.scores.full),
        "filtered": run_scores_dict(report.scores.filtered) if report.scores.filtered is not None else None,
        "explanation_quality": explanations_dict(report.explanations),
        "averitec": leaderboard_dict(report.averitec),
        "averimatec": _averimatec_dict(report.averimatec),
        "search": search_dict(report.search),
        "usage": usage_dict(report.usage) if report.usage is not None else None,
        "failure_categories": breakdown_dict(report.failures),
    }


def _averimatec_dict(found) -> dict | None:
    if found is None:
        return None
    from workbench.contamination.averimatec_scores import averimatec_dict

    return averimatec_dict(found)


def comparison_dict(comparison: Comparison) -> dict:
    """A comparison's deltas, tests, CoR and flipped claim ids."""

    def test(t):
        return {"b": t.b, "c": t.c, "p_value": t.p_value}

    return {
        "run_a": comparison.run_a.name,
        "run_b": comparison.run_b.name,
        "shared": comparison.shared,
        "deltas": {
            n: {"a": _clean(d.a), "b": _clean(d.b), "delta": _clean(d.delta)} for n, d in comparison.deltas.items()
        },
        "paired_bootstrap": {
            n: {"delta": p.delta, "low": p.low, "high": p.high, "p_value": p.p_value}
            for n, p in comparison.paired.items()
        },
        "resolution": {
            n: {
                "standard_error": _clean(r.standard_error),
                "detectable": _clean(r.detectable),
                "alpha": RESOLUTION_ALPHA,
                "power": RESOLUTION_POWER,
                "closed_form_standard_error": _clean(r.closed_form_error) if r.closed_form_error is not None else None,
                "cannot_be_told_apart": r.words is not None,
                "words": r.words,
            }
            for n, r in comparison.resolution.items()
        },
        "cluster": comparison.cluster,
        "clusters": comparison.clusters,
        "mcnemar": test(comparison.mcnemar),
        "correction_rate": comparison.correction_rate,
        "a_wrong": comparison.a_wrong,
        "right_to_wrong": comparison.right_to_wrong,
        "wrong_to_right": comparison.wrong_to_right,
        "right_to_wrong_filter": comparison.right_to_wrong_filter,
        "wrong_to_right_filter": comparison.wrong_to_right_filter,
        "by": comparison.by,
        "slices": [
            {
                "value": s.value,
                "shared": s.shared,
                "mcnemar": test(s.mcnemar),
                "deltas": {
                    n: {"a": _clean(d.a), "b": _clean(d.b), "delta": _clean(d.delta)} for n, d in s.deltas.items()
                },
            }
            for s in comparison.slices
        ],
    }


def comparison_report_dict(report: ComparisonReport) -> dict:
    return {
        "cluster_declared_by": report.cluster_declared_by,
        "comparability": {
            "like_for_like": report.like_for_like,
            "varies": list(report.varies),
            "differences": [{"key": d.key, "a": d.a, "b": d.b} for d in report.differences],
            "unexplained": [d.key for d in report.unexplained],
        },
        "resamples": report.scores.resamples,
        "seed": report.scores.seed,
        "exclude_flag": report.scores.exclude_flag,
        "all": comparison_dict(report.scores.full),
        "filtered": comparison_dict(report.scores.filtered) if report.scores.filtered is not None else None,
        "explanation_quality": eq_comparison_dict(report.explanations),
        "averitec_2025": ev2r_comparison_dict(report.ev2r),
    }


def json_report(reports: Sequence[RunReport]) -> str:
    """Everything, as JSON (undefined numbers as null)."""
    return json.dumps({"runs": [report_dict(r) for r in reports]}, indent=2, ensure_ascii=False)


# ---- CSV -------------------------------------------------------------------------------

_CSV_NUMBERS = (
    "scored",
    "correct",
    "abstentions",
    "parse_failures",
    "errors",
    "missing",
    "excluded",
    "accuracy",
    "macro_f1",
    "mcc",
    "unknown_rate",
    "parse_failure_rate",
    "error_rate",
    "coverage",
)


def csv_report(reports: Sequence[RunReport]) -> str:
    """One row per run x subset x slice; per-class F1 columns for every class seen."""
    classes = list(dict.fromkeys(c for r in reports for c in r.scores.full.overall.summary.classes))
    header = [
        "run",
        "dataset",
        "subset",
        "field",
        "value",
        *_CSV_NUMBERS,
        "accuracy_low",
        "accuracy_high",
        "macro_f1_low",
        "macro_f1_high",
        *(f"f1:{c}" for c in classes),
        *(f"support:{c}" for c in classes),
        "eq",
        "eq_low",
        "eq_high",
        "eq_n",
        "seconds_per_claim_median",
        "seconds_per_claim_p95",
        "cost_usd",
    ]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for report in reports:
        for subset, scores in subsets(report):
            rows = [("all", "", scores.overall)]
            rows += [(f, v, s) for f, slices in scores.breakdowns.items() for v, s in slices.items()]
            for field, value, s in rows:
                eq = _eq_of(report, field, value) if subset == "all" else None
                usage = report.usage if (subset, field) == ("all", "all") else None
                writer.writerow(
                    _csv_row(report, subset, field, value, s, classes)
                    + [_csv_number(x) for x in (eq and eq.mean, eq and eq.low, eq and eq.high)]
                    + ["" if eq is None else eq.n]
                    + [
                        _csv_number(x)
                        for x in (usage and usage.seconds_median, usage and usage.seconds_p95, usage and usage.cost)
                    ]
                )
    return out.getvalue()


def _eq_of(report: RunReport, field: str, value: str):
    eq = report.explanations
    if eq is None:
        return None
    return eq.overall if field == "all" else eq.slices.get(field, {}).get(value)


def _csv_row(report: RunReport, subset: str, field: str, value: str, scores: Scores, classes: list[str]) -> list:
    summary = scores.summary
    acc, f1 = scores.intervals.get("accuracy"), scores.intervals.get("macro_f1")
    per_class = {c.label: c for c in summary.per_class}
    return [
        printable(report.run.name),
        printable(report.scores.full.dataset),
        subset,
        field,
        printable(value),
        *(_csv_number(getattr(summary, n)) for n in _CSV_NUMBERS),
        *(_csv_number(x) for x in (acc and acc.low, acc and acc.high, f1 and f1.low, f1 and f1.high)),
        *(_csv_number(per_class[c].f1) if c in per_class else "" for c in classes),
        *(per_class[c].support if c in per_class else "" for c in classes),
    ]


def _csv_number(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def write_report(reports: Sequence[RunReport], format: str) -> str:
    """The report text in `format` (md, json or csv)."""
    if format == "md":
        return markdown_report(reports)
    if format == "json":
        return json_report(reports) + "\n"
    if format == "csv":
        return csv_report(reports)
    raise ValueError(f"unknown report format {format!r}; choose from {', '.join(REPORT_FORMATS)}")
