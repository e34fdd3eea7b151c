"""The filter language a user types, compiled to parameterised SQL over `claims c`.

    label:Refuted importance:Main "vaccine" flagged:contaminated date<2025-01-01
    run:gpt4 wrong          run:gpt4 verdict:unknown          -flagged:contaminated

Terms are ANDed; a leading `-` negates a term. Values are always bound parameters,
never pasted into SQL; field names come from a fixed table. See FILTER_HELP.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING

from store.filter_outcome import CompiledFilter, FilterError
from store.filter_terms import Term, parse_terms

if TYPE_CHECKING:
    from sqlite3 import Connection

FILTER_HELP = """\
Terms are combined with AND; put - in front of a term to negate it.
  word  "a phrase"  vacc*     full-text search in the claim text (words; in Japanese,
                              Chinese and other unspaced scripts any substring: 富士山)
  label:Refuted               gold label (also importance: task: domain: source: ext:)
  dataset:demo                claims of one dataset
  id:42  id>100               the store's claim id
  date<2025-01-01  date:2024  claim date (<, <=, >, >=, =, : for a prefix)
  reftime>=2024-06-01         reference time, the same way
  attr.claim_types:"Numerical Claim"   an attribute as stored: name and text exact, a list
                              matches any item, true/false/null/numbers by JSON value
  has:question  has:pages     has:response has:article has:evidence has:qa has:passage has:date has:image
  has:fetched                 the claim's article was fetched (`workbench articles fetch`)
  evidence:"word"             full-text search in the claim's evidence
  flagged:contaminated        any flag of that kind (flagged:any for any flag)
  flagged:contaminated@MODEL  found for that model, or naming none (@run: the run's model)
  -flagged:curated-out        what curation kept (a kind matches its sub-kinds: curated-out:date, ...)
  triage:flawed-reasoning     a prediction on the claim sorted into that failure category
  run:NAME                    claims in that run; later terms refer to it:
    wrong  right  missing  predicted  verdict:unknown  status:parse_failure  reviewed
Quote values with spaces: label:"Not Enough Evidence". Quote a word to search for it
literally when it is also a keyword: "wrong"."""

_OPERATORS = ("<=", ">=", ":", "<", ">", "=")
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2}([T ][0-9:.]+Z?)?)?)?$")

_COLUMN_FIELDS = {
    "label": "c.label",
    "importance": "c.importance",
    "task": "c.task",
    "domain": "c.domain",
    "source": "c.source",
    "ext": "c.external_id",
}
_DATE_FIELDS = {"date": "c.claim_date", "reftime": "c.reference_time"}
_HAS = {
    "question": "c.question IS NOT NULL AND c.question != ''",
    "response": "c.response IS NOT NULL AND c.response != ''",
    "article": "(c.article_text IS NOT NULL AND c.article_text != '') OR c.article_url IS NOT NULL",
    "date": "c.claim_date IS NOT NULL",
    "reftime": "c.reference_time IS NOT NULL",
    "evidence": "EXISTS (SELECT 1 FROM evidence e WHERE e.claim_id = c.id)",
    "pages": "EXISTS (SELECT 1 FROM evidence e WHERE e.claim_id = c.id AND e.kind = 'page')",
    "qa": "EXISTS (SELECT 1 FROM evidence e WHERE e.claim_id = c.id AND e.kind = 'qa')",
    "passage": "EXISTS (SELECT 1 FROM evidence e WHERE e.claim_id = c.id AND e.passage IS NOT NULL)",
    "image": "EXISTS (SELECT 1 FROM claim_images ci WHERE ci.claim_id = c.id)",
    "fetched": "EXISTS (SELECT 1 FROM articles a WHERE a.url = c.article_url AND a.status = 'fetched')",
}
_STATUS_ALIASES = {
    "ok": "ok",
    "abstain": "abstain",
    "abstained": "abstain",
    "parse_failure": "parse_failure",
    "parse-failure": "parse_failure",
    "unparsed": "parse_failure",
    "error": "error",
    "failed": "error",
}
_RUN_KEYWORDS = {"wrong", "right", "correct", "missing", "predicted", "reviewed"}
_ANSWERED = {"wrong", "right", "correct", "predicted", "reviewed", "verdict", "status"}
"""Run terms that hold only for claims the run has a prediction for."""
_RUN_FIELDS = {"verdict", "status"}
_BOOLEAN_WORDS = {"OR", "AND", "NOT"}
KNOWN_FIELDS = sorted(
    [
        *_COLUMN_FIELDS,
        *_DATE_FIELDS,
        "dataset",
        "id",
        "has",
        "evidence",
        "flagged",
        "triage",
        "run",
        "attr.NAME",
        *_RUN_FIELDS,
    ]
)


def compile_filter(text: str, db: Connection | None = None) -> CompiledFilter:
    """Compile a filter to SQL; `db` resolves run, dataset and category names."""
    compiler = _Compiler(db)
    for term in parse_terms(text or ""):
        compiler.add(term)
    return compiler.result()


class _Compiler:
    def __init__(self, db: Connection | None):
        self.db = db
        self.clauses: list[tuple[str, list]] = []
        """(SQL, parameters) per term, ANDed."""
        self.fts_phrases: list[str] = []
        self.run_id: int | None = None
        self.run_ids: list[int] = []
        self.membership: dict[int, int] = {}
        """run id -> the clause saying a claim is in that run (a later term may imply it)."""

    def add(self, term: Term) -> None:
        if term.field is None and not term.quoted and term.value in _BOOLEAN_WORDS:
            # Searching for the word "OR" is never what `label:A OR label:B` meant.
            raise FilterError(
                f"there is no {term.value}: terms are always combined with AND"
                f' (quote "{term.value}" to search for the word)',
                term.start,
                term.end,
            )
        if term.field is None and (term.quoted or term.value.lower() not in _RUN_KEYWORDS):
            return self._text(term)
        sql, params = self._clause(term)
        if term.negated:
            sql = f"NOT ({sql})"
        self.clauses.append((f"({sql})", params))
        name = term.field or term.value.lower()
        if name == "run":
            self.membership[self.run_id] = len(self.clauses) - 1
        elif name in _ANSWERED and not term.negated and self.run_id in self.membership:
            # A prediction of the run exists only for a claim in it: the membership set
            # need not be built as well (on a big run that is most of the cost).
            self.clauses[self.membership.pop(self.run_id)] = ("1", [])

    def result(self) -> CompiledFilter:
        clauses = [clause for clause in self.clauses if clause[0] != "1"]
        if self.fts_phrases:
            clauses.insert(
                0, ("c.id IN (SELECT rowid FROM claims_fts WHERE claims_fts MATCH ?)", [" ".join(self.fts_phrases)])
            )
        where = " AND ".join(sql for sql, _ in clauses) or "1"
        return CompiledFilter(where, [value for _, params in clauses for value in params], self.run_ids)

    def _text(self, term: Term) -> None:
        from store.text_search import claim_text_clause, fts_phrase, is_unspaced  # for text terms only

        if is_unspaced(term.value):  # no spaces between words: a substring, not a word
            sql, params = claim_text_clause(term, self.db)
            self.clauses.append((f"NOT ({sql})" if term.negated else f"({sql})", params))
            return
        phrase = fts_phrase(term)
        if term.negated:
            self.clauses.append(("c.id NOT IN (SELECT rowid FROM claims_fts WHERE claims_fts MATCH ?)", [phrase]))
        else:
            self.fts_phrases.append(phrase)

    def _clause(self, term: Term) -> tuple[str, list]:
        name = term.field or term.value.lower()
        if name in _COLUMN_FIELDS:
            return self._column(term, _COLUMN_FIELDS[name])
        if name in _DATE_FIELDS:
            return _date(term, _DATE_FIELDS[name])
        if name.startswith("attr."):
            return _attribute(term)
        handler = getattr(self, "_f_" + name, None)
        if handler is not None:
            return handler(term)
        if name in _RUN_KEYWORDS or name in _RUN_FIELDS:
            return self._run_relative(term, name)
        raise _unknown_field(term)

    def _column(self, term: Term, column: str) -> tuple[str, list]:
        _require_op(term, ":", "=")
        return f"{column} = ? COLLATE NOCASE", [term.value]

    def _f_id(self, term: Term) -> tuple[str, list]:
        if not re.fullmatch(r"\d+", term.value):
            raise FilterError(f"id needs a whole number, not {term.value!r}", term.start, term.end)
        op = "=" if term.op == ":" else term.op
        return f"c.id {op} ?", [int(term.value)]

    def _f_dataset(self, term: Term) -> tuple[str, list]:
        _require_op(term, ":", "=")
        self._require_known("datasets", "name", term)
        return "c.dataset_id = (SELECT id FROM datasets WHERE name = ?)", [term.value]

    def _f_has(self, term: Term) -> tuple[str, list]:
        _require_op(term, ":")
        key = term.value.lower()
        if key not in _HAS:
            raise FilterError(f"has: takes one of {', '.join(sorted(_HAS))}, not {term.value!r}", term.start, term.end)
        return _HAS[key], []

    def _f_evidence(self, term: Term) -> tuple[str, list]:
        _require_op(term, ":")
        from store.text_search import evidence_clause

        return evidence_clause(term, self.db)

    def _f_flagged(self, term: Term) -> tuple[str, list]:
        _require_op(term, ":")
        from store.flag_specs import FlagSpec, FlagSpecError, check_flag_model  # for flagged: terms only

        try:
            spec = FlagSpec.parse(term.value)
            if self.db is not None:
                check_flag_model(self.db, spec)
            condition, params = spec.condition(self.run_id)
        except FlagSpecError as error:
            raise FilterError(str(error), term.start, term.end) from None
        return f"EXISTS (SELECT 1 FROM flags f WHERE f.claim_id = c.id AND {condition})", params

    def _f_triage(self, term: Term) -> tuple[str, list]:
        _require_op(term, ":")
        self._require_known("failure_categories", "slug", term)
        sql = (
            "EXISTS (SELECT 1 FROM triage_entries t JOIN predictions p ON p.id = t.prediction_id"
            " WHERE p.claim_id = c.id"
            " AND t.category_id = (SELECT id FROM failure_categories WHERE slug = ?)"
        )
        params: list = [term.value]
        if self.run_id is not None:
            sql += " AND p.run_id = ?"
            params.append(self.run_id)
        return sql + ")", params

    def _f_run(self, term: Term) -> tuple[str, list]:
        _require_op(term, ":", "=")
        if term.negated:
            raise FilterError("run: cannot be negated", term.start, term.end)
        self.run_id = self._resolve_run(term)
        self.run_ids.append(self.run_id)
        return "c.id IN (SELECT claim_id FROM run_claims WHERE run_id = ?)", [self.run_id]

    def _run_relative(self, term: Term, name: str) -> tuple[str, list]:
        if self.run_id is None:
            raise FilterError(f"{name} needs a run: put run:NAME before it", term.start, term.end)
        prediction = "SELECT 1 FROM predictions p WHERE p.run_id = ? AND p.claim_id = c.id"
        run = [self.run_id]
        if name == "verdict":
            _require_op(term, ":", "=")
            return _IN_RUN.format(" AND p.verdict = ? COLLATE NOCASE"), run + [term.value]
        if name == "status":
            _require_op(term, ":", "=")
            status = _STATUS_ALIASES.get(term.value.lower())
            if status is None:
                raise FilterError(
                    f"status: takes ok, abstain, parse_failure or error, not {term.value!r}", term.start, term.end
                )
            return _IN_RUN.format(" AND p.status = ?"), run + [status]
        if term.field is not None:
            raise FilterError(f"{name} takes no value", term.start, term.end)
        return _RUN_KEYWORD_SQL[name].format(prediction=prediction), run

    def _resolve_run(self, term: Term) -> int:
        if self.db is None:
            raise FilterError("run: needs a database to look the run up", term.start, term.end)
        row = self.db.execute(
            "SELECT id FROM runs WHERE name = ? OR CAST(id AS TEXT) = ? ORDER BY name = ? DESC LIMIT 1",
            [term.value, term.value, term.value],
        ).fetchone()
        if row is None:
            names = [r[0] for r in self.db.execute("SELECT name FROM runs ORDER BY id DESC LIMIT 200")]
            raise FilterError(_no_such("run", term.value, names), term.start, term.end)
        return row[0]

    def _require_known(self, table: str, column: str, term: Term) -> None:
        if self.db is None:
            return
        names = [r[0] for r in self.db.execute(f"SELECT {column} FROM {table}")]
        if term.value not in names:
            kind = {"datasets": "dataset", "failure_categories": "failure category"}[table]
            raise FilterError(_no_such(kind, term.value, names), term.start, term.end)


# Run keywords read the outcome each prediction carries (migration m009) as index ranges
# of predictions(run_id, outcome, claim_id). wrong = a scored claim not answered correctly.
_IN_RUN = "c.id IN (SELECT p.claim_id FROM predictions p WHERE p.run_id = ?{})"
_RUN_KEYWORD_SQL = {
    "wrong": _IN_RUN.format(" AND p.outcome IN ('wrong', 'abstain', 'parse_failure')"),
    "right": _IN_RUN.format(" AND p.outcome = 'correct'"),
    "correct": _IN_RUN.format(" AND p.outcome = 'correct'"),
    "predicted": _IN_RUN.format(""),
    "missing": "NOT " + _IN_RUN.format(" AND p.outcome != 'error'"),
    "reviewed": (
        "EXISTS ({prediction} AND EXISTS (SELECT 1 FROM triage_reviews r"
        " WHERE r.prediction_id = p.id AND r.reviewed = 1))"
    ),
}


def _date(term: Term, column: str) -> tuple[str, list]:
    if not _DATE.match(term.value) or not _real_date(term.value):
        raise FilterError(f"{term.field} needs a date like 2025-01-31, not {term.value!r}", term.start, term.end)
    if term.op == ":":
        return f"{column} LIKE ? || '%'", [term.value]
    return f"{column} {term.op} ?", [term.value]


def _real_date(value: str) -> bool:
    """A month 01-12 and a day that exists (2024-13-45 is a typo, not an empty result)."""
    day = value[:10]
    try:
        if len(day) == 10:
            date.fromisoformat(day)
        elif len(day) == 7:
            date.fromisoformat(day + "-01")
    except ValueError:
        return False
    return True


def _attribute(term: Term) -> tuple[str, list]:
    _require_op(term, ":", "=")
    name = term.field[len("attr.") :]
    if not name:
        raise FilterError("attr. needs a name, e.g. attr.claim_types:Numerical", term.start, term.end)
    path = '$."' + name.replace('"', "") + '"'
    # A value matches as stored: text exactly, anything else by its JSON spelling (true, false,
    # null, 3, {"a":1}), and a number also by its value (3 finds 3.0); a list, any item. This is
    # how `--by attr.NAME` names its slices, so a breakdown row's filter finds exactly its claims.
    matches = (
        "(CASE a.type WHEN 'text' THEN a.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
        " WHEN 'null' THEN 'null' ELSE CAST(a.value AS TEXT) END) = ?"
    )
    params = [path, path, path, path, term.value]
    number = _json_number(term.value)
    if number is not None:
        matches += " OR (a.type IN ('integer', 'real') AND a.value = ?)"
        params.append(number)
    # An object is one value (json_each would walk its members); an absent attribute, none.
    values = (
        "json_each(CASE json_type(c.attributes, ?) WHEN 'array' THEN c.attributes -> ?"
        " ELSE json_array(c.attributes -> ?) END) a"
    )
    return f"EXISTS (SELECT 1 FROM {values} WHERE json_type(c.attributes, ?) IS NOT NULL AND ({matches}))", params


def _json_number(text: str) -> int | float | None:
    """The number a value spells in JSON (3, -2.5, 1e3), or None."""
    if not re.fullmatch(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?", text):
        return None
    number = float(text)
    return int(number) if number.is_integer() and abs(number) < 2**63 else number


def _require_op(term: Term, *allowed: str) -> None:
    if term.op not in allowed:
        raise FilterError(f"{term.field} takes {' or '.join(allowed)}, not {term.op}", term.start, term.end)


def _unknown_field(term: Term) -> FilterError:
    import difflib  # for a mistyped filter only

    name = term.field or term.value
    close = difflib.get_close_matches(name, KNOWN_FIELDS, n=1)
    hint = f"; did you mean {close[0]}?" if close else f"; known fields: {', '.join(KNOWN_FIELDS)}"
    return FilterError(f"unknown field {name!r}{hint}", term.start, term.end)


def _no_such(kind: str, value: str, names: list[str]) -> str:
    from store.names import did_you_mean

    return f"no {kind} named {value!r}{did_you_mean(value, names)}"
