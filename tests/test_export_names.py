"""Mistyped run and dataset names in the submission, interchange and Ev2R commands get the
closest names (review finding 6), a judge run's resume hint names its own command and
export-run's files get the usual mode (finding 8)."""

from __future__ import annotations

import os
import stat

import pytest

from store import Run
from tests.support.ev2r import SUBMISSION, demo_submission_db
from tests.support.judging import cli
from tests.support.processes import opened_store
from workbench.interchange.croissant import CroissantError, CroissantOptions, write_croissant
from workbench.interchange.files import as_a_new_file
from workbench.interchange.inspect_import import LogImportRequest, import_inspect_log

TYPO = "demo-sb"


@pytest.mark.parametrize(
    "command",
    [
        ["export-submission", TYPO, "-o", "out.csv"],
        ["export-run", TYPO, "-o", "out.eval"],
        ["ev2r", TYPO, "--judge", "openai-compatible:llama", "--base-url", "http://127.0.0.1:9"],
    ],
)
def test_a_mistyped_run_gets_the_closest_name(db_path, command):
    demo_submission_db(db_path)
    done = cli(db_path, *command)
    assert done.exit_code != 0 and f"no {'fact-checking ' * (command[0] == 'ev2r')}run {TYPO!r}" in done.output
    assert f"did you mean {SUBMISSION}?" in done.output


def test_ev2r_says_how_many_runs_a_cut_list_leaves_out(db_path):
    demo_submission_db(db_path)
    with opened_store(db_path) as store:
        ids = store.claims.ids("dataset:averitec")
        for n in range(10):
            store.runs.create(Run(name=f"other-{n}", model="imported:x", dataset_id=1, status="finished"), ids[:1])
    done = cli(db_path, "ev2r", "zzz", "--judge", "openai-compatible:llama", "--base-url", "http://127.0.0.1:9")
    assert done.exit_code != 0 and "and 3 more" in done.output


def test_a_mistyped_dataset_gets_the_closest_name(db_path, tmp_path):
    demo_submission_db(db_path)
    with opened_store(db_path) as store:
        with pytest.raises(Exception, match="did you mean averitec"):
            import_inspect_log(store, LogImportRequest(tmp_path / "log.eval", "avertec"))
        with pytest.raises(CroissantError, match="did you mean averitec"):
            write_croissant(store, "avertec", tmp_path / "out", CroissantOptions("cc-by-4.0"))


def test_resuming_an_ev2r_judge_run_points_at_the_ev2r_command(db_path):
    demo_submission_db(db_path)
    with opened_store(db_path) as store:
        target = store.runs.get(SUBMISSION)
        ids = store.runs.claim_ids(target.id)[:1]
        judge = Run(name="j-ev2r-qa", model="x", dataset_id=1, kind="ev2r", target_run_id=target.id)
        store.runs.create(judge, ids)
    done = cli(db_path, "run", "--resume", "j-ev2r-qa")
    assert done.exit_code != 0 and "ev2r RUN` again (RUN: the run it judges)" in done.output
    assert "contamination run" not in done.output


def test_export_run_writes_a_file_others_may_read_as_the_umask_allows(db_path, tmp_path):
    demo_submission_db(db_path)
    out = tmp_path / "entry.yaml"
    before = os.umask(0o022)
    try:
        done = cli(
            db_path, "export-run", SUBMISSION, "-o", str(out), "--format", "hf-eval-results", "--hf-dataset", "a/b"
        )
        assert done.exit_code == 0, done.output
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        os.umask(0o077)
        as_a_new_file(out)
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
    finally:
        os.umask(before)
