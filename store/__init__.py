"""Persistence for the workbench: one SQLite file, reached only through this package.

This package imports neither `workbench` nor `textual` (a test keeps it so).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from store.annotations import (
    CHECKED_CLEAN,
    AnnotationStore,
    FailureCategory,
    FlagChange,
)
from store.articles import ArticleCounts, ArticleRecord, ArticleStore
from store.batches import BatchBusy, BatchStore, RunBatch
from store.claims import SORT_COLUMNS, ClaimRow, ClaimStore, PageRequest
from store.connection import data_version, open_database
from store.problems import DatabaseProblem, as_problem
from store.contamination import ContaminationStore, ScoreGroup, ScoreRow
from store.curation import CURATED_OUT, CurationRow, CurationStore, DuplicateLink, StepRecord, step_kind
from store.datasets import DatasetConflict, DatasetStore, ImportCounts
from store.filters import FILTER_HELP, CompiledFilter, FilterError, compile_filter
from store.flag_specs import FlagSpec, FlagSpecError, check_flag_model
from store.assignments import AssignmentStore, Progress, QueueItem, Round
from store.judging import PERSON_PREFIX, ClaimJudgment, Judged, JudgeRepeat, JudgingStore
from store.label_history import HistoryEntry
from store.triage import (
    Adjudication,
    AdjudicationConflict,
    ImportedLabel,
    LabelImportCounts,
    Label,
    TriageStore,
    UNATTRIBUTED,
)
from store.migrations import apply_migrations
from store.records import Claim, ClaimImage, Dataset, Evidence, Flag, LabelSpace, Prediction, Run
from store.runs import CachedResponse, RunProgress, RunStore
from store.scoring import ScoringStore
from store.search import FetchRecord, SearchStore, Step, StoredResult


class Store:
    """The database, migrated on open, with one attribute per area of the schema."""

    def __init__(self, db: Database):
        self.db = db
        apply_migrations(db)
        self.datasets = DatasetStore(db)
        self.claims = ClaimStore(db)
        self.runs = RunStore(db)
        self.annotations = AnnotationStore(db)
        self.batches = BatchStore(db)
        self.contamination = ContaminationStore(db)
        self.scoring = ScoringStore(db)
        self.judging = JudgingStore(db, self.runs)
        self.search = SearchStore(db)
        self.triage = TriageStore(db)
        self.assignments = AssignmentStore(db)
        self.articles = ArticleStore(db)
        self.curation = CurationStore(db)

    @classmethod
    def open(cls, path: str | Path) -> "Store":
        """Open (creating and migrating if needed) the database file at `path`; a
        DatabaseProblem says in one line what is wrong with it, if anything is."""
        db = open_database(path)
        try:
            return cls(db)
        except DatabaseProblem as problem:  # named as the user gave it, not as SQLite resolved it
            db.close()
            raise DatabaseProblem(path, problem.what) from None
        except sqlite3.Error as error:  # a migration met a lock or a read-only file
            db.close()
            problem = as_problem(error, path)
            if problem is None:
                raise
            raise problem from None

    def transaction(self):
        """A context in which every write commits together (or, on an exception, none does)."""
        return self.db.atomic()

    def data_version(self) -> int:
        """Changes when another connection commits (what live views poll)."""
        return data_version(self.db)

    def close(self) -> None:
        self.db.close()


__all__ = [
    "AnnotationStore", "ArticleCounts", "ArticleRecord", "ArticleStore", "CURATED_OUT", "CurationRow", "CurationStore", "DuplicateLink", "StepRecord", "step_kind", "BatchBusy", "BatchStore", "CHECKED_CLEAN", "CachedResponse", "Claim", "ClaimRow", "ClaimStore",
    "CompiledFilter", "ContaminationStore", "Dataset", "DatabaseProblem", "DatasetConflict", "DatasetStore", "Evidence", "FILTER_HELP",
    "FailureCategory", "Flag", "FlagChange", "FlagSpec", "FlagSpecError", "FilterError", "ImportCounts",
    "LabelSpace", "PageRequest", "Prediction", "Run", "ScoreGroup", "ScoreRow", "RunBatch", "RunProgress", "RunStore", "SORT_COLUMNS", "Store",
    "check_flag_model", "compile_filter", "open_database", "PERSON_PREFIX", "ClaimJudgment", "Judged",
    "JudgingStore", "ClaimImage", "FetchRecord", "SearchStore", "Step", "StoredResult", "Adjudication", "AdjudicationConflict",
    "AssignmentStore", "HistoryEntry", "ImportedLabel", "JudgeRepeat", "Label", "LabelImportCounts", "Progress",
    "QueueItem", "Round", "TriageStore", "UNATTRIBUTED",
]
