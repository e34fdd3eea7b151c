"""Reading claims: pages under a filter (never the whole table), counts, one claim whole."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from store.claim_images import ClaimImages
from store.connection import rows_as_dicts
from store.importance import importance_rank

if TYPE_CHECKING:
    from sqlite3 import Connection

    from store.claim_records import Claim, Evidence
    from store.filter_outcome import CompiledFilter

# Sort keys a user can pick, each backed by an index on (column, id); importance by its
# meaning, Main < Sub < Irrelevant (m019 indexes that expression).
SORT_COLUMNS = {
    "id": "c.id",
    "label": "c.label",
    "importance": importance_rank("c.importance"),
    "task": "c.task",
    "domain": "c.domain",
    "date": "c.claim_date",
}
SNIPPET_CHARS = 240

_ROW_COLUMNS = f"""
    c.id, c.external_id, d.name AS dataset, c.label, c.importance, c.task, c.domain,
    c.claim_date, substr(c.text, 1, {SNIPPET_CHARS}) AS text,
    (SELECT group_concat(DISTINCT f.kind) FROM flags f WHERE f.claim_id = c.id) AS flags,
    EXISTS (SELECT 1 FROM claim_images ci WHERE ci.claim_id = c.id) AS has_image
"""


@dataclass
class ClaimRow:
    """One line of the claims browser."""

    id: int
    external_id: str
    dataset: str
    label: str | None
    importance: str | None
    task: str | None
    domain: str | None
    claim_date: str | None
    text: str
    flags: list[str] = field(default_factory=list)
    verdicts: dict[int, tuple[str, str | None]] = field(default_factory=dict)
    """run id -> (status, verdict) for the runs the caller asked about."""
    sort_value: Any = None
    has_image: bool = False


@dataclass
class PageRequest:
    """Which page of claims to read: keyset paging in either direction."""

    filter: str = ""
    sort: str = "id"
    descending: bool = False
    after: tuple[Any, int] | None = None
    """(sort value, id) of the last row already shown: read the rows after it."""
    before: tuple[Any, int] | None = None
    """(sort value, id) of the first row shown: read the rows before it."""
    limit: int = 100
    run_ids: list[int] = field(default_factory=list)


class ClaimStore(ClaimImages):
    """Queries over claims and their evidence."""

    def __init__(self, db: Connection):
        self.db = db

    def compile(self, filter_text: str) -> CompiledFilter:
        """Compile a filter against this database (raises FilterError)."""
        if filter_text == "":  # no filter: the compiler's answer without importing it
            from store.filter_outcome import CompiledFilter

            return CompiledFilter()
        from store.filters import compile_filter  # here: `show` and resolving a claim need no filters

        return compile_filter(filter_text, self.db)

    def count(self, filter_text: str = "") -> int:
        """How many claims match the filter."""
        compiled = self.compile(filter_text)
        if compiled.is_empty:
            return self.db.execute("SELECT count(*) FROM claims").fetchone()[0]
        sql = f"SELECT count(*) FROM claims c WHERE {compiled.where}"
        return self.db.execute(sql, compiled.params).fetchone()[0]

    def counts_by_dataset(self, filter_text: str = "") -> dict[str, int]:
        """How many claims match the filter in each dataset that has any, by dataset name
        (one pass: the total and the datasets together)."""
        compiled = self.compile(filter_text)
        rows = self.db.execute(
            f"SELECT d.name, n FROM (SELECT c.dataset_id, count(*) AS n FROM claims c WHERE {compiled.where}"
            " GROUP BY c.dataset_id) JOIN datasets d ON d.id = dataset_id ORDER BY d.name",
            compiled.params,
        )
        return dict(rows.fetchall())

    def page(self, request: PageRequest) -> list[ClaimRow]:
        """A page of rows in display order, from SQLite, using the sort index."""
        column = SORT_COLUMNS.get(request.sort)
        if column is None:
            raise ValueError(f"cannot sort by {request.sort!r}; choose from {', '.join(SORT_COLUMNS)}")
        compiled = self.compile(request.filter)
        clauses, params = [compiled.where], list(compiled.params)
        backwards = request.before is not None
        # Reading backwards is reading forwards in the opposite order, then reversing.
        descending = request.descending != backwards
        key = request.before if backwards else request.after
        if key is not None:
            sql, key_params = _keyset_clause(column, key, descending)
            clauses.append(sql)
            params.extend(key_params)
        direction = "DESC" if descending else "ASC"
        verdict_columns, verdict_params = _verdict_columns(request.run_ids)
        sql = (
            f"SELECT {_ROW_COLUMNS}, {column} AS sort_value{verdict_columns}"
            f" FROM claims c JOIN datasets d ON d.id = c.dataset_id"
            f" WHERE {' AND '.join(clauses)}"
            f" ORDER BY {column} {direction}, c.id {direction} LIMIT ?"
        )
        cursor = self.db.execute(sql, verdict_params + params + [request.limit])
        rows = [_row(cursor.description, values, request.run_ids) for values in cursor]
        return rows[::-1] if backwards else rows

    def last_page(self, request: PageRequest) -> list[ClaimRow]:
        """The final page (for "jump to end"), without counting or offsetting."""
        flipped = PageRequest(**{**request.__dict__, "descending": not request.descending})
        flipped.after = flipped.before = None
        return self.page(flipped)[::-1]

    def page_from(self, request: PageRequest, claim_id: int) -> list[ClaimRow]:
        """The page starting at a claim (for "jump to id"); empty if it does not match."""
        column = SORT_COLUMNS[request.sort]
        row = self.db.execute(f"SELECT {column} FROM claims c WHERE c.id = ?", [claim_id]).fetchone()
        if row is None:
            return []
        key = (row[0], claim_id)
        start = self.page(PageRequest(**{**request.__dict__, "after": None, "before": key, "limit": 1}))
        if start:
            key = (start[-1].sort_value, start[-1].id)
            return self.page(PageRequest(**{**request.__dict__, "after": key, "before": None}))
        return self.page(PageRequest(**{**request.__dict__, "after": None, "before": None}))

    def ids_and_labels(self, claim_ids: list[int]) -> dict[int, tuple[str, str | None]]:
        """Each claim's (external id, gold label): what a listing of answers shows beside them,
        without reading every claim whole."""
        found: dict[int, tuple[str, str | None]] = {}
        unique = list(dict.fromkeys(claim_ids))
        for start in range(0, len(unique), 500):  # within SQLite's limit on parameters
            chunk = unique[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT id, external_id, label FROM claims WHERE id IN ({marks})", chunk).fetchall()
            found.update((claim_id, (external_id, label)) for claim_id, external_id, label in rows)
        return found

    def get(self, claim_id: int) -> Claim | None:
        """One claim with all its evidence, or None."""
        import json  # here, as the records: the claims listing reads neither

        from store.claim_records import Claim

        cursor = self.db.execute(
            "SELECT c.*, d.name AS dataset FROM claims c JOIN datasets d ON d.id = c.dataset_id WHERE c.id = ?",
            [claim_id],
        )
        row = cursor.fetchone()
        if row is None:
            return None
        values = dict(zip([d[0] for d in cursor.description], row))
        values["attributes"] = json.loads(values["attributes"] or "{}")
        for unwanted in ("dataset_id", "content_hash"):
            values.pop(unwanted)
        values["evidence"] = self.evidence(claim_id)
        values["images"] = self.images(claim_id)
        return Claim(**values)

    def evidence(self, claim_id: int) -> list[Evidence]:
        """The claim's evidence in rank order."""
        import json

        from store.claim_records import Evidence

        items = []
        for row in rows_as_dicts(
            self.db.execute("SELECT * FROM evidence WHERE claim_id = ? ORDER BY rank, id", [claim_id])
        ):
            row.pop("id"), row.pop("claim_id")
            row["attributes"] = json.loads(row["attributes"] or "{}")
            row["is_cited"] = bool(row["is_cited"])
            items.append(Evidence(**row))
        return items

    def resolve(self, reference: str) -> int | None:
        """A claim id from what a user types: `42` or `DATASET:EXTERNAL_ID`."""
        reference = reference.strip()
        if reference.isdigit():
            row = self.db.execute("SELECT id FROM claims WHERE id = ?", [int(reference)]).fetchone()
            if row:
                return row[0]
        if ":" in reference:
            dataset, external_id = reference.split(":", 1)
            row = self.db.execute(
                "SELECT c.id FROM claims c JOIN datasets d ON d.id = c.dataset_id"
                " WHERE d.name = ? AND c.external_id = ?",
                [dataset, external_id],
            ).fetchone()
            if row:
                return row[0]
        row = self.db.execute("SELECT id FROM claims WHERE external_id = ? ORDER BY id LIMIT 2", [reference]).fetchall()
        return row[0][0] if len(row) == 1 else None

    def ids(self, filter_text: str, limit: int | None = None, dataset: str | None = None) -> list[int]:
        """Claim ids matching a filter (and a dataset), in id order (a run's subset)."""
        compiled = self.compile(filter_text)
        sql = f"SELECT c.id FROM claims c WHERE {compiled.where}"
        params = list(compiled.params)
        if dataset is not None:
            sql += " AND c.dataset_id = (SELECT id FROM datasets WHERE name = ?)"
            params.append(dataset)
        sql += " ORDER BY c.id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [r[0] for r in self.db.execute(sql, params)]

    def existing(self, claim_ids: list[int]) -> set[int]:
        """Which of these claim ids exist."""
        return {r[0] for r in self._over_selection(claim_ids, "SELECT c.id FROM claims c {join}")}

    def dataset_ids(self, claim_ids: list[int]) -> set[int]:
        """The datasets these claims belong to."""
        return {r[0] for r in self._over_selection(claim_ids, "SELECT DISTINCT c.dataset_id FROM claims c {join}")}

    def matching(self, claim_ids: list[int], filter_text: str) -> set[int]:
        """Which of these claims match a filter (without reading every match in the database)."""
        compiled = self.compile(filter_text)
        return {
            r[0]
            for r in self._over_selection(
                claim_ids, "SELECT c.id FROM claims c {join} WHERE " + compiled.where, compiled.params
            )
        }

    def ids_by_external_id(self, dataset_id: int) -> dict[str, int]:
        """A dataset's claims: external id -> claim id."""
        return dict(self.db.execute("SELECT external_id, id FROM claims WHERE dataset_id = ?", [dataset_id]))

    def ids_by_text(self, dataset_id: int) -> dict[str, list[int]]:
        """A dataset's claims: claim text -> the ids of the claims with exactly that text."""
        found: dict[str, list[int]] = {}
        for text, claim_id in self.db.execute(
            "SELECT text, id FROM claims WHERE dataset_id = ? ORDER BY id", [dataset_id]
        ):
            found.setdefault(text, []).append(claim_id)
        return found

    def datasets_matching(self, filter_text: str, limit: int | None = None) -> dict[int, str]:
        """The datasets the matching claims come from, id -> name by name (at most `limit`).

        Each dataset is asked whether it has one matching claim, which stops at the first
        instead of visiting every match."""
        compiled = self.compile(filter_text)
        sql = (
            f"SELECT d.id, d.name FROM datasets d WHERE EXISTS (SELECT 1 FROM claims c"
            f" WHERE c.dataset_id = d.id AND {compiled.where}) ORDER BY d.name"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return dict(self.db.execute(sql, compiled.params).fetchall())

    def attribute_names(self, filter_text: str) -> list[str]:
        """Every attribute name any matching claim has, sorted."""
        compiled = self.compile(filter_text)
        rows = self.db.execute(
            f"SELECT DISTINCT a.key FROM claims c, json_each(c.attributes) a WHERE {compiled.where} ORDER BY a.key",
            compiled.params,
        )
        return [key for (key,) in rows]

    def reference(self, claim_id: int) -> tuple[str, str | None, str] | None:
        """(external id, gold label, dataset name) of one claim, without its evidence."""
        return self.db.execute(
            "SELECT c.external_id, c.label, d.name FROM claims c JOIN datasets d ON d.id = c.dataset_id WHERE c.id = ?",
            [claim_id],
        ).fetchone()

    def content_hash(self, claim_ids: list[int]) -> str:
        """SHA-256 of what these claims hold that a model or a score reads (dataset, id in
        the benchmark, text, gold label, context, dates, importance, evidence), in id order:
        two runs with one hash were made on the same data."""
        import hashlib
        import json

        digest = hashlib.sha256()
        rows = self._over_selection(
            claim_ids,
            (
                "SELECT c.id, c.dataset_id, c.external_id, c.text, c.label, c.question, c.response,"
                " c.reference_time, c.claim_date, c.importance,"
                " (SELECT group_concat(item, char(30)) FROM (SELECT json_array(e.kind, e.url, e.title, e.text,"
                "  e.passage, e.question) AS item FROM evidence e WHERE e.claim_id = c.id"
                "  ORDER BY e.kind, e.rank, e.id))"
                " FROM claims c {join} ORDER BY c.id"
            ),
        )
        for row in rows:
            digest.update(json.dumps(row[1:], ensure_ascii=False).encode())
            digest.update(b"\n")
        return digest.hexdigest()

    def _over_selection(self, claim_ids: list[int], sql: str, params: list | None = None) -> list[tuple]:
        """Run `sql` over just these claims, held in a temporary table (any number of ids)."""
        conn = self.db
        caller_transaction = conn.in_transaction
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS selected_claims (id INTEGER PRIMARY KEY)")
        conn.executemany("INSERT OR IGNORE INTO temp.selected_claims (id) VALUES (?)", ((i,) for i in claim_ids))
        try:
            join = "JOIN temp.selected_claims s ON s.id = c.id"
            return conn.execute(sql.format(join=join), params or []).fetchall()
        finally:
            conn.execute("DELETE FROM temp.selected_claims")
            if not caller_transaction:  # close the implicit transaction the temp writes opened
                conn.commit()


def _keyset_clause(column: str, key: tuple[Any, int], descending: bool) -> tuple[str, list]:
    """Rows strictly after `key` in (column, id) order; SQLite sorts NULL first."""
    value, claim_id = key
    if not descending:
        if value is None:
            return f"(({column} IS NULL AND c.id > ?) OR {column} IS NOT NULL)", [claim_id]
        return f"({column} > ? OR ({column} = ? AND c.id > ?))", [value, value, claim_id]
    if value is None:
        return f"({column} IS NULL AND c.id < ?)", [claim_id]
    return f"({column} < ? OR {column} IS NULL OR ({column} = ? AND c.id < ?))", [value, value, claim_id]


def _verdict_columns(run_ids: list[int]) -> tuple[str, list]:
    columns, params = [], []
    for n, run_id in enumerate(run_ids):
        columns.append(
            f", (SELECT p.status || char(31) || coalesce(p.verdict, '') FROM predictions p"
            f" WHERE p.run_id = ? AND p.claim_id = c.id) AS run_{n}"
        )
        params.append(run_id)
    return "".join(columns), params


def _row(description, values, run_ids: list[int]) -> ClaimRow:
    data = dict(zip([d[0] for d in description], values))
    verdicts = {}
    for n, run_id in enumerate(run_ids):
        cell = data.pop(f"run_{n}")
        if cell is not None:
            status, verdict = cell.split("\x1f", 1)
            verdicts[run_id] = (status, verdict or None)
    flags = data.pop("flags")
    data["has_image"] = bool(data["has_image"])
    return ClaimRow(**data, flags=sorted(flags.split(",")) if flags else [], verdicts=verdicts)
