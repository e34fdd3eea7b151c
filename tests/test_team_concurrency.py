"""Several people on one database at once (issue 23, item 1): two TUIs in their own
processes and a CLI import write labels together; nothing is lost, nothing is locked out."""

from __future__ import annotations

import csv
import os
import subprocess
import sys

from store import Store
from tests.support.tui import REPO_ROOT, add_claims, add_run, wrong_label

PER_TUI = 20


def test_two_tuis_and_a_cli_writing_together_lose_nothing(store, db_path, tmp_path):
    ids = add_claims(store, 150)
    run = add_run(store, "busy", {i: ("ok", wrong_label(store.claims.get(i).label)) for i in ids})
    predictions = {i: store.runs.prediction(run.id, i).id for i in ids}
    plan = [(predictions[i], name) for i in ids[:40] for name in ("ana", "ben")]
    store.assignments.create_round(run.id, "run:busy wrong", ["ana", "ben"], 1.0, 2, 3, True, "lead", plan)
    labels = tmp_path / "cli.csv"
    with labels.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["claim", "annotator", "categories"])
        writer.writerows([(i, "cli", "flawed-reasoning") for i in ids])
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    tuis = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.team_tui_writer", str(db_path), name, "busy", str(PER_TUI)],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name in ("ana", "ben")
    ]
    for tui in tuis:  # both have their queue open: now everyone writes at once
        assert tui.stdout.readline().strip() == "ready"
    for tui in tuis:
        tui.stdin.write("go\n")
        tui.stdin.flush()
    code = "import sys; from workbench.cli import main; sys.exit(main())"
    importer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            code,
            "--db",
            str(db_path),
            "--annotator",
            "lead",
            "triage",
            "import",
            str(labels),
            "--run",
            "busy",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    outputs = [process.communicate(timeout=600)[0] for process in (*tuis, importer)]
    assert [p.returncode for p in (*tuis, importer)] == [0, 0, 0], outputs
    assert "150 new" in outputs[2]
    check = Store.open(db_path)
    try:
        for name in ("ana", "ben"):
            progress = check.assignments.progress(run.id, name)
            assert progress.done == PER_TUI, (name, outputs)
            done = [i for i in ids[:40] if check.triage.label(predictions[i], name).done]
            assert len(done) == PER_TUI
            assert all(check.triage.label(predictions[i], name).category_ids == {1} for i in done)
        assert all(check.triage.label(predictions[i], "cli").category_ids == {2} for i in ids)
        rows = check.db.execute("SELECT annotator, count(*) FROM label_history GROUP BY annotator").fetchall()
        assert dict(rows) == {"ana": 2 * PER_TUI, "ben": 2 * PER_TUI, "cli": 2 * len(ids)}
    finally:
        check.close()
