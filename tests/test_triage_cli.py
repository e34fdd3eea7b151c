"""Triage from the command line (issue 23, items 2, 3, 4, 7 and the bad input): assign,
queue, label, import/export, agreement, adjudicate, history, on real database files."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from store import Store
from tests.support.tui import HOSTILE, add_run, wrong_label
from workbench.cli import main


def cli(db_path, *args, annotator: str | None = None):
    extra = ["--annotator", annotator] if annotator is not None else []
    return CliRunner().invoke(main, ["--db", str(db_path), *extra, *args], terminal_width=120)


@pytest.fixture
def wrong_run(demo_store):
    """A run on the demo claims: every scored claim answered, two in three wrong."""
    store = demo_store
    ids = store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")
    answers = {
        i: ("ok", store.claims.get(i).label if n % 3 == 0 else wrong_label(store.claims.get(i).label))
        for n, i in enumerate(ids)
    }
    run = add_run(store, "alpha", answers)
    return store, run, store.claims.ids("run:alpha wrong")


def labels_of(store: Store, run_id: int) -> dict[tuple[str, str], tuple[list[str], bool, str | None]]:
    found = {}
    for claim_id in store.claims.ids(f"run:{run_id}"):
        prediction = store.runs.prediction(run_id, claim_id)
        slugs = {c.id: c.slug for c in store.annotations.categories()}
        for name, label in store.triage.labels(prediction.id).items():
            found[(store.claims.get(claim_id).external_id, name)] = (
                sorted(slugs[i] for i in label.category_ids),
                label.done,
                label.note,
            )
    return found


def test_assign_hands_out_evenly_with_an_overlap_and_the_seed_repeats_it(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    result = cli(
        db_path,
        "triage",
        "assign",
        "--where",
        "run:alpha wrong",
        "--annotators",
        "ana,ben,cy",
        "--overlap",
        "0.5",
        "--seed",
        "11",
    )
    assert result.exit_code == 0, result.output
    given = store.assignments.progress_by_annotator(run.id)
    loads = [p.assigned for p in given.values()]
    shared = round(0.5 * len(wrong))
    assert sum(loads) == len(wrong) + shared and max(loads) - min(loads) <= 1
    owners = {}
    for name in given:
        for item in store.assignments.queue(run.id, name, limit=1000):
            owners.setdefault(item.claim_id, []).append(name)
    assert sorted(owners) == sorted(wrong) and sum(len(v) == 2 for v in owners.values()) == shared
    again = cli(db_path, "triage", "assign", "--where", "run:alpha wrong", "--annotators", "ana,ben,cy")
    assert again.exit_code == 0 and "nothing new to assign" in again.output
    assert store.assignments.progress_by_annotator(run.id) == given  # nothing handed out twice
    other = Store.open(tmp_path / "copy.db")
    try:  # the same seed on the same answers makes the same queues
        from workbench.cli.demo import load_demo
        from workbench.triage.assign import plan_assignments

        load_demo(other)
        first = plan_assignments(list(range(20)), ["ana", "ben", "cy"], 0.5, 2, 11)
        assert first == plan_assignments(list(range(20)), ["ana", "ben", "cy"], 0.5, 2, 11)
        assert first != plan_assignments(list(range(20)), ["ana", "ben", "cy"], 0.5, 2, 12)
    finally:
        other.close()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--where", "", "--annotators", "ana"], "--where needs a filter that names a run"),
        (["--where", "   ", "--annotators", "ana"], "--where needs a filter that names a run"),
        (["--where", "label:Supported", "--annotators", "ana"], "names no run"),
        (["--where", "run:alpha wrong label:Unclear", "--annotators", "ana"], "nothing was assigned"),
        (["--where", "run:nope wrong", "--annotators", "ana"], "no run named 'nope'"),
        (["--where", "run:alpha wrong", "--annotators", "ana", "--overlap", "0.3"], "needs two annotators"),
        (["--where", "run:alpha wrong", "--annotators", "ana,ben", "--overlap", "1.5"], "share from 0 to 1"),
        (["--where", "run:alpha wrong", "--annotators", "ana,ana"], "names 'ana' twice"),
        (["--where", "run:alpha wrong", "--annotators", ","], "at least one name"),
    ],
)
def test_assigning_nothing_or_nonsense_is_refused_and_writes_nothing(wrong_run, db_path, args, message):
    store, run, _ = wrong_run
    result = cli(db_path, "triage", "assign", *args)
    assert result.exit_code == 1 and message in result.output, result.output
    assert store.assignments.rounds(run.id) == []


def test_my_queue_lists_what_is_left(wrong_run, db_path):
    store, run, wrong = wrong_run
    cli(db_path, "triage", "assign", "--where", "run:alpha wrong", "--annotators", "ana,ben", "--seed", "1")
    queue = json.loads(cli(db_path, "triage", "queue", "alpha", "--json", annotator="ana").output)
    first = queue["items"][0]
    assert queue["assigned"] == queue["left"] and queue["done"] == 0 and first["position"] == 0
    assert (
        cli(
            db_path,
            "triage",
            "label",
            "alpha",
            str(first["claim_id"]),
            "--categories",
            "knowledge-error",
            annotator="ana",
        ).exit_code
        == 0
    )
    after = json.loads(cli(db_path, "triage", "queue", "alpha", "--json", annotator="ana").output)
    assert after["done"] == 1 and first["claim_id"] not in [i["claim_id"] for i in after["items"]]
    nobody = cli(db_path, "triage", "queue", "alpha", annotator="zed")
    assert nobody.exit_code == 0 and "nothing assigned to you" in nobody.output


def write_csv(path, rows, header=("claim", "annotator", "categories", "note")):
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_import_is_idempotent_and_export_gives_the_same_labels_back(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    refs = [f"demo:{store.claims.get(i).external_id}" for i in wrong[:3]]
    path = write_csv(
        tmp_path / "labels.csv",
        [
            (refs[0], "ana", "knowledge-error", "misremembers the year"),
            (refs[0], "ben", "Knowledge Error;flawed-reasoning", ""),
            (refs[1], "ana", "", "none of these fits"),
            (refs[2], "ben", "misleading-information", ""),
        ],
    )
    first = cli(db_path, "triage", "import", str(path), "--run", "alpha")
    assert first.exit_code == 0 and "4 new, 0 changed, 0 as they were" in first.output, first.output
    before = labels_of(store, run.id)
    history = len(store.triage.history(wrong[0]))
    again = cli(db_path, "triage", "import", str(path), "--run", "alpha")
    assert "0 new, 0 changed, 4 as they were" in again.output
    assert labels_of(store, run.id) == before and len(store.triage.history(wrong[0])) == history
    exported = cli(db_path, "triage", "export", "alpha", "--format", "jsonl", "-o", str(tmp_path / "out.jsonl"))
    assert exported.exit_code == 0 and "wrote 4 labels" in exported.output
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert {(r["claim"], r["annotator"]) for r in lines} == {
        (refs[0], "ana"),
        (refs[0], "ben"),
        (refs[1], "ana"),
        (refs[2], "ben"),
    }
    back = cli(db_path, "triage", "import", str(tmp_path / "out.jsonl"))
    assert "0 new, 0 changed, 4 as they were" in back.output, back.output
    rows = list(csv.DictReader(io.StringIO(cli(db_path, "triage", "export", "alpha").output)))
    assert rows[0]["categories"] == "knowledge-error" and rows[0]["run"] == "alpha"


def test_a_file_with_bad_rows_is_refused_whole_with_each_row_named(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    ref = f"demo:{store.claims.get(wrong[0]).external_id}"
    right = next(i for i in store.claims.ids("run:alpha right"))
    path = write_csv(
        tmp_path / "bad.csv",
        [
            (ref, "ana", "knowledge-error", ""),
            ("demo:no-such-claim", "ana", "knowledge-error", ""),
            (ref, "ben", "knowledge-error;made-up-category", ""),
            (ref, "", "knowledge-error", ""),
            (ref, "ana", "flawed-reasoning", ""),
            (
                f"demo-realfact:{store.claims.get(store.claims.ids('dataset:demo-realfact')[0]).external_id}",
                "cy",
                "",
                "",
            ),
        ],
    )
    result = cli(db_path, "triage", "import", str(path), "--run", "alpha")
    assert result.exit_code == 1 and "nothing was imported" in result.output
    out = " ".join(result.output.split())
    assert "bad.csv: line 3: claim: no claim 'demo:no-such-claim'" in out
    assert "bad.csv: line 4: categories: unknown category 'made-up-category'" in out
    assert "bad.csv: line 5: annotator:" in out and "empty" in out
    assert "bad.csv: line 6: categories: ana labels this answer differently on line 2" in out
    assert "line 7: claim:" in out and "has no answer from this run" in out
    assert labels_of(store, run.id) == {} and store.triage.history(wrong[0]) == []
    assert right  # a right answer could be labelled too: any answer of the run can


def test_a_jsonl_file_and_rows_naming_their_run(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(row)
            for row in [
                {"run": "alpha", "claim": wrong[0], "annotator": "ana", "categories": ["evidence-ignored"]},
                {
                    "run": "alpha",
                    "claim": wrong[0],
                    "annotator": "ben",
                    "categories": ["Evidence ignored"],
                    "done": False,
                },
            ]
        )
        + "\n\n"
    )
    assert cli(db_path, "triage", "import", str(path)).exit_code == 0
    labels = store.triage.labels(store.runs.prediction(run.id, wrong[0]).id)
    assert labels["ana"].done and not labels["ben"].done and labels["ana"].category_ids == labels["ben"].category_ids
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"claim": 1}\n{"claim": \n')
    result = cli(db_path, "triage", "import", str(broken), "--run", "alpha")
    assert result.exit_code == 1 and "broken.jsonl: line 2: not JSON" in result.output


def label_all(db_path, store, wrong, pairs):
    """Import labels: pairs of (ana's slugs, ben's slugs) for the first wrong answers."""
    rows = []
    for claim_id, (ana, ben) in zip(wrong, pairs):
        ref = f"demo:{store.claims.get(claim_id).external_id}"
        rows += [(ref, "ana", ana, ""), (ref, "ben", ben, "")] if ben is not None else [(ref, "ana", ana, "")]
    return rows


def test_agreement_json_has_every_figure_and_says_why_when_it_cannot(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    alone = write_csv(tmp_path / "alone.csv", label_all(db_path, store, wrong, [("knowledge-error", None)] * 3))
    cli(db_path, "triage", "import", str(alone), "--run", "alpha")
    found = json.loads(cli(db_path, "triage", "agreement", "alpha", "--json").output)
    assert found["unavailable"].startswith("only one annotator (ana)") and found["kappa"] is None
    assert "NaN" not in json.dumps(found)
    text = cli(db_path, "triage", "agreement", "alpha")
    assert text.exit_code == 0 and "no agreement figure: only one annotator (ana)" in " ".join(text.output.split())
    pairs = [
        ("knowledge-error", "knowledge-error"),
        ("flawed-reasoning", "flawed-reasoning"),
        ("knowledge-error", "flawed-reasoning"),
        ("misleading-information", "misleading-information"),
        ("knowledge-error;flawed-reasoning", "flawed-reasoning"),
        ("", ""),
    ]
    both = write_csv(tmp_path / "both.csv", label_all(db_path, store, wrong, pairs))
    cli(db_path, "triage", "import", str(both), "--run", "alpha")
    found = json.loads(cli(db_path, "triage", "agreement", "alpha", "--json", "--resamples", "200").output)
    assert found["unavailable"] is None and found["compared"] == 6 and found["kappa_name"] == "Cohen's kappa"
    assert found["exact"]["value"] == pytest.approx(4 / 6) and found["exact"]["low"] <= found["exact"]["high"]
    by_name = {c["category"]: c for c in found["categories"]}
    assert set(by_name) == {"Knowledge Error", "Flawed Reasoning", "Misleading Information"}
    assert by_name["Misleading Information"]["kappa"]["value"] == pytest.approx(1.0)
    assert found["confusion"]["labels"][-1] == "(none)" and found["pairs"][0]["shared"] == 6
    assert {a["annotator"] for a in found["annotators"]} == {"ana", "ben"}
    assert found["awaiting_adjudication"] == 2


def test_adjudication_never_overwrites_a_decision_unseen(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    pairs = [("knowledge-error", "flawed-reasoning"), ("knowledge-error", "knowledge-error")]
    cli(
        db_path,
        "triage",
        "import",
        str(write_csv(tmp_path / "l.csv", label_all(db_path, store, wrong, pairs))),
        "--run",
        "alpha",
    )
    queue = json.loads(cli(db_path, "triage", "adjudicate", "alpha", "--json").output)
    assert [item["claim_id"] for item in queue] == [wrong[0]]
    assert queue[0]["labels"] == {"ana": ["knowledge-error"], "ben": ["flawed-reasoning"]}
    first = cli(
        db_path,
        "triage",
        "adjudicate",
        "alpha",
        str(wrong[0]),
        "--categories",
        "flawed-reasoning",
        "--note",
        "the facts were right",
        annotator="cy",
    )
    assert first.exit_code == 0 and "decision 1" in first.output
    second = cli(
        db_path, "triage", "adjudicate", "alpha", str(wrong[0]), "--categories", "knowledge-error", annotator="dee"
    )
    words = " ".join(second.output.split())
    assert second.exit_code == 1 and "cy decided claim" in words and "Flawed Reasoning" in words
    assert "the facts were right" in words and "--over 1" in words
    assert store.triage.adjudication(store.runs.prediction(run.id, wrong[0]).id).adjudicator == "cy"
    third = cli(
        db_path,
        "triage",
        "adjudicate",
        "alpha",
        str(wrong[0]),
        "--categories",
        "knowledge-error",
        "--over",
        "1",
        annotator="dee",
    )
    assert third.exit_code == 0 and "decision 2" in third.output
    assert json.loads(cli(db_path, "triage", "adjudicate", "alpha", "--json").output) == []
    history = json.loads(cli(db_path, "triage", "history", str(wrong[0]), "--json").output)
    decisions = [h for h in history if h["kind"] == "adjudication"]
    assert [d["annotator"] for d in decisions] == ["dee", "cy"]  # newest first: both kept
    assert decisions[0]["old"]["by"] == "cy"


def test_final_labels_feed_the_breakdown_of_metrics_and_report(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    pairs = [
        ("knowledge-error", "flawed-reasoning"),
        ("knowledge-error", "knowledge-error"),
        ("misleading-information", None),
        ("", ""),
    ]
    cli(
        db_path,
        "triage",
        "import",
        str(write_csv(tmp_path / "l.csv", label_all(db_path, store, wrong, pairs))),
        "--run",
        "alpha",
    )
    report = json.loads(cli(db_path, "metrics", "alpha", "--json", "--resamples", "0").output)
    failures = report["runs"][0]["failure_categories"]
    assert failures["labelled"] == 4 and failures["final"] == 3 and failures["awaiting_adjudication"] == 1
    assert failures["counts"]["Knowledge Error"] == 1 and failures["counts"]["Misleading Information"] == 1
    assert failures["no_category"] == 1 and failures["wrong"] == len(wrong)
    cli(db_path, "triage", "adjudicate", "alpha", str(wrong[0]), "--categories", "flawed-reasoning", annotator="cy")
    markdown = cli(db_path, "report", "alpha", "--resamples", "0").output
    assert "| alpha | Flawed Reasoning | 1 | 0.250 | 4 final / 4 labelled / 0 awaiting |" in markdown
    labels = store.triage.labels(store.runs.prediction(run.id, wrong[0]).id)
    assert {c for label in labels.values() for c in label.category_ids} == {1, 2}  # people's own labels stay


def test_annotator_names_with_markup_and_escapes_print_literally(wrong_run, db_path, tmp_path):
    store, run, wrong = wrong_run
    name = HOSTILE
    path = write_csv(
        tmp_path / "h.csv",
        [(wrong[0], name, "knowledge-error", "[bold]note[/]"), (wrong[0], "ben", "flawed-reasoning", "")],
    )
    assert cli(db_path, "triage", "import", str(path), "--run", "alpha").exit_code == 0
    for args in (
        ("triage", "agreement", "alpha"),
        ("triage", "adjudicate", "alpha"),
        ("triage", "history", str(wrong[0])),
    ):
        out = cli(db_path, *args).output
        assert "\x1b" not in out and "\\x1b" in out, args  # the escape shown as text, never sent
    assert "[bold]x[/" in cli(db_path, "triage", "adjudicate", "alpha").output
    queue = cli(db_path, "triage", "queue", "alpha", annotator=name)
    assert queue.exit_code == 0 and "\x1b" not in queue.output and "[bold]x[/" in queue.output
    comma = cli(db_path, "triage", "queue", "alpha", annotator="a,b")
    assert comma.exit_code == 1 and "has a comma" in comma.output
    empty = cli(db_path, "triage", "queue", "alpha", annotator="  ")
    assert empty.exit_code == 1 and "is empty" in empty.output
