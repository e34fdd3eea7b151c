"""Each prediction's outcome is kept by the store as it is written (issue 15): the filters
that read it (`run:X wrong`, flips between runs) must agree with scoring, whichever way a
prediction or a gold label got there, and an older database is filled in on upgrade."""

from __future__ import annotations

import json

import pytest

from store import PageRequest, Prediction, Run, Store, open_database
from store.migrations import KNOWN, applied_migrations, apply_migrations
from workbench.importers import import_file
from workbench.scoring.runs import read_items

LABELS = ["Supported", "Refuted", "NotEnoughInfo"]


def write_dataset(tmp_path, labels: dict[str, str], name: str = "t"):
    rows = [{"_dataset": {"name": name, "label_space": "jsfactcheck"}}]
    rows += [{"id": key, "claim": f"claim {key}", "label": label} for key, label in labels.items()]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def answered(store, tmp_path):
    """Six claims (one with an excluded gold label) and a run answering five of them."""
    import_file(
        store,
        write_dataset(
            tmp_path,
            {"a": "Refuted", "b": "Supported", "c": "Unclear", "d": "NotEnoughInfo", "e": "Supported", "f": "Refuted"},
        ),
    )
    ids = {x: store.claims.resolve(f"t:{x}") for x in "abcdef"}
    run = store.runs.create(Run(name="r1", model="m", dataset_id=1), list(ids.values()))
    for key, status, verdict in [
        ("a", "ok", "Refuted"),
        ("b", "ok", "Refuted"),
        ("c", "ok", "Refuted"),
        ("d", "parse_failure", None),
        ("e", "error", None),
    ]:
        store.runs.record(Prediction(run_id=run.id, claim_id=ids[key], status=status, verdict=verdict))
    return store, run, ids


def outcomes(store, run_id) -> dict[str, str]:
    rows = store.db.execute(
        "SELECT c.external_id, p.outcome FROM predictions p JOIN claims c ON c.id = p.claim_id"
        " WHERE p.run_id = ? ORDER BY 1",
        [run_id],
    )
    return dict(rows.fetchall())


def matching(store, text: str) -> list[str]:
    return [row.external_id for row in store.claims.page(PageRequest(filter=text))]


def test_each_prediction_carries_its_outcome_as_it_is_written(answered):
    store, run, _ = answered
    assert outcomes(store, run.id) == {
        "a": "correct",
        "b": "wrong",
        "c": "unscored",
        "d": "parse_failure",
        "e": "error",
    }
    assert matching(store, "run:r1 right") == ["a"]
    assert matching(store, "run:r1 wrong") == ["b", "d"]
    assert matching(store, "run:r1 -wrong") == ["a", "c", "e", "f"]
    assert matching(store, "run:r1 missing") == ["e", "f"]  # an API error is no answer
    assert matching(store, "run:r1 predicted") == ["a", "b", "c", "d", "e"]
    assert store.claims.count("run:r1 wrong") == 2


def test_a_retried_answer_and_a_changed_gold_label_change_the_outcome(answered, tmp_path):
    store, run, ids = answered
    store.runs.record(Prediction(run_id=run.id, claim_id=ids["e"], status="ok", verdict="Supported"))
    assert outcomes(store, run.id)["e"] == "correct"
    # The dataset imported again with b's gold label corrected: b's answer becomes right.
    import_file(
        store,
        write_dataset(
            tmp_path,
            {"a": "Refuted", "b": "Refuted", "c": "Unclear", "d": "NotEnoughInfo", "e": "Supported", "f": "Refuted"},
        ),
    )
    assert outcomes(store, run.id)["b"] == "correct"
    assert matching(store, "run:r1 right") == ["a", "b", "e"]


def test_the_stored_outcome_agrees_with_scoring(answered):
    store, run, _ = answered
    items = read_items(store, run.id)
    m = len(items.coder.columns)
    scored = items.gold < len(items.space.labels)
    right = scored & (items.outcome == items.gold)
    wrong = scored & ~right & (items.outcome < m)
    ids = store.db.execute("SELECT id, external_id FROM claims").fetchall()
    external = dict(ids)
    assert sorted(external[i] for i in items.claim_ids[right].tolist()) == matching(store, "run:r1 right")
    assert sorted(external[i] for i in items.claim_ids[wrong].tolist()) == matching(store, "run:r1 wrong")


def test_an_abstention_and_an_unreadable_verdict_are_told_apart(store, tmp_path):
    path = tmp_path / "rfb.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"_dataset": {"name": "rfb", "label_space": "realfactbench"}},
                {"id": "x", "claim": "one", "label": "true"},
                {"id": "y", "claim": "two", "label": "false"},
                {"id": "z", "claim": "three", "label": "false"},
            ]
        ),
        encoding="utf-8",
    )
    import_file(store, path)
    claim = {x: store.claims.resolve(f"rfb:{x}") for x in "xyz"}
    run = store.runs.create(Run(name="r", model="m", dataset_id=1), list(claim.values()))
    for key, verdict in (("x", "unknown"), ("y", "maybe"), ("z", "false")):
        store.runs.record(Prediction(run_id=run.id, claim_id=claim[key], status="ok", verdict=verdict))
    assert outcomes(store, run.id) == {"x": "abstain", "y": "parse_failure", "z": "correct"}


def test_flips_between_two_runs_read_the_outcomes(answered):
    store, run, ids = answered
    other = store.runs.create(Run(name="r2", model="m", dataset_id=1), list(ids.values()))
    for key, verdict in (("a", "Supported"), ("b", "Supported"), ("d", "NotEnoughInfo")):
        store.runs.record(Prediction(run_id=other.id, claim_id=ids[key], status="ok", verdict=verdict))
    assert matching(store, "run:r1 right run:r2 wrong") == ["a"]
    assert matching(store, "run:r1 wrong run:r2 right") == ["b", "d"]


def test_a_run_keyword_that_implies_the_run_needs_no_membership_set(answered):
    store, _, _ = answered
    assert "run_claims" not in store.claims.compile("run:r1 wrong").where
    assert "run_claims" in store.claims.compile("run:r1 -wrong").where
    assert "run_claims" in store.claims.compile("run:r1 missing").where


def test_upgrading_fills_the_outcome_of_every_existing_prediction(db_path):
    names = list(KNOWN)
    old = open_database(db_path)
    apply_migrations(old, stop_before="m009_prediction_outcomes")
    old.execute(
        "INSERT INTO datasets (name, source_format, label_space, labels, excluded_labels, imported_at)"
        " VALUES ('old', 'jsonl', 'jsfactcheck', ?, '[\"Unclear\"]', '2024-01-01')",
        [json.dumps(LABELS)],
    )
    for n, label in enumerate(["Supported", "Refuted", "Unclear"], start=1):
        old.execute(
            "INSERT INTO claims (id, dataset_id, external_id, text, label, content_hash) VALUES (?, 1, ?, 'c', ?, 'h')",
            [n, str(n), label],
        )
    old.execute("INSERT INTO runs (name, dataset_id, model, created_at) VALUES ('r', 1, 'm', '2024-01-01')")
    for n, (status, verdict) in enumerate([("ok", "Supported"), ("ok", "Supported"), ("ok", "Refuted")], start=1):
        old.execute("INSERT INTO run_claims (run_id, claim_id, position) VALUES (1, ?, ?)", [n, n])
        old.execute(
            "INSERT INTO predictions (run_id, claim_id, status, verdict, created_at) VALUES (1, ?, ?, ?, '2024-01-01')",
            [n, status, verdict],
        )
    old.close()
    store = Store.open(db_path)
    assert applied_migrations(store.conn) == names
    assert [row[0] for row in store.db.execute("SELECT outcome FROM predictions ORDER BY claim_id")] == [
        "correct",
        "wrong",
        "unscored",
    ]
    assert store.claims.count("run:r wrong") == 1
