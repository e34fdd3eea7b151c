"""The leaderboard CSV as users hand it in (review findings 3, 4 and 8): saved by Excel (a
UTF-8 BOM), columns in another order (the organisers read them by name), errors naming the
CSV's own lines rather than a temporary file, counts in words."""

from __future__ import annotations

from tests.support.ev2r import demo_submission_db
from tests.support.judging import cli
from tests.support.processes import opened_store

PAIR = "Who said it?\t\t\nThe minister.\t\t\n\n"


def row(*fields: str) -> str:
    return ",".join(f'"{f}"' if "\n" in f else f for f in fields) + "\r\n"


def test_an_excel_csv_with_columns_in_another_order_is_read_by_name(db_path, tmp_path):
    demo_submission_db(db_path)
    path = tmp_path / "excel.csv"
    text = row("label", "claim", "id", "evi") + row("Refuted", "A claim", "0", PAIR)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    done = cli(db_path, "import-submission", str(path), "--dataset", "averitec", "--run", "excel")
    assert done.exit_code == 0, done.output
    assert "1 answer matched by id" in done.output
    with opened_store(db_path) as store:
        (prediction,) = store.runs.predictions(store.runs.get("excel").id)
    assert prediction.verdict == "Refuted"
    assert prediction.parsed["evidence"][0]["answer"] == "The minister."


def test_a_header_without_a_needed_column_names_it(db_path, tmp_path):
    demo_submission_db(db_path)
    path = tmp_path / "short.csv"
    path.write_text(row("id", "claim", "label") + row("0", "A claim", "Refuted"))
    done = cli(db_path, "import-submission", str(path), "--dataset", "averitec", "--run", "short")
    assert done.exit_code != 0 and f"{path}: line 1: no column evi" in done.output
    with opened_store(db_path) as store:
        assert store.runs.get("short") is None


def test_a_repeated_id_names_the_csvs_own_lines(db_path, tmp_path):
    demo_submission_db(db_path)
    path = tmp_path / "twice.csv"
    header = row("id", "claim", "evi", "label", "split")
    path.write_text(header + row("0", "A", PAIR, "Refuted", "pred") + row("0", "B", PAIR, "Refuted", "pred"))
    done = cli(db_path, "import-submission", str(path), "--dataset", "averitec", "--run", "twice")
    assert done.exit_code != 0
    # each row's evi spans four lines: the rows start on lines 2 and 6
    assert f"{path}:6: '0' matches the same claim as the prediction on line 2" in done.output
    assert ".json" not in done.output
    with opened_store(db_path) as store:
        assert store.runs.get("twice") is None
