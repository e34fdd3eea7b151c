"""Search runs in the database: full-text search over evidence and documents (the offline
backend), the search cache, each claim's trajectory (steps and results), and documents.

A trajectory step is kept once written: a claim answered again after a kill replays its
steps from the caches and finds them already there (`record_step` leaves them alone).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from store.connection import atomic
from store.records import now_iso
from store.search_images import FetchRecord, SearchImages  # noqa: F401 (FetchRecord: store's API)

if TYPE_CHECKING:
    from sqlite3 import Connection

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
"""A word as the full-text tokenizer (unicode61) cuts them: letters and digits, `_` between."""
MAX_QUERY_WORDS = 32
STOPWORDS = frozenset(
    "a an and are as at be been but by can did do does for from had has have he her his how i if in into is it"
    " its more most no not of on or our she so than that the their them then there these they this to was we"
    " were what when where which who why will with would you your".split()
)
"""Words too common to rank pages by (a query of only these keeps them)."""


@dataclass
class StoredResult:
    rank: int
    url: str | None
    title: str | None
    snippet: str | None
    published: str | None = None
    dropped: str | None = None
    """Why the result was kept from the model (None: it was shown)."""
    image_url: str | None = None
    """An image result's picture (`url` is the page it is on)."""
    source: str | None = None
    """The site's name, as the search backend gave it."""
    sha256: str | None = None
    """The bytes of the image the model was shown (a view step's result; images table)."""


@dataclass
class Step:
    """One step of a claim's trajectory."""

    step: int
    kind: str
    """search, read, answer, invalid (an action that could not be done) or limit; `tool`
    tells a web search from an image search (search_images, search_by_image) and reading a
    page from looking at an image (view_image)."""
    text: str | None = None
    """What the model wrote at this step."""
    tool: str | None = None
    arguments: str | None = None
    query: str | None = None
    note: str | None = None
    results: list[StoredResult] = field(default_factory=list)


POSTINGS_BUDGET = 10_000
"""At most this many matching pages are ranked for one query (about 10 ms on a laptop):
past it, the query's commonest words are left out, the ones bm25 weighs least anyway."""


def query_words(text: str) -> list[str]:
    """A search query's words as the index holds them (lower-cased, accents dropped:
    "Según" is "segun"), each once, without stopwords (a query of only stopwords keeps them)."""
    words = list(dict.fromkeys(_folded(w) for w in _WORD.findall(text or "")))
    return ([w for w in words if w not in STOPWORDS] or words)[:MAX_QUERY_WORDS]


def _folded(word: str) -> str:
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def rarest_within(words: list[str], pages: dict[str, int], budget: int | None = None) -> list[str]:
    """The words to rank by: rarest first, while the pages they match stay within the
    budget (the rarest word always)."""
    budget = POSTINGS_BUDGET if budget is None else budget
    kept, total = [], 0
    for word in sorted(words, key=lambda w: pages.get(w, 0)):
        if kept and total + pages.get(word, 0) > budget:
            break
        kept.append(word)
        total += pages.get(word, 0)
    return kept


def fts_query(words: list[str]) -> str | None:
    """Words as an FTS5 expression: each quoted, any of them (bm25 ranks the pages with
    more and rarer ones first); None when there are none."""
    return " OR ".join(f'"{w}"' for w in words) if words else None


class SearchStore(SearchImages):
    """Search corpus, cache and trajectories (and the images of search runs: search_images.py)."""

    def __init__(self, db: Connection):
        self.db = db
        self._pages: dict[str, dict[str, int]] = {}
        """Per full-text table, how many pages hold a word (asked once per word)."""

    # -- the offline backend ------------------------------------------------------------

    def full_text(self, query: str, limit: int, dataset: str | None = None, claim: str | None = None) -> list[dict]:
        """The best `limit` evidence pages, passages and documents for a query (bm25). With
        a dataset, only its documents; with a claim too, the dataset's shared documents and
        those imported for that claim."""
        words = query_words(query)
        if not words:
            return []
        found = self.db.execute(
            "SELECT e.url, e.title, snippet(evidence_fts, 1, '', '', '…', 40), NULL, bm25(evidence_fts), 'e', e.id"
            " FROM evidence_fts JOIN evidence e ON e.id = evidence_fts.rowid"
            " WHERE evidence_fts MATCH ? AND e.kind IN ('page', 'passage', 'article')"
            " ORDER BY bm25(evidence_fts) LIMIT ?",
            [self.fts_expression("evidence_fts", words), limit * 4],
        ).fetchall()
        found += self.db.execute(
            "SELECT d.url, d.title, snippet(documents_fts, 1, '', '', '…', 40), d.published, bm25(documents_fts),"
            " 'd', d.id FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid"
            " WHERE documents_fts MATCH :expression"
            " AND (:dataset IS NULL OR d.dataset_id = (SELECT id FROM datasets WHERE name = :dataset))"
            " AND (:dataset IS NULL OR d.claim_external_id IS NULL OR d.claim_external_id = :claim)"
            " ORDER BY bm25(documents_fts) LIMIT :limit",
            {
                "expression": self.fts_expression("documents_fts", words),
                "dataset": dataset,
                "claim": claim,
                "limit": limit * 4,
            },
        ).fetchall()
        found.sort(key=lambda row: row[4])
        seen, kept = set(), []
        for url, title, snippet, published, _, kind, row_id in found:
            if url and url in seen:
                continue  # a page several claims cite is one result
            seen.add(url)
            kept.append(
                {"url": url, "title": title, "snippet": snippet, "published": published, "ref": f"{kind}{row_id}"}
            )
        return kept[:limit]

    def fts_expression(self, table: str, words: list[str]) -> str | None:
        """The query for one full-text table, its commonest words left out when ranking
        every page they match would be slow (a million pages take ~0.6 s)."""
        known = self._pages.setdefault(table, {})
        unknown = [w for w in words if w not in known]
        if unknown:
            self.db.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_words USING fts5vocab(main, {table}, row)"
            )
            counted = dict(
                self.db.execute(
                    f"SELECT term, doc FROM temp.{table}_words WHERE term IN ({', '.join('?' * len(unknown))})", unknown
                ).fetchall()
            )
            known.update({w: counted.get(w, 0) for w in unknown})
        return fts_query(rarest_within(words, known))

    def full_text_of(self, ref: str) -> str | None:
        """The whole text behind a full_text result (`ref` as it gave it)."""
        table = {"e": "evidence", "d": "documents"}.get(ref[:1])
        if table is None or not ref[1:].isdigit():
            return None
        row = self.db.execute(f"SELECT text FROM {table} WHERE id = ?", [int(ref[1:])]).fetchone()
        return row[0] if row else None

    def add_documents(self, dataset_id: int, rows: list[tuple]) -> int:
        """(claim external id, url, title, text, published) rows of a knowledge store; a
        document the dataset has already (same claim, address and text) is not added twice.
        Returns how many were added."""
        self._pages.pop("documents_fts", None)
        with atomic(self.db):
            added = 0
            for claim, url, title, text, published in rows:
                if self.db.execute(
                    "SELECT 1 FROM documents WHERE dataset_id = ? AND url IS ?"
                    " AND claim_external_id IS ? AND text = ? LIMIT 1",
                    [dataset_id, url, claim, text],
                ).fetchone():
                    continue
                self.db.execute(
                    "INSERT INTO documents (dataset_id, claim_external_id, url, title, text, published)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    [dataset_id, claim, url, title, text, published],
                )
                added += 1
        return added

    # -- the cache -------------------------------------------------------------------------

    def cached(self, key: str) -> list[dict] | None:
        row = self.db.execute("SELECT results FROM search_cache WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else None

    def cache(self, key: str, backend: str, query: str, results: list[dict]) -> None:
        with atomic(self.db):
            self.db.execute(
                "INSERT OR REPLACE INTO search_cache (key, backend, query, results, created_at) VALUES (?, ?, ?, ?, ?)",
                [key, backend, query, json.dumps(results), now_iso()],
            )

    # -- trajectories ----------------------------------------------------------------------

    def record_step(self, run_id: int, claim_id: int, step: Step) -> None:
        """Keep one step (and its results) unless the claim's trajectory has it already."""
        with atomic(self.db):
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO search_steps (run_id, claim_id, step, kind, text, tool, arguments, query,"
                " note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    run_id,
                    claim_id,
                    step.step,
                    step.kind,
                    step.text,
                    step.tool,
                    step.arguments,
                    step.query,
                    step.note,
                    now_iso(),
                ],
            )
            if cursor.rowcount:
                self.db.executemany(
                    "INSERT INTO search_results (step_id, rank, url, title, snippet, published, dropped, image_url,"
                    " source, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            cursor.lastrowid,
                            r.rank,
                            r.url,
                            r.title,
                            r.snippet,
                            r.published,
                            r.dropped,
                            r.image_url,
                            r.source,
                            r.sha256,
                        )
                        for r in step.results
                    ],
                )

    def trajectory(self, run_id: int, claim_id: int) -> list[Step]:
        """A claim's steps in a run, in order, each with its results."""
        steps = self.db.execute(
            "SELECT id, step, kind, text, tool, arguments, query, note FROM search_steps"
            " WHERE run_id = ? AND claim_id = ? ORDER BY step",
            [run_id, claim_id],
        ).fetchall()
        found = []
        for step_id, *values in steps:
            results = [
                StoredResult(*row)
                for row in self.db.execute(
                    "SELECT rank, url, title, snippet, published, dropped, image_url, source, sha256 FROM search_results"
                    " WHERE step_id = ? ORDER BY rank, id",
                    [step_id],
                )
            ]
            found.append(Step(*values, results=results))
        return found

    def searched_runs(self, claim_id: int) -> list[tuple[int, str]]:
        """(run id, run name) of the runs with a trajectory for this claim."""
        return self.db.execute(
            "SELECT DISTINCT r.id, r.name FROM search_steps s JOIN runs r ON r.id = s.run_id"
            " WHERE s.claim_id = ? ORDER BY r.id",
            [claim_id],
        ).fetchall()

    def run_counts(self, run_id: int) -> dict:
        """How a search run went: claims, steps and searches, results kept and dropped."""
        claims, searches, steps = self.db.execute(
            "SELECT count(DISTINCT claim_id), sum(kind = 'search'), count(*) FROM search_steps WHERE run_id = ?",
            [run_id],
        ).fetchone()
        dropped = dict(
            self.db.execute(
                "SELECT r.dropped, count(*) FROM search_results r JOIN search_steps s ON s.id = r.step_id"
                " WHERE s.run_id = ? AND r.dropped IS NOT NULL GROUP BY r.dropped",
                [run_id],
            ).fetchall()
        )
        shown = self.db.execute(
            "SELECT r.url FROM search_results r JOIN search_steps s ON s.id = r.step_id"
            " WHERE s.run_id = ? AND r.dropped IS NULL",
            [run_id],
        ).fetchall()
        by_claim = dict(
            self.db.execute(
                "SELECT claim_id, sum(kind = 'search') FROM search_steps WHERE run_id = ? GROUP BY claim_id", [run_id]
            )
        )
        return {
            "claims": claims or 0,
            "steps": steps or 0,
            "searches": searches or 0,
            "dropped": dropped,
            "shown_urls": [url for (url,) in shown if url],
            "searches_per_claim": list(by_claim.values()),
            "searches_by_claim": by_claim,
        }

    def progress(self, run_ids: list[int]) -> tuple[int, int]:
        """(steps recorded, query-pair labellings answered) for these runs: changes as a
        search run goes on or a judge labels its queries."""
        if not run_ids:
            return (0, 0)
        marks = ", ".join("?" * len(run_ids))
        steps = self.db.execute(f"SELECT count(*) FROM search_steps WHERE run_id IN ({marks})", run_ids).fetchone()
        labels = self.db.execute(
            f"SELECT count(*) FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.kind = 'reformulate'"
            f" AND r.target_run_id IN ({marks})",
            run_ids,
        ).fetchone()
        return (steps[0], labels[0])

    def searched_claims(self, run_id: int) -> list[int]:
        """The claims a search run has a trajectory for."""
        return [
            c
            for (c,) in self.db.execute(
                "SELECT DISTINCT claim_id FROM search_steps WHERE run_id = ? ORDER BY claim_id", [run_id]
            )
        ]

    def queries(self, run_id: int) -> dict[int, list[str]]:
        """Each claim's search queries in order (for the reformulation analysis)."""
        found: dict[int, list[str]] = {}
        for claim_id, query in self.db.execute(
            "SELECT claim_id, query FROM search_steps WHERE run_id = ? AND kind = 'search'"
            " AND query IS NOT NULL ORDER BY claim_id, step",
            [run_id],
        ):
            found.setdefault(claim_id, []).append(query)
        return found
