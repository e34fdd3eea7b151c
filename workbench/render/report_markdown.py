"""The Markdown report: one overall table (a row per run, and per run without flagged
claims), a per-class table, one table per breakdown field, then the definitions, stated once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from workbench.render.averimatec import averimatec_markdown
from workbench.render.display import printable
from workbench.render.explanations import mean_text
from workbench.render.leaderboard import leaderboard_markdown
from workbench.render.score_text import excluded_text, interval_text, number, subsets
from workbench.render.searches import markdown_search
from workbench.render.triage import breakdown_markdown
from workbench.render.usage import cost_text, seconds_text, speed_text
from workbench.reports import RunReport
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
    lines += averimatec_markdown(reports, md_text, _md_table)
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
