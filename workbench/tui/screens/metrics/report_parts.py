"""The parts of each run's report the metrics view shows beside its live scores: explanation
quality, a search run's searches and query reformulations, time and cost, and the failure
categories of its wrong answers. They are built by workbench.reports.build_report, as
`workbench metrics` builds them; each part is read again only when what it reads changed.
"""

from __future__ import annotations

import time
from dataclasses import replace

from store import Run
from workbench.reports import ReportOptions, RunReport, build_report

SLOW_PARTS = ("search", "usage", "failures", "averitec", "averimatec")
"""Parts that read the whole run: while it runs, read again at most every SLOW_REREAD_SECONDS."""
SLOW_REREAD_SECONDS = 5.0
AT_OPENING = ("explanations", "search")
"""Read with the first numbers of big runs; their time and cost and failure categories follow
at the next poll (two 300,000-answer runs: ~0.7 s of reading the first paint does not wait for)."""
ALL_AT_OPENING_UP_TO = 20_000
"""Runs of this many items or fewer together open with every part: reading them takes milliseconds."""


class ReportParts:
    """The non-score parts of the runs' reports, kept current by `refresh` (worker threads,
    one at a time: the watcher's lock)."""

    def __init__(self) -> None:
        self.reports: dict[int, RunReport] = {}
        self.pending = False
        """A part's inputs changed but it waits for its next turn (SLOW_REREAD_SECONDS)."""
        self._seen: dict[str, tuple] = {}
        self._read_at = 0.0

    def load(self, store, runs: list[Run], flag_kind: str, items: int) -> None:
        """Every run's parts afresh (the view opened, another field or flag kind): all of them
        for small runs (`items` together), else those AT_OPENING, the others pending for the
        next refresh to read whatever the time."""
        self.reports = {run.id: RunReport(run) for run in runs}
        signatures = self._signatures(store, runs, answers=0)
        now = list(signatures) if items <= ALL_AT_OPENING_UP_TO else list(AT_OPENING)
        self._read(store, runs, flag_kind, now)
        self._seen = {part: signatures[part] for part in now}
        self._read_at = time.monotonic() if len(now) == len(signatures) else 0.0
        self.pending = len(now) < len(signatures)

    def refresh(self, store, runs: list[Run], flag_kind: str, answers: int, now: bool = False) -> bool:
        """Read again the parts whose inputs changed; True when any was read. `answers`
        counts the answers recorded since the view opened; `now` (a run started or
        stopped) reads the slow parts without waiting their turn."""
        signatures = self._signatures(store, runs, answers)
        due = [part for part, signature in signatures.items() if self._seen.get(part) != signature]
        if not now and time.monotonic() - self._read_at < SLOW_REREAD_SECONDS:
            waiting = [part for part in due if part in SLOW_PARTS]
            due = [part for part in due if part not in SLOW_PARTS]
        else:
            waiting = []
        self.pending = bool(waiting)
        if not due:
            return False
        self._read(store, runs, flag_kind, due)
        self._seen.update({part: signatures[part] for part in due})
        if set(due) & set(SLOW_PARTS):
            self._read_at = time.monotonic()
        return True

    @staticmethod
    def _signatures(store, runs: list[Run], answers: int) -> dict[str, tuple]:
        """What each part reads, cheaply: it changes when the part would."""
        ids = [run.id for run in runs]
        judged = tuple(store.scoring.judge_progress(ids))
        searching = [run.id for run in runs if run.params.get("search")]
        return {
            "explanations": judged,
            "search": tuple(store.search.progress(searching)) if searching else (),
            "usage": (answers, judged),
            "failures": (answers, store.triage.label_version()),
            # The AVeriTeC leaderboard row and the AVerImaTeC figures: read again when the run
            # or one of its judge runs answers more (its questions and evidence are scored too).
            "averitec": (answers, *_judges_done(store, runs, "ev2r")),
            "averimatec": (answers, *_judges_done(store, runs, "averimatec")),
        }

    def _read(self, store, runs: list[Run], flag_kind: str, due: list[str]) -> None:
        from workbench.usage.prices import price_table

        quick = [part for part in due if part not in SLOW_PARTS]
        slow = [part for part in due if part in SLOW_PARTS]
        # The reformulations split by the flag kind; EQ is shown overall (no slices to read).
        by_flag = ReportOptions(by=(f"flag:{flag_kind}",) if flag_kind else ())
        prices = price_table() if "usage" in slow else None
        for run in runs:
            found = {}
            if quick:
                found.update(_parts(build_report(store, run, ReportOptions(), quick), quick))
            if slow:
                found.update(_parts(build_report(store, run, by_flag, slow, prices), slow))
            self.reports[run.id] = replace(self.reports.get(run.id) or RunReport(run), **found)


def _judges_done(store, runs: list[Run], task: str) -> list[tuple[int, int]]:
    """Each of the runs' `task` judge runs, with how many items it has answered."""
    return [
        (judge.id, store.runs.progress(judge.id).done)
        for run in runs
        for judge in store.judging.task_runs(run.id, task)
    ]


def _parts(report: RunReport, names: list[str]) -> dict:
    return {name: getattr(report, name) for name in names}
