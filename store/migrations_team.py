"""The schema for triage as a team (m015): labels per annotator, assignments, adjudication,
the history of every label, and judge repeats.

Before m015 a triage entry, a review note and a contamination label had at most one
author (the `who` column, often empty). Each existing row keeps the author it names, or
UNATTRIBUTED when it names none, and the history starts with one row per existing label
(source "before history", at the time the label was made), so nothing written earlier
is lost or becomes anonymous.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.migration_registry import migration
from store.records import UNATTRIBUTED

if TYPE_CHECKING:
    from sqlite_utils import Database

_AUTHOR = f"coalesce(nullif(trim(who), ''), '{UNATTRIBUTED}')"


@migration
def m015_team_triage(db: Database) -> None:
    """Labels per annotator, assignment rounds and queues, adjudications, label history,
    judge repeats; older single-voice rows attributed (see UNATTRIBUTED)."""
    db.executescript(
        _PER_ANNOTATOR
        + _ASSIGNMENTS
        + _ADJUDICATION
        + _HISTORY
        + _JUDGE_REPEATS
        + _HISTORY_FROM_BEFORE
        + _HISTORY_WHEN_ANSWERS_GO
    )


# Categories and review state (done + note) per (answer, annotator); manual flags per
# person (two people may both mark a claim contaminated).
_PER_ANNOTATOR = f"""
CREATE TABLE triage_entries_m015 (
    id INTEGER PRIMARY KEY,
    prediction_id INTEGER NOT NULL REFERENCES predictions(id) ON DELETE CASCADE,
    category_id INTEGER NOT NULL REFERENCES failure_categories(id) ON DELETE CASCADE,
    annotator TEXT NOT NULL,
    note TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (prediction_id, annotator, category_id)
);
INSERT INTO triage_entries_m015 (id, prediction_id, category_id, annotator, note, created_at)
    SELECT id, prediction_id, category_id, {_AUTHOR}, note, created_at FROM triage_entries;
DROP TABLE triage_entries;
ALTER TABLE triage_entries_m015 RENAME TO triage_entries;
CREATE INDEX triage_entries_category ON triage_entries(category_id, prediction_id);
CREATE INDEX triage_entries_annotator ON triage_entries(annotator, prediction_id);

CREATE TABLE triage_reviews_m015 (
    prediction_id INTEGER NOT NULL REFERENCES predictions(id) ON DELETE CASCADE,
    annotator TEXT NOT NULL,
    reviewed INTEGER NOT NULL DEFAULT 0,
    note TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (prediction_id, annotator)
);
INSERT INTO triage_reviews_m015 (prediction_id, annotator, reviewed, note, updated_at)
    SELECT prediction_id, {_AUTHOR}, reviewed, note, updated_at FROM triage_reviews;
DROP TABLE triage_reviews;
ALTER TABLE triage_reviews_m015 RENAME TO triage_reviews;
-- Every label has its review row from now on (categories alone used to have none).
INSERT OR IGNORE INTO triage_reviews (prediction_id, annotator, reviewed, note, updated_at)
    SELECT prediction_id, annotator, 0, NULL, max(created_at) FROM triage_entries GROUP BY prediction_id, annotator;

CREATE TABLE flags_m015 (
    id INTEGER PRIMARY KEY,
    claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('manual', 'pipeline')),
    model TEXT NOT NULL DEFAULT '',
    metric TEXT NOT NULL DEFAULT '',
    score REAL,
    threshold REAL,
    note TEXT,
    who TEXT,
    created_at TEXT NOT NULL
);
INSERT INTO flags_m015 SELECT id, claim_id, kind, source, model, metric, score, threshold, note,
    CASE WHEN source = 'manual' THEN {_AUTHOR} ELSE who END, created_at FROM flags;
DROP TABLE flags;
ALTER TABLE flags_m015 RENAME TO flags;
CREATE UNIQUE INDEX flags_unique ON flags(claim_id, kind, source, model, metric, coalesce(who, ''));
CREATE INDEX flags_kind ON flags(kind, claim_id);
"""

# An assignment round hands a run's answers (a filter's) to annotators; each annotator's
# queue is their assignments in position order, `done` kept by triggers from the reviews
# so the next item is one index probe however much is done.
_ASSIGNMENTS = """
CREATE TABLE triage_rounds (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    filter TEXT NOT NULL,
    annotators TEXT NOT NULL,
    overlap REAL NOT NULL,
    per_item INTEGER NOT NULL,
    seed INTEGER,
    blind INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE triage_assignments (
    prediction_id INTEGER NOT NULL REFERENCES predictions(id) ON DELETE CASCADE,
    annotator TEXT NOT NULL,
    run_id INTEGER NOT NULL,
    round_id INTEGER NOT NULL REFERENCES triage_rounds(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (prediction_id, annotator)
);
CREATE INDEX triage_assignments_queue ON triage_assignments(run_id, annotator, done, position);
CREATE INDEX triage_assignments_order ON triage_assignments(run_id, annotator, position);
CREATE TRIGGER triage_reviews_done_insert AFTER INSERT ON triage_reviews BEGIN
    UPDATE triage_assignments SET done = new.reviewed
    WHERE prediction_id = new.prediction_id AND annotator = new.annotator;
END;
CREATE TRIGGER triage_reviews_done_update AFTER UPDATE OF reviewed ON triage_reviews BEGIN
    UPDATE triage_assignments SET done = new.reviewed
    WHERE prediction_id = new.prediction_id AND annotator = new.annotator;
END;
CREATE TRIGGER triage_reviews_done_delete AFTER DELETE ON triage_reviews BEGIN
    UPDATE triage_assignments SET done = 0
    WHERE prediction_id = old.prediction_id AND annotator = old.annotator;
END;
"""

# The final categories of an answer people disagreed on. `version` grows with each
# decision: a second adjudicator who read version 1 cannot silently overwrite version 2.
_ADJUDICATION = """
CREATE TABLE triage_adjudications (
    prediction_id INTEGER PRIMARY KEY REFERENCES predictions(id) ON DELETE CASCADE,
    categories TEXT NOT NULL,
    note TEXT,
    adjudicator TEXT NOT NULL,
    version INTEGER NOT NULL,
    decided_at TEXT NOT NULL
);
"""

# Every change to a label: whose label, who changed it, old and new (JSON), when, from
# where. No foreign keys: the history outlives the runs and answers it describes.
_HISTORY = """
CREATE TABLE label_history (
    id INTEGER PRIMARY KEY,
    claim_id INTEGER NOT NULL,
    prediction_id INTEGER,
    run_id INTEGER,
    run_name TEXT,
    kind TEXT NOT NULL,
    annotator TEXT NOT NULL,
    changed_by TEXT NOT NULL,
    old TEXT,
    new TEXT,
    source TEXT NOT NULL,
    changed_at TEXT NOT NULL
);
CREATE INDEX label_history_claim ON label_history(claim_id, id);
CREATE INDEX label_history_prediction ON label_history(prediction_id, id);
"""

# A judge asked K times about one explanation: every repeat's outcome (repeat 0 is also
# the judge run's prediction, which EQ reads).
_JUDGE_REPEATS = """
CREATE TABLE judge_repeats (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    claim_id INTEGER NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
    repeat INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'parse_failure', 'error')),
    score REAL,
    justification TEXT,
    raw_output TEXT,
    error TEXT,
    cached INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, claim_id, repeat)
) WITHOUT ROWID;
"""

_HISTORY_COLUMNS = (
    "(claim_id, prediction_id, run_id, run_name, kind, annotator, changed_by, old, new, source, changed_at)"
)

# What existed before m015 enters the history as made at its own time.
_HISTORY_FROM_BEFORE = f"""
INSERT INTO label_history {_HISTORY_COLUMNS}
    SELECT p.claim_id, p.id, p.run_id, r.name, 'categories', t.annotator, t.annotator, NULL,
           json_group_array(fc.name), 'before history', min(t.created_at)
    FROM triage_entries t JOIN failure_categories fc ON fc.id = t.category_id
    JOIN predictions p ON p.id = t.prediction_id JOIN runs r ON r.id = p.run_id
    GROUP BY t.prediction_id, t.annotator;
INSERT INTO label_history {_HISTORY_COLUMNS}
    SELECT p.claim_id, p.id, p.run_id, r.name, 'note', v.annotator, v.annotator, NULL, json_quote(v.note),
           'before history', v.updated_at
    FROM triage_reviews v JOIN predictions p ON p.id = v.prediction_id JOIN runs r ON r.id = p.run_id
    WHERE v.note IS NOT NULL;
INSERT INTO label_history {_HISTORY_COLUMNS}
    SELECT p.claim_id, p.id, p.run_id, r.name, 'done', v.annotator, v.annotator, 'false', 'true',
           'before history', v.updated_at
    FROM triage_reviews v JOIN predictions p ON p.id = v.prediction_id JOIN runs r ON r.id = p.run_id
    WHERE v.reviewed = 1;
INSERT INTO label_history {_HISTORY_COLUMNS}
    SELECT p.claim_id, p.id, p.run_id, r.name, 'eq score', substr(j.judge_model, 8), substr(j.judge_model, 8),
           NULL, json_quote(j.score), 'before history', j.created_at
    FROM judgments j JOIN predictions p ON p.id = j.prediction_id JOIN runs r ON r.id = p.run_id
    WHERE j.judge_model LIKE 'person:%';
INSERT INTO label_history {_HISTORY_COLUMNS}
    SELECT claim_id, NULL, NULL, NULL, 'flag', who, who, NULL, json_quote(kind), 'before history', created_at
    FROM flags WHERE source = 'manual';
"""

# An answer deleted with its run takes its labels along (foreign keys); what people wrote
# stays in the history. When a run is deleted its row is gone before its answers are, so
# the run's name comes from the history.
_RUN_NAME = (
    "coalesce((SELECT name FROM runs WHERE id = old.run_id), (SELECT run_name FROM label_history"
    " WHERE prediction_id = old.id AND run_name IS NOT NULL ORDER BY id DESC LIMIT 1))"
)
_HISTORY_WHEN_ANSWERS_GO = f"""
CREATE TRIGGER predictions_keep_labels BEFORE DELETE ON predictions BEGIN
    INSERT INTO label_history {_HISTORY_COLUMNS}
        SELECT old.claim_id, old.id, old.run_id, {_RUN_NAME}, 'categories',
               t.annotator, t.annotator, json_group_array(fc.name), NULL, 'answer deleted',
               strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        FROM triage_entries t JOIN failure_categories fc ON fc.id = t.category_id
        WHERE t.prediction_id = old.id GROUP BY t.annotator;
    INSERT INTO label_history {_HISTORY_COLUMNS}
        SELECT old.claim_id, old.id, old.run_id, {_RUN_NAME}, 'note',
               v.annotator, v.annotator, json_quote(v.note), NULL, 'answer deleted',
               strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        FROM triage_reviews v WHERE v.prediction_id = old.id AND v.note IS NOT NULL;
    INSERT INTO label_history {_HISTORY_COLUMNS}
        SELECT old.claim_id, old.id, old.run_id, {_RUN_NAME}, 'adjudication',
               a.adjudicator, a.adjudicator, json_object('categories', (SELECT json_group_array(fc.name)
                   FROM failure_categories fc WHERE fc.id IN (SELECT value FROM json_each(a.categories))),
                   'note', a.note, 'by', a.adjudicator), NULL, 'answer deleted',
               strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        FROM triage_adjudications a WHERE a.prediction_id = old.id;
    INSERT INTO label_history {_HISTORY_COLUMNS}
        SELECT old.claim_id, old.id, old.run_id, {_RUN_NAME}, 'eq score',
               substr(j.judge_model, 8), substr(j.judge_model, 8), json_quote(j.score), NULL, 'answer deleted',
               strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        FROM judgments j WHERE j.prediction_id = old.id AND j.judge_model LIKE 'person:%';
END;
"""
