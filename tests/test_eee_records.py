"""Runs out as Every Eval Ever records (issue 36, item 3): `export-run --format eee` writes the
aggregate and one instance-level record per claim, checked here with the every-eval-ever
package's own validator (its datastore checks included) in .venv-interchange. The runs are
real ones: the demo's imported runs, and runs answered by a loopback model server."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.loopback_search import SearchServer
from tests.loopback_servers import Fault, LoopbackServer, ToolUse
from tests.run_fixtures import load_mini, write_mini
from tests.support.interchange import needs_interchange_venv, python_there, workbench_there
from tests.support.processes import opened_store
from workbench.cli import main
from workbench.cli.demo import load_demo_team
from workbench.importers import import_file
from workbench.importers.predictions import PredictionRequest, import_predictions

VERDICTS = ["Supported", "Refuted", "NotEnoughInfo", "maybe?"]
KEY = "sk-eee-test-secret-0123456789"

VALIDATE = """
import json, sys
from pathlib import Path
from every_eval_ever.validator.validation_core import validate_file
root = Path(sys.argv[1])
files = sorted(p.relative_to(root).as_posix() for p in root.glob("data/*/*/*/*.json*"))
reports = [validate_file(root / f, repo_path=f, available_files=set(files), run_semantic_checks=True,
                         read_repo_file=lambda p: (root / p).read_text(encoding="utf-8")) for f in files]
print(json.dumps([{"file": f, "valid": r.valid, "errors": r.errors, "warnings": r.warnings, "type": r.file_type}
                  for f, r in zip(files, reports)], default=str))
"""


def cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=120)


def mixed_answer(body) -> str:
    """Verdicts that vary with the prompt, one in four not a label (a parse failure)."""
    text = json.dumps(body["messages"])
    return json.dumps({"verdict": VERDICTS[sum(map(ord, text)) % 4], "explanation": f"[bold]why[/] {len(text)}"})


def export(db: Path, run: str, out: Path, *more: str):
    done = workbench_there(db, "export-run", run, "--format", "eee", "-o", out, "--organization", "Test lab", *more)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def validated(out: Path) -> tuple[dict, list[dict]]:
    """The package's validator on every file under `out` (each must pass, with no warning),
    then the one aggregate and its instance records."""
    reports = python_there(VALIDATE, out)
    assert {r["type"] for r in reports} == {"aggregate", "instance"}
    for report in reports:
        assert report["valid"] and not report["warnings"], report
    [aggregate] = [
        json.loads((out / r["file"]).read_text(encoding="utf-8")) for r in reports if r["type"] == "aggregate"
    ]
    samples = out / aggregate["detailed_evaluation_results"]["file_path"]
    return aggregate, [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]


def metrics_json(db: Path, run: str) -> dict:
    result = cli(db, "metrics", run, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["runs"][0]["all"]["overall"]


def results_by_id(aggregate: dict) -> dict[str, dict]:
    found = {}
    for result in aggregate["evaluation_results"]:
        config = result["metric_config"]
        label = (config.get("metric_parameters") or {}).get("class")
        found[config["metric_id"] + (f"/{label}" if label else "")] = result["score_details"]
    return found


@pytest.fixture
def loop_run(demo_store, db_path):
    """A finished run of a loopback model over the demo dataset, in its template and setting."""
    with LoopbackServer("openai", answer=mixed_answer) as server:
        result = cli(
            db_path, "run", "--dataset", "demo", "--model", "openai-compatible:loop", "--base-url", server.url,
            "--setting", "claim+time", "--name", "loop", "--concurrency", "2",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return db_path


@needs_interchange_venv
def test_a_run_exported_as_eee_records_passes_the_packages_validator_with_every_claim_once(loop_run, tmp_path):
    out = tmp_path / "eee"
    done = export(loop_run, "loop", out)
    aggregate, records = validated(out)
    listed = done.stdout.splitlines()  # the summary, then each file whole on a line of its own
    assert listed[0] == f"wrote 24 records of run loop to {out}"
    assert listed[2].strip() == aggregate["detailed_evaluation_results"]["file_path"]
    with opened_store(loop_run) as store:
        run = store.runs.get("loop")
        answers = [(store.claims.get(p.claim_id), p) for p in store.runs.predictions(run.id)]
    assert aggregate["model_info"]["name"] == "openai-compatible:loop"
    assert aggregate["source_metadata"]["source_organization_name"] == "Test lab"
    assert aggregate["detailed_evaluation_results"]["total_rows"] == len(records) == 24
    by_id = {r["sample_id"]: r for r in records}
    assert len(by_id) == 24 == len(answers)
    for claim, prediction in answers:
        record = by_id[claim.external_id]
        assert record["input"]["raw"] == claim.text and record["input"]["reference"] == [claim.label]
        assert claim.text in record["input"]["formatted"]  # the prompt as the run sent it
        assert record["output"]["raw"] == [prediction.raw_output]
        extracted = [a["extracted_value"] for a in record["answer_attribution"]]
        assert extracted == ([prediction.verdict] if prediction.verdict else [])
        assert record["evaluation"]["is_correct"] == (prediction.outcome == "correct")
        assert record["metadata"]["status"] == prediction.status
    assert "parse_failure" in {p.status for _, p in answers}


@needs_interchange_venv
def test_the_aggregate_figures_are_those_of_metrics_json(loop_run, tmp_path):
    export(loop_run, "loop", tmp_path / "eee")
    aggregate, _ = validated(tmp_path / "eee")
    found, expected = results_by_id(aggregate), metrics_json(loop_run, "loop")
    names = {"accuracy": "accuracy", "f1_macro": "macro_f1", "mcc": "mcc", "unknown_rate": "unknown_rate"}
    names |= {"parse_failure_rate": "parse_failure_rate", "error_rate": "error_rate", "coverage": "coverage"}
    for metric_id, name in names.items():
        assert math.isclose(found[metric_id]["score"], expected[name], rel_tol=0, abs_tol=1e-12), metric_id
    for name in ("accuracy", "macro_f1"):
        interval = found["accuracy" if name == "accuracy" else "f1_macro"]["uncertainty"]["confidence_interval"]
        assert math.isclose(interval["lower"], expected["intervals"][name]["low"], abs_tol=1e-12)
        assert math.isclose(interval["upper"], expected["intervals"][name]["high"], abs_tol=1e-12)
    for label, scores in expected["per_class"].items():
        for part in ("precision", "recall", "f1"):
            if scores[part] is not None and not math.isnan(scores[part]):
                assert math.isclose(found[f"{part}/{label}"]["score"], scores[part], abs_tol=1e-12)


@needs_interchange_venv
def test_japanese_claims_round_trip_literally(demo_store, db_path, tmp_path):
    load_demo_team(demo_store)  # the demo's runs: demo-checker-ja answered in Japanese
    out = tmp_path / "ja"
    export(db_path, "demo-checker-ja", out)
    _, records = validated(out)
    texts = {c.external_id: c.text for c in map(demo_store.claims.get, demo_store.claims.ids("dataset:demo-ja"))}
    assert {r["sample_id"]: r["input"]["raw"] for r in records} == texts
    raw = next(out.glob("data/*/*/*/*_samples.jsonl")).read_text(encoding="utf-8")
    assert any(ord(ch) > 0x3000 for ch in raw) and "\\u" not in raw  # written as text, not escaped


@needs_interchange_venv
def test_a_failed_answer_is_recorded_as_an_error_and_the_key_never_reaches_the_files(
    demo_store, db_path, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackServer("openai", answer=mixed_answer) as server:
        server.faults.append(Fault("echo_auth", 400))  # a server that repeats the credential back
        result = cli(
            db_path, "run", "--dataset", "demo", "--model", "openai:loop", "--base-url", server.url,
            "--name", "failing", "--concurrency", "1",
        )  # fmt: skip
    with opened_store(db_path) as store:
        failed = [p for p in store.runs.predictions(store.runs.get("failing").id) if p.status == "error"]
    assert len(failed) == 1, result.output
    out = tmp_path / "eee"
    export(db_path, "failing", out)
    aggregate, records = validated(out)
    [record] = [r for r in records if r.get("error")]
    assert record["evaluation"]["is_correct"] is False and record["answer_attribution"] == []
    assert "evaluation_result_id" not in record  # an API error is not scored: not part of accuracy
    assert math.isclose(results_by_id(aggregate)["error_rate"]["score"], metrics_json(db_path, "failing")["error_rate"])
    for path in out.rglob("*"):
        assert path.is_dir() or KEY not in path.read_text(encoding="utf-8")


def one_search(body):
    if not any(m.get("role") == "tool" for m in body["messages"]):
        return ToolUse([("search", {"query": "Lantern Bridge"})], "Let me look.")
    return '{"verdict": "Refuted", "explanation": "The register says otherwise."}'


@needs_interchange_venv
def test_a_search_runs_records_are_agentic_with_its_tool_calls(store, db_path, tmp_path):
    load_mini(store, tmp_path)
    rows = [{"url": "https://bridges.example.org/lantern", "title": "Lantern Bridge", "content": "Opened in 1901."}]
    with (
        SearchServer("searxng", results=lambda q: rows) as search,
        LoopbackServer("openai", answer=one_search) as model,
    ):
        result = cli(
            db_path, "run", "--dataset", "mini", "--model", "openai-compatible:agent", "--base-url", model.url,
            "--search", "searxng", "--search-url", search.url, "--concurrency", "1", "--name", "agent",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    export(db_path, "agent", tmp_path / "eee")
    _, records = validated(tmp_path / "eee")
    record = records[0]
    assert record["interaction_type"] == "agentic" and "output" not in record
    assert record["evaluation"]["tool_calls_count"] == 1
    roles = [m["role"] for m in record["messages"]]
    assert roles[:3] == ["user", "assistant", "tool"] and roles[-1] == "assistant"
    assert record["messages"][1]["tool_calls"][0] == {
        "id": "step-1",
        "name": "search",
        "arguments": {"query": "Lantern Bridge"},
    }
    assert "Lantern Bridge" in record["messages"][2]["content"]
    assert record["answer_attribution"][0]["source"] == f"messages[{len(roles) - 1}].content"


@needs_interchange_venv
def test_a_second_export_goes_beside_the_first_and_a_refused_one_writes_nothing(loop_run, tmp_path):
    out = tmp_path / "datastore"
    export(loop_run, "loop", out)
    export(loop_run, "loop", out, "--relationship", "first_party")
    written = [json.loads(p.read_text()) for p in out.glob("data/demo/openai-compatible/loop/*.json")]
    relationships = sorted(a["source_metadata"]["evaluator_relationship"] for a in written)
    assert relationships == ["first_party", "third_party"]
    reports = python_there(VALIDATE, out)
    assert len(reports) == 4 and all(r["valid"] and not r["warnings"] for r in reports), reports
    before = sorted(out.rglob("*"))
    bad = workbench_there(loop_run, "export-run", "loop", "--format", "eee", "-o", out, "--organization", "Lab",
                          "--model-id", "unknown/x")  # fmt: skip
    assert bad.returncode == 1 and "--model-id" in bad.stderr
    assert sorted(out.rglob("*")) == before
    blocked = tmp_path / "blocked"
    (blocked / "data" / "demo").mkdir(parents=True)
    (blocked / "data" / "demo" / "openai-compatible").write_text("a file where the folder goes")
    stuck = workbench_there(loop_run, "export-run", "loop", "--format", "eee", "-o", blocked, "--organization", "L")
    assert stuck.returncode == 1 and f"cannot write {blocked}" in stuck.stderr
    assert sorted(p.name for p in blocked.rglob("*")) == ["data", "demo", "openai-compatible"]  # no staging left
    none = workbench_there(loop_run, "export-run", "loop", "--format", "eee", "-o", tmp_path / "new")
    assert none.returncode == 1 and "--organization" in none.stderr and not (tmp_path / "new").exists()


def test_without_every_eval_ever_the_export_says_make_interchange(demo_store, db_path, tmp_path):
    if importlib.util.find_spec("every_eval_ever") is not None:
        pytest.skip("every_eval_ever is installed in this venv (the main venv has it not)")
    load_demo_team(demo_store)
    result = cli(
        db_path, "export-run", "demo-checker", "--format", "eee", "-o", tmp_path / "eee", "--organization", "L"
    )
    assert result.exit_code == 1 and "make interchange" in result.output
    assert not (tmp_path / "eee").exists()


claim_texts = st.lists(
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60).filter(str.strip)
    | st.sampled_from(["[bold]x[/]", '"quoted" \\ back', "\x1b[31mred", "富士山の標高は3776 m", "\u202eevil"]),
    min_size=1,
    max_size=4,
    unique_by=str.strip,
)
model_names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(str.strip)
verdicts = st.sampled_from(["Supported", "Refuted", "NotEnoughInfo", "支持", "", "[b]?"])


@needs_interchange_venv
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=claim_texts, model=model_names, answered=st.lists(verdicts, min_size=4, max_size=4))
@example(texts=["富士山の標高は3776 m"], model="what?", answered=["支持"] * 4)  # no datastore folder
@example(texts=["[bold]x[/]", "\u202eevil"], model="x y", answered=["Refuted", "", "?", "?"])
def test_any_claims_and_model_export_valid_or_say_why_and_write_nothing(tmp_path_factory, texts, model, answered):
    folder = tmp_path_factory.mktemp("eee")
    claims = [{"id": f"h{n}", "claim": text, "label": "Refuted"} for n, text in enumerate(texts)]
    answers = folder / "answers.jsonl"
    lines = [json.dumps({"id": f"h{n}", "verdict": answered[n], "model": model}) for n in range(len(texts))]
    answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with opened_store(folder / "w.db") as store:
        import_file(store, write_mini(folder, claims), "jsonl")
        import_predictions(store, PredictionRequest(answers, "mini", run_name="answers"))
        stored = {store.claims.get(i).external_id: store.claims.get(i).text for i in store.claims.ids("dataset:mini")}
    out = folder / "out"
    done = workbench_there(
        folder / "w.db", "export-run", "answers", "--format", "eee", "-o", out, "--organization", "L"
    )
    if done.returncode != 0:  # a model name that makes no datastore folder: said, nothing written
        assert done.returncode == 1 and "--model-id" in done.stderr, done.stderr[-2000:]
        assert not out.exists()
        given_id = ("--model-id", "someone/their-model")
        done = workbench_there(
            folder / "w.db", "export-run", "answers", "--format", "eee", "-o", out, "--organization", "L", *given_id
        )
        assert done.returncode == 0, done.stderr[-2000:]
    _, records = validated(out)
    assert {r["sample_id"]: r["input"]["raw"] for r in records} == stored
