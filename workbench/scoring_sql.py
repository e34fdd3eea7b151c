"""The one statement that reads a run's items (scoring_items decodes what it returns).

Cost is per row, so every row does as little as it can:
- claim id, gold code and the codes of small-vocabulary fields travel as one integer
  (one group_concat); a code is a CASE over the field's values;
- a column field (domain, task) gets its values first from a loose scan of its index
  (microseconds), so it is coded in SQL too instead of shipped as text;
- predictions are read as ranges of the predictions_run_outcome index (run, status,
  verdict, claim), one range per outcome: no CASE runs per prediction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store import FlagSpec, LabelSpace, Store
from workbench.metrics import NO_VALUE, OutcomeCoder
from workbench.scoring_fields import SliceField

SEPARATOR = "\x1f"  # between string values; a value holding it sends that field down the slow path
_MAX_VALUES = 32
"""A column with more distinct values than this is shipped as text (a long CASE costs more)."""
_MAX_PACKED = 1 << 24
"""Claim id times every code base stays far below 2**63 (SQLite would turn it into a REAL)."""
_INDEXED_COLUMNS = {"c.task", "c.domain"}
"""Columns with a (column, id) index: their distinct values come from a loose index scan."""


@dataclass(frozen=True)
class CodedField:
    """A field whose value comes back as a small code packed into the item's integer."""

    field: SliceField
    values: tuple[str, ...]
    """The raw values the CASE knows; code i is values[i]."""
    names: tuple[str | None, ...]
    """The slice value of each code; None marks a value the vocabulary did not know."""

    @property
    def base(self) -> int:
        return len(self.names)

    def case(self, place: int) -> str:
        """The code times `place` (so codes add up without nested arithmetic per row)."""
        column, known = self.field.key, len(self.values)
        if self.names[-1] is None:  # NULL -> known, a value written since the scan -> known + 1
            otherwise = f"({known} + ({column} IS NOT NULL)) * {place}"
        else:
            otherwise = str(known * place)
        if not known:  # a column holding no value at all
            return f"({otherwise})"
        whens = " ".join(f"WHEN ? THEN {i * place}" for i in range(known))
        return f"(CASE {column} {whens} ELSE {otherwise} END)"


def gold_case(space: LabelSpace, column: str = "c.label") -> tuple[str, list]:
    """SQL CASE giving the gold code of `column`, and its parameters."""
    names = [*space.labels, *space.excluded]
    whens = " ".join(f"WHEN ? THEN {i}" for i in range(len(names)))
    return f"(CASE {column} {whens} ELSE {len(names)} END)", list(names)


def outcome_case(space: LabelSpace) -> tuple[str, list]:
    """SQL CASE giving the outcome code of a prediction row `p`, and its parameters.

    An ok verdict outside the label space, or an abstention where the dataset has no
    abstain label, has no column of its own: it counts as a parse failure (unreadable).
    """
    coder = OutcomeCoder(space.labels, space.abstain)
    k, m = len(coder.classes), len(coder.columns)
    parse_failure, error = m - 1, m
    abstain = k if space.abstain is not None else parse_failure
    names = list(space.labels) + ([space.abstain] if space.abstain is not None else [])
    # A verdict naming the abstain label is an abstention whatever its status says.
    whens = " ".join(f"WHEN ? THEN {i}" for i in range(len(names)))
    sql = (
        f"(CASE p.status WHEN 'ok' THEN (CASE p.verdict {whens} ELSE {parse_failure} END)"
        f" WHEN 'abstain' THEN {abstain} WHEN 'parse_failure' THEN {parse_failure}"
        f" ELSE {error} END)"
    )
    return sql, names


def coded_fields(store: Store, fields: Sequence[SliceField], gold_base: int) -> list[CodedField]:
    """The fields that can travel as codes: fixed vocabularies, then small indexed columns."""
    coded, packed = [], gold_base
    for slice_field in fields:
        found = _coded(store, slice_field)
        if found is not None and packed * found.base <= _MAX_PACKED:
            coded.append(found)
            packed *= found.base
    return coded


def _coded(store: Store, slice_field: SliceField) -> CodedField | None:
    if slice_field.vocabulary:  # the schema allows nothing else: any other value is NO_VALUE
        return CodedField(slice_field, slice_field.vocabulary, (*slice_field.vocabulary, NO_VALUE))
    if slice_field.kind != "column" or slice_field.key not in _INDEXED_COLUMNS:
        return None
    raws = _distinct_values(store, slice_field.key)
    if raws is None:
        return None
    names = (*(slice_field.values(raw or None) for raw in raws), NO_VALUE, None)
    return CodedField(slice_field, tuple(raws), names)


def _distinct_values(store: Store, column: str) -> list[str] | None:
    """The column's distinct non-NULL values (None when there are too many, or not text)."""
    rows = store.db.execute(
        f"WITH RECURSIVE d(v) AS (SELECT (SELECT min({column}) FROM claims c)"
        f" UNION ALL SELECT (SELECT min({column}) FROM claims c WHERE {column} > d.v)"
        f" FROM d WHERE d.v IS NOT NULL LIMIT {_MAX_VALUES + 2})"
        " SELECT v FROM d WHERE v IS NOT NULL"
    ).fetchall()
    raws = [raw for (raw,) in rows]
    if len(raws) > _MAX_VALUES or not all(isinstance(raw, str) for raw in raws):
        return None
    return raws


def outcome_base(space: LabelSpace) -> int:
    """Outcome codes run 0 .. base-1 (the confusion columns, an API error, missing)."""
    return len(OutcomeCoder(space.labels, space.abstain).columns) + 2


def outcome_ranges(space: LabelSpace) -> list[tuple[str, list, int]]:
    """(condition on `p`, parameters, outcome code) for ranges of the predictions_run_outcome
    index that together hold every prediction of a run, each range one outcome: what
    outcome_case says row by row, with no work per row but reading the claim id."""
    coder = OutcomeCoder(space.labels, space.abstain)
    k, m = len(coder.classes), len(coder.columns)
    parse_failure, error = m - 1, m
    # A verdict naming the abstain label is an abstention whatever its status says.
    names = {name: i for i, name in enumerate(space.labels)}
    if space.abstain is not None:
        names[space.abstain] = k
    ranges = [("p.status = 'ok' AND p.verdict = ?", [name], code) for name, code in names.items()]
    ranges += [("p.status = 'abstain'", [], k if space.abstain is not None else parse_failure),
               ("p.status = 'parse_failure'", [], parse_failure), ("p.status = 'error'", [], error)]
    # Any other ok verdict (or none) is unreadable: the gaps between the known names.
    ordered = sorted(names)
    gaps = [("p.verdict IS NULL", []), ("p.verdict < ?", ordered[:1]), ("p.verdict > ?", ordered[-1:])]
    gaps += [("p.verdict > ? AND p.verdict < ?", [a, b]) for a, b in zip(ordered, ordered[1:])]
    return ranges + [(f"p.status = 'ok' AND {gap}", values, parse_failure) for gap, values in gaps]


def run_statement(run_id: int, space: LabelSpace, coded: list[CodedField],
                  string_fields: list[SliceField], kinds: list[str], with_last_seen: bool
                  ) -> tuple[str, list, list[int]]:
    """The one statement (one snapshot) and the outcome code of each outcome column.

    Columns: claim ids packed with gold and field codes; one text per string field; the
    claim ids of each outcome range; the newest answer's created_at if asked (live views
    poll from it); the flagged claim ids per flag spec (contaminated, contaminated@MODEL, ...@run).
    """
    gold_sql, params = gold_case(space)
    terms, place = [gold_sql], len(space.labels) + len(space.excluded) + 1
    for found in reversed(coded):  # the last field varies fastest, above the gold code
        terms.append(found.case(place))
        params = [*found.values, *params]
        place *= found.base
    select = [f"group_concat(rc.claim_id * {place} + {' + '.join(reversed(terms))})"]
    for slice_field in string_fields:
        expr, expr_params = slice_field.sql()
        # The separator is a literal: SQLite evaluates a bound one on every row.
        select.append(f"group_concat(ifnull({expr}, ''), '{SEPARATOR}')")
        params += expr_params
    codes = []
    for condition, values, code in outcome_ranges(space):
        select.append(f"(SELECT group_concat(p.claim_id) FROM predictions p WHERE p.run_id = ? AND {condition})")
        params += [run_id, *values]
        codes.append(code)
    if with_last_seen:
        select.append("(SELECT max(p.created_at) FROM predictions p WHERE p.run_id = ?)")
        params.append(run_id)
    for kind in kinds:
        # No DISTINCT: a claim flagged twice is listed twice, which the decoder does not mind.
        condition, flag_params = FlagSpec.parse(kind).condition(run_id)
        select.append(f"(SELECT group_concat(f.claim_id) FROM flags f WHERE {condition})")
        params += flag_params
    sql = (f"SELECT {', '.join(select)} FROM run_claims rc JOIN claims c ON c.id = rc.claim_id"
           " WHERE rc.run_id = ?")
    return sql, params + [run_id], codes


__all__ = ["SEPARATOR", "CodedField", "coded_fields", "gold_case", "outcome_base", "outcome_case",
           "outcome_ranges", "run_statement"]
