"""Reports a user can paste into a paper: Markdown tables, JSON with everything, CSV.

Markdown: one overall table (a row per run, and per run without flagged claims), a
per-class table, one table per breakdown field, then the definitions, stated once.
CSV: one row per run x subset x slice (the overall row has field "all").
JSON: every number, interval and count, with the settings that produced them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence

from workbench.choices import REPORT_FORMATS
from workbench.metrics import Interval, MetricSummary
from workbench.render.display import printable
from workbench.render.explanations import comparison_dict as eq_comparison_dict
from workbench.render.explanations import explanations_dict, mean_text
from workbench.render.leaderboard import ev2r_comparison_dict, leaderboard_dict, leaderboard_markdown
from workbench.render.searches import markdown_search, search_dict
from workbench.render.triage import breakdown_dict, breakdown_markdown
from workbench.render.usage import cost_text, seconds_text, speed_text, usage_dict
from workbench.reports import ComparisonReport, RunReport
from workbench.scoring.compare import RESOLUTION_ALPHA, RESOLUTION_POWER, Comparison
from workbench.scoring.runs import RunScores, Scores

DEFINITIONS = """\
Definitions. Classes are the dataset's gold labels; items whose gold label the dataset
excludes (e.g. Unevaluable, Unclear) are left out and counted. Scored items are the
run's answered items (a verdict, an abstention or a parse failure). Accuracy = correct /
scored. Macro-F1 = the unweighted mean over the gold classes of per-class F1; an
abstention or a parse failure is wrong for its item's class and never a positive
(scikit-learn f1_score(labels=classes, zero_division=0)). MCC is the multi-class
Matthews correlation over the same items, abstention and parse failure counting as
predicted values of their own. Unknown Rate = abstentions / scored; parse-failure rate
= parse failures / scored. API errors and missing answers are not scored: error rate =
errors / (scored + errors + missing), coverage = scored / (scored + errors + missing).
Uniform baseline: each class guessed with probability 1/K (accuracy 1/K; per-class F1
2 p_k (1/K) / (p_k + 1/K), p_k the class's gold share). Majority baseline: always the
most frequent gold class. [lo, hi] = 95% percentile bootstrap interval over items
({resamples} resamples, seed {seed})."""

_FLAG_NOTE = 'Rows marked "without {kind}" recompute every number without the claims flagged {kind}.'


def number(value: float | None, digits: int = 3) -> str:
    """A score as text: 0.734, or — when it is undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.{digits}f}"


def interval_text(interval: Interval | None, digits: int = 3) -> str:
    """[lo, hi], or — when there is no interval."""
    if interval is None:
        return "—"
    return f"[{number(interval.low, digits)}, {number(interval.high, digits)}]"


def subsets(report: RunReport) -> list[tuple[str, RunScores]]:
    """(label, scores) for the full set and, with exclude_flag, the filtered one."""
    rows = [("all", report.scores.full)]
    if report.scores.filtered is not None:
        rows.append((f"without {report.scores.exclude_flag}", report.scores.filtered))
    return rows


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
        "search": search_dict(report.search),
        "usage": usage_dict(report.usage) if report.usage is not None else None,
        "failure_categories": breakdown_dict(report.failures),
    }


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


# ---- Markdown ---------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\|*_`\[\]<>#])")


def md_text(value: object) -> str:
    """Untrusted text safe inside a Markdown table cell (no markup, no control codes)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(printable(value).split()))


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def _with_ci(scores: Scores, name: str) -> str:
    return f"{number(getattr(scores.summary, name))} {interval_text(scores.intervals.get(name))}"


def markdown_report(reports: Sequence[RunReport], title: str = "Fact-checking results") -> str:
    """Markdown tables with the definitions stated once under them."""
    lines = [f"## {md_text(title)}", ""]
    lines += _md_table(
        [
            "Run",
            "Dataset",
            "Subset",
            "n",
            "Accuracy [95% CI]",
            "Macro-F1 [95% CI]",
            "MCC",
            "Unknown Rate",
            "Parse-failure rate",
            "Error rate",
            "Coverage",
            "Excluded",
            "Uniform F1",
            "Majority F1",
        ],
        [_overall_row(r, subset, s) for r in reports for subset, s in subsets(r)],
    )
    notes = [f"Note: {md_text(r.cutoff_note)}." for r in reports if r.cutoff_note]
    lines += [*notes, ""] if notes else []
    lines.append("Per class (precision / recall / F1, support):")
    lines.append("")
    for report in reports:
        for subset, scores in subsets(report):
            lines += _class_table(report, subset, scores)
    fields = list(dict.fromkeys(f for r in reports for f in r.scores.full.breakdowns))
    for field in fields:
        lines.append(f"By {md_text(field)}:")
        lines.append("")
        rows = [
            [
                md_text(r.run.name),
                subset,
                md_text(value),
                str(s.summary.scored),
                _with_ci(s, "accuracy"),
                _with_ci(s, "macro_f1"),
                number(s.summary.mcc),
                number(s.summary.unknown_rate),
                number(s.summary.coverage),
            ]
            for r in reports
            for subset, scores in subsets(r)
            for value, s in scores.breakdowns.get(field, {}).items()
        ]
        lines += _md_table(
            [
                "Run",
                "Subset",
                md_text(field),
                "n",
                "Accuracy [95% CI]",
                "Macro-F1 [95% CI]",
                "MCC",
                "Unknown Rate",
                "Coverage",
            ],
            rows,
        )
    lines += _explanations_table(reports)
    lines += leaderboard_markdown(reports, md_text, _md_table)
    lines += markdown_search(reports, md_text, _md_table)
    lines += _usage_table(reports)
    lines += breakdown_markdown(
        [(r.run.name, r.failures) for r in reports if r.failures is not None], md_text, _md_table
    )
    lines += _definitions(reports)
    return "\n".join(lines) + "\n"


def _explanations_table(reports: Sequence[RunReport]) -> list[str]:
    judged = [r for r in reports if r.explanations is not None]
    if not judged:
        return []
    rows = [
        [
            md_text(r.run.name),
            md_text(r.explanations.judge.name),
            str(r.explanations.judged),
            md_text(mean_text(r.explanations.overall)),
            str(r.explanations.unreadable),
            str(r.explanations.violations),
            " ".join(map(str, r.explanations.distribution)),
        ]
        for r in judged
    ]
    return ["Explanation quality (0-10, by a judge model):", ""] + _md_table(
        ["Run", "Judge run", "n", "EQ [95% CI]", "Unreadable", "Rubric violations", "Scores 0..10"], rows
    )


def _usage_table(reports: Sequence[RunReport]) -> list[str]:
    """Time per claim (median, p95), a local model's speed, and what each run and its judges cost."""
    used = [r for r in reports if r.usage is not None]
    if not used:
        return []
    rows = []
    for report in used:
        u = report.usage
        judges = "; ".join(f"{md_text(j.name)}: {md_text(cost_text(j))}" for j in u.judges) or "—"
        rows.append(
            [
                md_text(u.name),
                str(u.answers),
                str(u.from_cache),
                seconds_text(u.seconds_median),
                seconds_text(u.seconds_p95),
                md_text(speed_text(u) or "—"),
                f"{u.tokens_in:,}",
                f"{u.tokens_out:,}",
                md_text(cost_text(u)),
                judges,
            ]
        )
    return ["Time and cost (answers from the response cache take no time and cost nothing):", ""] + _md_table(
        [
            "Run",
            "Answers",
            "From cache",
            "Median s/claim",
            "p95 s/claim",
            "Speed",
            "Tokens in",
            "Tokens out",
            "Cost",
            "Judge runs",
        ],
        rows,
    )


def _overall_row(report: RunReport, subset: str, scores: RunScores) -> list[str]:
    s = scores.overall.summary
    return [
        md_text(report.run.name),
        md_text(scores.dataset),
        subset,
        str(s.scored),
        _with_ci(scores.overall, "accuracy"),
        _with_ci(scores.overall, "macro_f1"),
        number(s.mcc),
        number(s.unknown_rate),
        number(s.parse_failure_rate),
        number(s.error_rate),
        number(s.coverage),
        md_text(excluded_text(scores)),
        number(s.baselines.uniform_macro_f1),
        number(s.baselines.majority_macro_f1),
    ]


def _class_table(report: RunReport, subset: str, scores: RunScores) -> list[str]:
    s = scores.overall.summary
    suffix = "" if subset == "all" else f" ({subset})"
    header = [f"{md_text(report.run.name)}{suffix}", "Precision", "Recall", "F1", "Support"]
    rows = [
        [md_text(c.label), number(c.precision), number(c.recall), number(c.f1), str(c.support)] for c in s.per_class
    ]
    return _md_table(header, rows)


def _definitions(reports: Sequence[RunReport]) -> list[str]:
    first = reports[0] if reports else None
    scores = first.scores if first else None
    lines = [DEFINITIONS.format(resamples=scores.resamples if scores else 0, seed=scores.seed if scores else 0)]
    for kind in sorted({r.scores.exclude_flag for r in reports if r.scores.exclude_flag}):
        lines += ["", _FLAG_NOTE.format(kind=md_text(kind))]
    return lines


def excluded_text(scores: RunScores) -> str:
    """'Unclear 1, Unevaluable 2', or 0."""
    if not scores.excluded_by_label:
        return "0"
    return ", ".join(f"{printable(label)} {n}" for label, n in scores.excluded_by_label.items())


def write_report(reports: Sequence[RunReport], format: str) -> str:
    """The report text in `format` (md, json or csv)."""
    if format == "md":
        return markdown_report(reports)
    if format == "json":
        return json_report(reports) + "\n"
    if format == "csv":
        return csv_report(reports)
    raise ValueError(f"unknown report format {format!r}; choose from {', '.join(REPORT_FORMATS)}")
