"""Reports: a run's whole report (scores, explanation quality, search summary and query
reformulations, time and cost, failure categories), built once for the CLI, the TUI's
metrics view and the exported reports; and the report comparing two runs.

    run.py      RunReport, ReportOptions, build_report (one run), build_reports (several)
    compare.py  ComparisonReport, build_comparison (`workbench compare`)
    search.py   a search run's part: its search statistics and reformulation table

Drawing them is workbench/render/'s (scores.py for the terminal, reports.py for Markdown,
JSON and CSV); the numbers come from the domain packages below (scoring, judging, search,
usage, triage), none of which knows of reports.
"""

from workbench.reports.compare import ComparisonReport, build_comparison
from workbench.reports.run import PARTS, ReportOptions, RunReport, build_report, build_reports
from workbench.reports.search import SearchSummary, search_summary

__all__ = [
    "PARTS",
    "ComparisonReport",
    "ReportOptions",
    "RunReport",
    "SearchSummary",
    "build_comparison",
    "build_report",
    "build_reports",
    "search_summary",
]
