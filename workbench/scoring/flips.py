"""Every claim whose verdict flips between a base run and another: the rows of the TUI's flips
view, grouped right-to-wrong then wrong-to-right, as `compare` counts them (shared items)."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from store import FilterError, Run, Store
from workbench.scoring.compare import compare_runs
from workbench.scoring.runs import ScoringError

RIGHT_TO_WRONG, WRONG_TO_RIGHT = "right → wrong", "wrong → right"
SHOWN_PER_GROUP = 2000
"""Rows listed per direction; a filter narrows the rest (the count says how many there are)."""


@dataclass(frozen=True)
class FlipRow:
    """One flipped claim: its ids, gold label, both verdicts and its text."""

    claim_id: int
    external_id: str
    gold: str | None
    verdict_a: str | None
    verdict_b: str | None
    text: str
    direction: str


@dataclass(frozen=True)
class Flips:
    """The flips of run B against the base run A, under a filter."""

    base: Run
    other: Run
    filter_text: str
    rows: list[FlipRow]
    counts: dict[str, int]
    """Each direction's number of flips under the filter (rows may list fewer)."""

    def command(self, db_path: str | None = None) -> str:
        """The command line that reopens this exact view."""
        words = [
            "workbench",
            *(["--db", db_path] if db_path else []),
            "tui",
            "--compare",
            self.base.name,
            self.other.name,
            *(["--where", self.filter_text] if self.filter_text else []),
        ]
        return shlex.join(words)


def read_flips(store: Store, base: str | int, other: str | int, filter_text: str = "") -> Flips:
    """The claims whose verdict is right in one run and wrong in the other, under `filter_text`
    (the claims browser's filter language); ScoringError names a bad run or filter."""
    comparison = compare_runs(store, base, other, resamples=0).full
    groups = {RIGHT_TO_WRONG: comparison.right_to_wrong, WRONG_TO_RIGHT: comparison.wrong_to_right}
    if filter_text.strip():
        try:
            kept = store.claims.matching([i for ids in groups.values() for i in ids], filter_text)
        except FilterError as error:
            raise ScoringError(f"filter: {error}") from None
        groups = {direction: [i for i in ids if i in kept] for direction, ids in groups.items()}
    counts = {direction: len(ids) for direction, ids in groups.items()}
    shown = [(direction, claim_id) for direction, ids in groups.items() for claim_id in ids[:SHOWN_PER_GROUP]]
    return Flips(
        comparison.run_a,
        comparison.run_b,
        filter_text.strip(),
        _rows(store, comparison.run_a, comparison.run_b, shown),
        counts,
    )


def _rows(store: Store, base: Run, other: Run, shown: list[tuple[str, int]]) -> list[FlipRow]:
    ids = [claim_id for _, claim_id in shown]
    if not ids:
        return []
    verdicts = [_verdicts(store, run, ids) for run in (base, other)]
    claims = {claim.id: claim for claim in store.runs.claims(ids)}
    return [
        FlipRow(
            claim_id,
            claims[claim_id].external_id,
            claims[claim_id].label,
            verdicts[0].get(claim_id),
            verdicts[1].get(claim_id),
            claims[claim_id].text,
            direction,
        )
        for direction, claim_id in shown
        if claim_id in claims
    ]


def _verdicts(store: Store, run: Run, claim_ids: list[int]) -> dict[int, str | None]:
    """Each claim's verdict in the run (a parse failure shows as its raw verdict, or None)."""
    found = store.runs.predictions(run.id, "p.claim_id IN (SELECT value FROM json_each(?))", [json.dumps(claim_ids)])
    return {p.claim_id: p.verdict if p.verdict is not None else p.status for p in found}
