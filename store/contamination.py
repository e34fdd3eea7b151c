"""Contamination scores (table contamination_scores, migration m004) and the pipeline's
flags as the contamination analyses read them. Every write is one transaction."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import now_iso
from store.scoring import FieldSource

if TYPE_CHECKING:
    from sqlite3 import Connection

_CHUNK = 500
"""Claim ids per IN (...) list (SQLite allows 32,766 variables; smaller lists plan well)."""
_COLUMNS = [
    "claim_id",
    "target_model",
    "extractor_model",
    "metric",
    "score",
    "scorable",
    "n_oracle",
    "n_generated",
    "pairs",
    "article_run_id",
    "oracle_run_id",
    "generated_run_id",
    "created_at",
]
_UPSERT = (
    f"INSERT INTO contamination_scores ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
    " ON CONFLICT (claim_id, target_model, extractor_model, metric) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[4:])
)


@dataclass
class ScoreRow:
    """One claim's stored contamination score for a target model, extractor and metric."""

    claim_id: int
    target_model: str
    extractor_model: str
    metric: str
    score: float | None
    scorable: bool
    n_oracle: int
    n_generated: int
    pairs: list[list] = field(default_factory=list)
    """[[oracle_index, generated_index, f], ...]"""
    article_run_id: int | None = None
    oracle_run_id: int | None = None
    """None when the oracle evidence is the claim's question-answer pairs."""
    generated_run_id: int | None = None
    created_at: str | None = None
    external_id: str | None = None
    """Filled in by reads (the claim's id in its benchmark)."""


@dataclass
class ScoreGroup:
    """All scores of one target model, extractor and metric."""

    target_model: str
    extractor_model: str
    metric: str
    claims: int
    scorable: int
    mean: float | None
    """S: the mean claim score over scorable claims."""
    latest: str


class ContaminationStore:
    """Stored claim scores per (target model, extractor, metric), and pipeline flag reads."""

    def __init__(self, db: Connection):
        self.db = db

    def save_scores(self, rows: list[ScoreRow]) -> None:
        """Insert or replace the rows (one per claim, target, extractor, metric) in one transaction."""
        stamp = now_iso()
        values = [
            [
                r.claim_id,
                r.target_model,
                r.extractor_model,
                r.metric,
                r.score,
                int(r.scorable),
                r.n_oracle,
                r.n_generated,
                json.dumps(r.pairs),
                r.article_run_id,
                r.oracle_run_id,
                r.generated_run_id,
                stamp,
            ]
            for r in rows
        ]
        with atomic(self.db):
            self.db.executemany(_UPSERT, values)

    def score_rows(
        self,
        target: str | None = None,
        metric: str | None = None,
        extractor: str | None = None,
        claim_id: int | None = None,
        scorable_only: bool = False,
        limit: int | None = None,
    ) -> list[ScoreRow]:
        """Stored scores, highest first (unscorable last), narrowed by the given fields."""
        where, params = ["1"], []
        for column, value in (
            ("s.target_model", target),
            ("s.metric", metric),
            ("s.extractor_model", extractor),
            ("s.claim_id", claim_id),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if scorable_only:
            where.append("s.scorable = 1")
        sql = (
            f"SELECT s.*, c.external_id FROM contamination_scores s JOIN claims c ON c.id = s.claim_id"
            f" WHERE {' AND '.join(where)} ORDER BY s.scorable DESC, s.score DESC, s.claim_id"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cursor = self.db.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [_row(dict(zip(names, values))) for values in cursor]

    def score_groups(self, target: str | None = None, metric: str | None = None) -> list[ScoreGroup]:
        """One line per (target, extractor, metric) with stored scores, the newest first."""
        where, params = ["1"], []
        for column, value in (("target_model", target), ("metric", metric)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        rows = self.db.execute(
            "SELECT target_model, extractor_model, metric, count(*), sum(scorable),"
            " avg(CASE WHEN scorable THEN score END), max(created_at) FROM contamination_scores"
            f" WHERE {' AND '.join(where)} GROUP BY target_model, extractor_model, metric"
            " ORDER BY max(created_at) DESC",
            params,
        )
        return [ScoreGroup(*row) for row in rows]

    def score_values(
        self, target: str, metric: str, extractor: str | None = None, include_unscorable: bool = False
    ) -> dict[int, float | None]:
        """claim id -> s for one target and metric (one extractor); unscorable claims (as
        None) only when asked for."""
        sql = "SELECT claim_id, score FROM contamination_scores WHERE target_model = ? AND metric = ?"
        params = [target, metric]
        if not include_unscorable:
            sql += " AND scorable = 1"
        if extractor is not None:
            sql += " AND extractor_model = ?"
            params.append(extractor)
        return dict(self.db.execute(sql, params).fetchall())

    def pipeline_threshold(self, kind: str, model: str, metric: str) -> float | None:
        """The threshold of the newest pipeline flag of this kind, model and metric."""
        row = self.db.execute(
            "SELECT threshold FROM flags WHERE kind = ? AND source = 'pipeline' AND model = ? AND metric = ?"
            " AND threshold IS NOT NULL ORDER BY id DESC LIMIT 1",
            [kind, model, metric],
        ).fetchone()
        return float(row[0]) if row else None

    def pipeline_flag_scores(self, kind: str, model: str, metric: str) -> dict[int, float | None]:
        """claim id -> score of the pipeline flags of one kind, model and metric."""
        rows = self.db.execute(
            "SELECT claim_id, score FROM flags WHERE kind = ? AND source = 'pipeline' AND model = ? AND metric = ?",
            [kind, model, metric],
        )
        return dict(rows.fetchall())

    def combined_flag_rows(self, kind: str, joiner: str) -> list[tuple[str, str, int]]:
        """(model, metric, claim id) of pipeline flags whose model or metric joins several."""
        return self.db.execute(
            "SELECT model, metric, claim_id FROM flags WHERE kind = ? AND source = 'pipeline'"
            " AND (instr(model, ?) OR instr(metric, ?)) ORDER BY model, metric",
            [kind, joiner, joiner],
        ).fetchall()

    def oracle_sources(self, claim_ids: list[int]) -> tuple[set[int], set[int]]:
        """(claims with an oracle article text, their own or fetched, claims with question-answer evidence)."""
        articles, qa = set(), set()
        for start in range(0, len(claim_ids), _CHUNK):
            chunk = claim_ids[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            articles |= {
                r[0]
                for r in self.db.execute(
                    f"SELECT c.id FROM claims c WHERE c.id IN ({marks}) AND (trim(coalesce(c.article_text, '')) != ''"
                    " OR EXISTS (SELECT 1 FROM articles a WHERE a.url = c.article_url AND a.status = 'fetched'"
                    " AND trim(coalesce(a.text, '')) != ''))",
                    chunk,
                )
            }
            qa |= {
                r[0]
                for r in self.db.execute(
                    f"SELECT DISTINCT claim_id FROM evidence WHERE kind = 'qa' AND claim_id IN ({marks})", chunk
                )
            }
        return articles, qa

    def scored_claim_values(self, source: FieldSource) -> dict[int, object]:
        """claim id -> a breakdown field's raw value, for every claim with a stored score."""
        sql, params = source.sql()
        rows = self.db.execute(
            f"SELECT c.id, {sql} FROM claims c WHERE c.id IN (SELECT DISTINCT claim_id FROM contamination_scores)",
            params,
        )
        return dict(rows.fetchall())


def _row(values: dict) -> ScoreRow:
    values.pop("id", None)
    values["pairs"] = json.loads(values["pairs"] or "[]")
    values["scorable"] = bool(values["scorable"])
    return ScoreRow(**values)
