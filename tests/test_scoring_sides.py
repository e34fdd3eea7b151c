"""Several runs read at once (scoring.sides): runs over the same claims share one read of
the claims, and every run's items are exactly what reading it whole gives."""

from __future__ import annotations

import dataclasses
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from store import Prediction, Store
from tests.support.tui import add_run
from workbench.scoring.live import load_live_runs
from workbench.scoring.runs import parse_fields, read_items

FIELDS = ["importance", "label", "flag:contaminated@run", "attr.source_type"]


def assert_same_items(found, expected) -> None:
    assert np.array_equal(found.claim_ids, expected.claim_ids)
    assert np.array_equal(found.gold, expected.gold)
    assert np.array_equal(found.outcome, expected.outcome)
    assert list(found.fields) == list(expected.fields)
    for name, column in expected.fields.items():
        other = found.fields[name]
        assert other.values == column.values, name
        assert np.array_equal(other.members, column.members) and np.array_equal(other.codes, column.codes), name
    assert found.flagged.keys() == expected.flagged.keys()
    for kind, flags in expected.flagged.items():
        assert np.array_equal(found.flagged[kind], flags), kind


def read_together(store: Store, db_path, run_ids, exclude: str | None = "contaminated"):
    fields = parse_fields(FIELDS)
    local = threading.local()  # one store per pool thread, as the metrics view keeps them

    def open_store() -> Store:
        if not hasattr(local, "store"):
            local.store = Store.open(db_path)
        return local.store

    with ThreadPoolExecutor(max_workers=2) as pool:
        lives = load_live_runs(store, open_store, pool, run_ids, fields, None, exclude)
    return fields, lives


@pytest.fixture
def runs(demo_store):
    ids = demo_store.claims.ids("dataset:demo")
    labels = ["Supported", "Refuted", "NotEnoughInfo"]
    a = add_run(demo_store, "a", {c: ("ok", labels[n % 3]) for n, c in enumerate(ids)}, model="test:a")
    b = add_run(
        demo_store,
        "b",
        {c: ("ok", labels[(n + 1) % 3]) if n % 5 else ("error", None) for n, c in enumerate(ids)},
        model="test:b",
    )
    # Flags that differ by model: flag:contaminated@run names each run's own model.
    demo_store.annotations.flag(ids[:3], "contaminated", model="test:a", source="pipeline")
    demo_store.annotations.flag(ids[2:6], "contaminated", model="test:b", source="pipeline")
    return ids, a, b


def counting(monkeypatch) -> dict[str, int]:
    """How often the live loader read the claims' side, and how often a run whole."""
    import workbench.scoring.live as live

    calls = {"claims": 0, "whole": 0}
    for name, key in (("read_claim_side", "claims"), ("load_run_items", "whole")):

        def counted(*args, _original=getattr(live, name), _key=key, **kwargs):  # noqa: B008 (bound per loop turn)
            calls[_key] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(live, name, counted)
    return calls


def test_runs_over_the_same_claims_read_them_once_and_match_whole_reads(demo_store, db_path, runs, monkeypatch):
    ids, a, b = runs
    calls = counting(monkeypatch)
    fields, lives = read_together(demo_store, db_path, [a.id, b.id])
    assert calls == {"claims": 1, "whole": 0}
    for live, run in zip(lives, (a, b)):
        assert_same_items(live.items, read_items(demo_store, run.id, fields, None, ["contaminated"], True))
    assert lives[1].summary(filtered=True).scored < lives[1].summary().scored  # counted on first use


def test_a_run_missing_answers_or_over_other_claims_is_still_exact(demo_store, db_path, runs, monkeypatch):
    ids, a, _ = runs
    # The same lowest and highest claim, one claim fewer in between: read whole after all.
    fewer = demo_store.runs.create(dataclasses.replace(a, id=None, name="fewer"), ids[:5] + ids[6:])
    for claim in ids[:5] + ids[6:]:
        demo_store.runs.record(Prediction(run_id=fewer.id, claim_id=claim, status="ok", verdict="Refuted"))
    # The same claims, some unanswered: its claim ids come from the run, not its answers.
    pending = demo_store.runs.create(dataclasses.replace(a, id=None, name="pending"), ids)
    for claim in ids[::2]:
        demo_store.runs.record(Prediction(run_id=pending.id, claim_id=claim, status="ok", verdict="Supported"))
    calls = counting(monkeypatch)
    fields, lives = read_together(demo_store, db_path, [a.id, fewer.id, pending.id])
    assert calls == {"claims": 1, "whole": 1}  # only "fewer" read whole
    for live, run in zip(lives, (a, fewer, pending)):
        assert_same_items(live.items, read_items(demo_store, run.id, fields, None, ["contaminated"], True))
    assert int((lives[2].items.outcome == lives[2].items.missing_code).sum()) == len(ids[1::2])
