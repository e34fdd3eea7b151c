"""The reads that scoring makes: a run's items in one statement, and what changed since.

The workbench decides what the numbers mean (workbench.scoring, workbench.metrics); this
module only turns its plain values (outcome codes, field sources) into SQL.

Cost is per row, so every row does as little as it can:
- claim id, gold code and the codes of small-vocabulary fields travel as one integer
  (one group_concat); a code is a CASE over the field's values;
- a column field (domain, task) gets its values first from a loose scan of its index
  (microseconds), so it is coded in SQL too instead of shipped as text;
- predictions are read as ranges of the predictions_run_outcome index (run, status,
  verdict, claim), one range per outcome: no CASE runs per prediction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from store.flag_specs import FlagSpec
from store.records import LabelSpace

if TYPE_CHECKING:
    from sqlite3 import Connection

SEPARATOR = "\x1f"  # between string values; a value holding it sends that field down the slow path
MAX_CODED_VALUES = 32
"""A column with more distinct values than this is shipped as text (a long CASE costs more)."""
_COLUMNS = {
    "importance": "c.importance",
    "task": "c.task",
    "domain": "c.domain",
    "label": "c.label",
    # what claims cluster by (resampled together): the question or response they came from, ...
    "question": "c.question",
    "response": "c.response",
    "source": "c.source",
    "article_url": "c.article_url",
}
_INDEXED_COLUMNS = {"task", "domain"}
"""Columns with a (column, id) index: their distinct values come from a loose index scan."""


@dataclass(frozen=True)
class OutcomeCodes:
    """The number the workbench gives each outcome of a prediction (workbench.metrics
    defines them; the store writes them into SQL)."""

    verdicts: dict[str, int]
    """An ok verdict naming one of these labels (the abstain label included) -> its code."""
    abstain: int
    parse_failure: int
    """Also any ok verdict outside `verdicts`."""
    error: int
    missing: int
    """A claim of the run without a prediction."""


@dataclass(frozen=True)
class FieldSource:
    """Where a breakdown field's raw value comes from, per claim."""

    kind: str
    """column (key: importance, task, domain, label, question, response, source, article_url), attribute (key: its name), flag
    (key: a flag spec), cutoff (the claim date) or modality (whether it has an image)."""
    key: str

    def sql(self, run_id: int | None = None) -> tuple[str, list]:
        """SQL over `claims c` giving the raw value, and its parameters."""
        if self.kind == "column":
            return _COLUMNS[self.key], []
        if self.kind == "cutoff":
            return "c.claim_date", []
        if self.kind == "modality":  # 1 when the claim has an image
            return "EXISTS (SELECT 1 FROM claim_images ci WHERE ci.claim_id = c.id)", []
        if self.kind == "attribute":
            # json_array over -> keeps the JSON type (a list stays a list, "3" a string, false false).
            return "json_array(c.attributes -> ?)", [attribute_path(self.key)]
        condition, params = FlagSpec.parse(self.key).condition(run_id)
        return f"EXISTS (SELECT 1 FROM flags f WHERE f.claim_id = c.id AND {condition})", params


def attribute_path(name: str) -> str:
    """The JSON path of a top-level attribute (quoted, as the filter language does)."""
    return '$."' + name.replace('"', "") + '"'


@dataclass(frozen=True)
class CodedColumn:
    """A column whose value travels as a small code packed into the item's integer."""

    source: FieldSource
    values: tuple[str, ...]
    """The raw values the CASE knows; code i is values[i]."""
    open_ended: bool
    """False: any other value is code len(values). True: NULL is len(values) and a value
    written since the values were read is len(values) + 1."""

    @property
    def base(self) -> int:
        return len(self.values) + 1 + self.open_ended

    def case(self, place: int) -> str:
        """The code times `place` (so codes add up without nested arithmetic per row)."""
        column, known = _COLUMNS[self.source.key], len(self.values)
        if self.open_ended:
            otherwise = f"({known} + ({column} IS NOT NULL)) * {place}"
        else:
            otherwise = str(known * place)
        if not known:  # a column holding no value at all
            return f"({otherwise})"
        whens = " ".join(f"WHEN ? THEN {i * place}" for i in range(known))
        return f"(CASE {column} {whens} ELSE {otherwise} END)"


@dataclass(frozen=True)
class RunRead:
    """What the one statement returned, column groups apart (texts are group_concat lists)."""

    packed: str | None
    """Claim id times the code base plus field codes plus gold code, comma-separated."""
    strings: list[str | None]
    """One SEPARATOR-joined text per string field, in item order."""
    outcome_ids: list[str | None]
    """Claim ids per outcome range; the code of each is in `outcome_codes`."""
    outcome_codes: list[int]
    last_seen: str | None
    flagged_ids: list[str | None]
    """Claim ids carrying each flag spec."""


def gold_case(space: LabelSpace, column: str = "c.label") -> tuple[str, list]:
    """SQL CASE giving the gold code of `column` (classes, then excluded labels, then
    anything else), and its parameters."""
    names = [*space.labels, *space.excluded]
    whens = " ".join(f"WHEN ? THEN {i}" for i in range(len(names)))
    return f"(CASE {column} {whens} ELSE {len(names)} END)", list(names)


def outcome_case(codes: OutcomeCodes) -> tuple[str, list]:
    """SQL CASE giving the outcome code of a prediction row `p`, and its parameters.

    An ok verdict naming the abstain label is an abstention whatever its status says.
    """
    names = list(codes.verdicts)
    whens = " ".join(f"WHEN ? THEN {codes.verdicts[name]}" for name in names)
    sql = (
        f"(CASE p.status WHEN 'ok' THEN (CASE p.verdict {whens} ELSE {codes.parse_failure} END)"
        f" WHEN 'abstain' THEN {codes.abstain} WHEN 'parse_failure' THEN {codes.parse_failure}"
        f" ELSE {codes.error} END)"
    )
    return sql, names


def outcome_ranges(codes: OutcomeCodes) -> list[tuple[str, list, int]]:
    """(condition on `p`, parameters, outcome code) for ranges of the predictions_run_outcome
    index that together hold every prediction of a run, each range one outcome: what
    outcome_case says row by row, with no work per row but reading the claim id."""
    ranges = [("p.status = 'ok' AND p.verdict = ?", [name], code) for name, code in codes.verdicts.items()]
    ranges += [
        ("p.status = 'abstain'", [], codes.abstain),
        ("p.status = 'parse_failure'", [], codes.parse_failure),
        ("p.status = 'error'", [], codes.error),
    ]
    # Any other ok verdict (or none) is unreadable: the gaps between the known names.
    ordered = sorted(codes.verdicts)
    gaps = [("p.verdict IS NULL", []), ("p.verdict < ?", ordered[:1]), ("p.verdict > ?", ordered[-1:])]
    gaps += [("p.verdict > ? AND p.verdict < ?", [a, b]) for a, b in zip(ordered, ordered[1:])]
    return ranges + [(f"p.status = 'ok' AND {gap}", values, codes.parse_failure) for gap, values in gaps]


class ScoringStore:
    """Reads for scores: a run's items, the predictions changed since a moment, label spaces."""

    def __init__(self, db: Connection):
        self.db = db

    def label_spaces_of_run(self, run_id: int, dataset_id: int | None) -> list[tuple[str, LabelSpace]]:
        """(dataset name, label space) of the run's dataset, or of every dataset its claims
        come from when it has none (a run over several datasets), by name."""
        where, params = (
            ("d.id = ?", [dataset_id])
            if dataset_id is not None
            else (
                "d.id IN (SELECT DISTINCT c.dataset_id FROM run_claims rc JOIN claims c ON c.id = rc.claim_id"
                " WHERE rc.run_id = ?)",
                [run_id],
            )
        )
        # Straight to the rows: DatasetStore.list() counts every dataset's claims.
        rows = self.db.execute(
            "SELECT d.name, d.label_space, d.labels, d.abstain_label, d.excluded_labels FROM datasets d"
            f" WHERE {where} ORDER BY d.name",
            params,
        ).fetchall()
        return [
            (name, LabelSpace(name=space, labels=json.loads(labels), abstain=abstain, excluded=json.loads(excluded)))
            for name, space, labels, abstain, excluded in rows
        ]

    def column_values(self, key: str) -> list[str] | None:
        """An indexed column's distinct non-NULL values (None when there are more than
        MAX_CODED_VALUES, when they are not all text, or when the column has no index)."""
        if key not in _INDEXED_COLUMNS:
            return None
        column = _COLUMNS[key]
        rows = self.db.execute(
            f"WITH RECURSIVE d(v) AS (SELECT (SELECT min({column}) FROM claims c)"
            f" UNION ALL SELECT (SELECT min({column}) FROM claims c WHERE {column} > d.v)"
            f" FROM d WHERE d.v IS NOT NULL LIMIT {MAX_CODED_VALUES + 2})"
            " SELECT v FROM d WHERE v IS NOT NULL"
        ).fetchall()
        raws = [raw for (raw,) in rows]
        if len(raws) > MAX_CODED_VALUES or not all(isinstance(raw, str) for raw in raws):
            return None
        return raws

    def read_run(
        self,
        run_id: int,
        space: LabelSpace,
        codes: OutcomeCodes,
        coded: list[CodedColumn],
        strings: list[FieldSource],
        flag_specs: list[str],
        with_last_seen: bool,
    ) -> RunRead:
        """Every item of a run in one statement (one snapshot).

        The packed integer per item is claim id, then each coded column's code (the last
        varying fastest), then the gold code (gold_case), in mixed radix.
        """
        sql, params, outcome_codes = _run_statement(run_id, space, codes, coded, strings, flag_specs, with_last_seen)
        row = self.db.execute(sql, params).fetchone()
        after = 1 + len(strings) + len(outcome_codes)
        return RunRead(
            row[0],
            list(row[1 : 1 + len(strings)]),
            list(row[1 + len(strings) : after]),
            outcome_codes,
            row[after] if with_last_seen else None,
            list(row[after + with_last_seen :]),
        )

    def read_claim_side(
        self, run_id: int, space: LabelSpace, coded: list[CodedColumn], strings: list[FieldSource]
    ) -> RunRead:
        """Only the claims' side of a run's items (packed ids, field codes and gold; string
        fields): read once for several runs over the same claims."""
        sql, params, _ = _run_statement(run_id, space, None, coded, strings, [], False, run_side=False)
        row = self.db.execute(sql, params).fetchone()
        return RunRead(row[0], list(row[1:]), [], [], None, [])

    def read_run_side(self, run_id: int, codes: OutcomeCodes, flag_specs: list[str], with_last_seen: bool) -> RunRead:
        """Only the run's side (no claims joined): outcomes, flags, newest answer, and in
        `packed` the number of claims in the run."""
        select, params, outcome_codes = _run_side(run_id, codes, flag_specs, with_last_seen)
        sql = f"SELECT (SELECT count(*) FROM run_claims WHERE run_id = ?), {', '.join(select)}"
        row = self.db.execute(sql, [run_id, *params]).fetchone()
        after = 1 + len(outcome_codes)
        return RunRead(
            row[0],
            [],
            list(row[1:after]),
            outcome_codes,
            row[after] if with_last_seen else None,
            list(row[after + with_last_seen :]),
        )

    def run_claim_ids(self, run_id: int) -> str | None:
        """The run's claim ids, ascending, comma-separated."""
        return self.db.execute("SELECT group_concat(claim_id) FROM run_claims WHERE run_id = ?", [run_id]).fetchone()[0]

    def raw_values(self, run_id: int, source: FieldSource) -> list:
        """One field's raw value for each of the run's claims, in claim id order ('' for NULL)."""
        expr, params = source.sql()
        rows = self.db.execute(
            f"SELECT {expr} FROM run_claims rc JOIN claims c ON c.id = rc.claim_id"
            " WHERE rc.run_id = ? ORDER BY rc.claim_id",
            params + [run_id],
        )
        return ["" if value is None else value for (value,) in rows]

    def outcomes_since(self, run_id: int, codes: OutcomeCodes, since: str | None) -> list[tuple[int, int, str]]:
        """(claim id, outcome code, created_at) of the run's predictions written at or after
        `since` (every one when None)."""
        outcome_sql, params = outcome_case(codes)
        sql = f"SELECT p.claim_id, {outcome_sql}, p.created_at FROM predictions p"
        params = [*params, run_id]
        if since:  # named: without statistics the planner may take another index of run_id
            sql += " INDEXED BY predictions_run_created"
        sql += " WHERE p.run_id = ?"
        if since:
            sql += " AND p.created_at >= ?"
            params.append(since)
        return self.db.execute(sql, params).fetchall()

    def judge_progress(self, run_ids: list[int]) -> list[tuple[int, int]]:
        """(judge run id, judgments recorded) for the judge runs of these runs."""
        if not run_ids:
            return []
        marks = ", ".join("?" * len(run_ids))
        return self.db.execute(
            "SELECT r.id, (SELECT count(*) FROM predictions p WHERE p.run_id = r.id) FROM runs r"
            f" WHERE r.kind = 'judge' AND r.target_run_id IN ({marks}) ORDER BY r.id",
            run_ids,
        ).fetchall()

    def flag_signature(self, kind: str) -> tuple:
        """Changes whenever a flag of `kind` is added or removed."""
        row = self.db.execute(
            "SELECT count(*), ifnull(max(id), 0), ifnull(max(created_at), '') FROM flags WHERE kind = ? COLLATE NOCASE",
            [kind],
        ).fetchone()
        return tuple(row)


def _run_statement(
    run_id: int,
    space: LabelSpace,
    codes: OutcomeCodes | None,
    coded: list[CodedColumn],
    strings: list[FieldSource],
    flag_specs: list[str],
    with_last_seen: bool,
    run_side: bool = True,
) -> tuple[str, list, list[int]]:
    """The statement, its parameters and the outcome code of each outcome column."""
    gold_sql, params = gold_case(space)
    terms, place = [gold_sql], len(space.labels) + len(space.excluded) + 1
    for column in reversed(coded):  # the last field varies fastest, above the gold code
        terms.append(column.case(place))
        params = [*column.values, *params]
        place *= column.base
    select = [f"group_concat(rc.claim_id * {place} + {' + '.join(reversed(terms))})"]
    for source in strings:
        expr, expr_params = source.sql()
        # The separator is a literal: SQLite evaluates a bound one on every row.
        select.append(f"group_concat(ifnull({expr}, ''), '{SEPARATOR}')")
        params += expr_params
    side, side_params, outcome_codes = (
        _run_side(run_id, codes, flag_specs, with_last_seen) if run_side else ([], [], [])
    )
    sql = (
        f"SELECT {', '.join(select + side)} FROM run_claims rc JOIN claims c ON c.id = rc.claim_id WHERE rc.run_id = ?"
    )
    return sql, params + side_params + [run_id], outcome_codes


def _run_side(
    run_id: int, codes: OutcomeCodes, flag_specs: list[str], with_last_seen: bool
) -> tuple[list[str], list, list[int]]:
    """The subqueries of a run's own side: claim ids per outcome range, the newest answer,
    claim ids per flag spec."""
    select, params, outcome_codes = [], [], []
    for condition, values, code in outcome_ranges(codes):
        select.append(f"(SELECT group_concat(p.claim_id) FROM predictions p WHERE p.run_id = ? AND {condition})")
        params += [run_id, *values]
        outcome_codes.append(code)
    if with_last_seen:
        # The index named: another index of run_id would make max() visit every prediction.
        select.append(
            "(SELECT max(p.created_at) FROM predictions p INDEXED BY predictions_run_created WHERE p.run_id = ?)"
        )
        params.append(run_id)
    for spec in flag_specs:
        # No DISTINCT: a claim flagged twice is listed twice, which the decoder does not mind.
        condition, flag_params = FlagSpec.parse(spec).condition(run_id)
        select.append(f"(SELECT group_concat(f.claim_id) FROM flags f WHERE {condition})")
        params += flag_params
    return select, params, outcome_codes


__all__ = [
    "MAX_CODED_VALUES",
    "SEPARATOR",
    "CodedColumn",
    "FieldSource",
    "OutcomeCodes",
    "RunRead",
    "ScoringStore",
    "attribute_path",
    "gold_case",
    "outcome_case",
    "outcome_ranges",
]
