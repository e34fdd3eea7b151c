"""Persistence for the workbench: one SQLite file, reached only through this package.

This package imports neither `workbench` nor `textual` (a test keeps it so).
"""

from __future__ import annotations

import importlib
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite3 import Connection

    from sqlite_utils import Database

    from store.annotations import AnnotationStore
    from store.articles import ArticleStore
    from store.assignments import AssignmentStore
    from store.batches import BatchStore
    from store.claims import ClaimStore
    from store.contamination import ContaminationStore
    from store.curation import CurationStore
    from store.datasets import DatasetStore
    from store.judging import JudgingStore
    from store.runs import RunStore
    from store.scoring import ScoringStore
    from store.search import SearchStore
    from store.triage import TriageStore
    from store.triage_answers import AnswerOutcomeStore
    from store.usage import UsageStore

_EXPORTS = {
    "store.annotations": "CHECKED_CLEAN AnnotationStore FailureCategory FlagChange",
    "store.adjudication": "Adjudication AdjudicationConflict",
    "store.articles": "ArticleCounts ArticleRecord ArticleStore",
    "store.assignments": "AssignmentStore Progress QueueItem Round",
    "store.batches": "BatchBusy BatchStore RunBatch",
    "store.claims": "SORT_COLUMNS ClaimRow ClaimStore PageRequest",
    "store.connection": "data_version open_database",
    "store.contamination": "ContaminationStore ScoreGroup ScoreRow",
    "store.curation": "CURATED_OUT CurationRow CurationStore DuplicateLink StepRecord step_kind",
    "store.datasets": "DatasetConflict DatasetStore ImportCounts",
    "store.filter_outcome": "CompiledFilter FilterError",
    "store.filters": "FILTER_HELP compile_filter",
    "store.flag_specs": "FlagSpec FlagSpecError check_flag_model",
    "store.judging": "PERSON_PREFIX ClaimJudgment Judged JudgeRepeat JudgingStore",
    "store.label_history": "HistoryEntry",
    "store.problems": "DatabaseProblem as_problem",
    "store.records": "Claim ClaimImage Dataset Evidence Flag LabelSpace Prediction Run as_dict validated",
    "store.response_cache": "CachedResponse",
    "store.runs": "RunProgress RunStore",
    "store.scoring": "ScoringStore",
    "store.search": "FetchRecord SearchStore Step StoredResult",
    "store.triage": "ImportedLabel LabelImportCounts Label TriageStore UNATTRIBUTED",
    "store.triage_answers": "WRONG_OUTCOMES AnswerOutcomeStore",
    "store.usage": "UsageStore",
}
"""What `from store import X` finds, by module: imported when first asked for (PEP 562), so a
command imports only the parts of the store it uses."""

_HOME = {name: module for module, names in _EXPORTS.items() for name in names.split()}


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'store' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


class Store:
    """The database, migrated on open, with one attribute per area of the schema (each made,
    and its module imported, when first used)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        migrate(conn)

    @cached_property
    def db(self) -> Database:
        """sqlite-utils' Database over the same connection (scripts, tests and benchmarks use
        its table objects); the store itself reads through `conn`."""
        from store.connection import sqlite_utils_database

        return sqlite_utils_database(self.conn)

    @cached_property
    def datasets(self) -> DatasetStore:
        from store.datasets import DatasetStore

        return DatasetStore(self.conn)

    @cached_property
    def claims(self) -> ClaimStore:
        from store.claims import ClaimStore

        return ClaimStore(self.conn)

    @cached_property
    def runs(self) -> RunStore:
        from store.runs import RunStore

        return RunStore(self.conn)

    @cached_property
    def annotations(self) -> AnnotationStore:
        from store.annotations import AnnotationStore

        return AnnotationStore(self.conn)

    @cached_property
    def batches(self) -> BatchStore:
        from store.batches import BatchStore

        return BatchStore(self.conn)

    @cached_property
    def contamination(self) -> ContaminationStore:
        from store.contamination import ContaminationStore

        return ContaminationStore(self.conn)

    @cached_property
    def scoring(self) -> ScoringStore:
        from store.scoring import ScoringStore

        return ScoringStore(self.conn)

    @cached_property
    def judging(self) -> JudgingStore:
        from store.judging import JudgingStore

        return JudgingStore(self.conn, self.runs)

    @cached_property
    def search(self) -> SearchStore:
        from store.search import SearchStore

        return SearchStore(self.conn)

    @cached_property
    def triage(self) -> TriageStore:
        from store.triage import TriageStore

        return TriageStore(self.conn)

    @cached_property
    def answer_outcomes(self) -> AnswerOutcomeStore:
        from store.triage_answers import AnswerOutcomeStore

        return AnswerOutcomeStore(self.conn)

    @cached_property
    def assignments(self) -> AssignmentStore:
        from store.assignments import AssignmentStore

        return AssignmentStore(self.conn)

    @cached_property
    def articles(self) -> ArticleStore:
        from store.articles import ArticleStore

        return ArticleStore(self.conn)

    @cached_property
    def curation(self) -> CurationStore:
        from store.curation import CurationStore

        return CurationStore(self.conn)

    @cached_property
    def usage(self) -> UsageStore:
        from store.usage import UsageStore

        return UsageStore(self.conn)

    @classmethod
    def open(cls, path: str | Path, closed_elsewhere: bool = False) -> Store:
        """Open (creating and migrating if needed) the database file at `path`; a
        DatabaseProblem says in one line what is wrong with it, if anything is.
        `closed_elsewhere`: another thread may close it after the one using it has ended."""
        import sqlite3

        from store.connection import open_database
        from store.problems import DatabaseProblem, as_problem

        conn = open_database(path, closed_elsewhere)
        try:
            return cls(conn)
        except DatabaseProblem as problem:  # named as the user gave it, not as SQLite resolved it
            conn.close()
            raise DatabaseProblem(path, problem.what) from None
        except sqlite3.Error as error:  # a migration met a lock or a read-only file
            conn.close()
            problem = as_problem(error, path)
            if problem is None:
                raise
            raise problem from None

    def transaction(self):
        """A context in which every write commits together (or, on an exception, none does)."""
        from store.connection import atomic

        return atomic(self.conn)

    def data_version(self) -> int:
        """Changes when another connection commits (what live views poll)."""
        from store.connection import data_version

        return data_version(self.conn)

    def close(self) -> None:
        self.conn.close()


def migrate(conn) -> None:
    """Bring the schema up to date. A database that has every migration is told apart with
    sqlite3 alone (the list of them is the registered functions'); sqlite-utils' Migrations
    load only when there is something to apply or refuse; the registry and the migrations'
    modules only when the database is not at this version."""
    from store.schema_check import has_this_version

    if has_this_version(conn):
        return
    from store.migrations import apply_migrations, schema_is_current

    if not schema_is_current(conn):
        apply_migrations(conn)


__all__ = [
    "AnnotationStore",
    "ArticleCounts",
    "ArticleRecord",
    "ArticleStore",
    "CURATED_OUT",
    "CurationRow",
    "CurationStore",
    "DuplicateLink",
    "StepRecord",
    "step_kind",
    "BatchBusy",
    "BatchStore",
    "CHECKED_CLEAN",
    "CachedResponse",
    "Claim",
    "ClaimRow",
    "ClaimStore",
    "CompiledFilter",
    "ContaminationStore",
    "Dataset",
    "DatabaseProblem",
    "DatasetConflict",
    "DatasetStore",
    "Evidence",
    "FILTER_HELP",
    "FailureCategory",
    "Flag",
    "FlagChange",
    "FlagSpec",
    "FlagSpecError",
    "FilterError",
    "ImportCounts",
    "LabelSpace",
    "PageRequest",
    "Prediction",
    "Run",
    "ScoreGroup",
    "ScoreRow",
    "RunBatch",
    "RunProgress",
    "RunStore",
    "SORT_COLUMNS",
    "Store",
    "check_flag_model",
    "compile_filter",
    "migrate",
    "open_database",
    "PERSON_PREFIX",
    "ClaimJudgment",
    "Judged",
    "JudgingStore",
    "ClaimImage",
    "FetchRecord",
    "SearchStore",
    "Step",
    "StoredResult",
    "Adjudication",
    "AdjudicationConflict",
    "AssignmentStore",
    "HistoryEntry",
    "ImportedLabel",
    "JudgeRepeat",
    "Label",
    "LabelImportCounts",
    "Progress",
    "QueueItem",
    "Round",
    "TriageStore",
    "UNATTRIBUTED",
]
