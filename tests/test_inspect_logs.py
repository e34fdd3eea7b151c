"""Runs out as Inspect AI eval logs and back (issue 36): written by `export-run`, read by
inspect_ai's own `read_eval_log`; imported by `import-run` with the same verdicts and metrics.
The runs are real ones, answered by a loopback model server."""

from __future__ import annotations

import importlib.util
import json
import math
import socket
from urllib.parse import quote

import httpx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.loopback_search import SearchServer
from tests.loopback_servers import LoopbackServer, ToolUse
from tests.run_fixtures import load_mini, write_mini
from tests.support.interchange import (
    INTERCHANGE_PYTHON,
    interchange_process,
    needs_interchange_venv,
    python_there,
    workbench_there,
)
from tests.support.judging import scripted_judge
from tests.support.processes import opened_store
from workbench.cli import main
from workbench.importers import import_file
from workbench.scoring.runs import score_run

VERDICTS = ["Supported", "Refuted", "NotEnoughInfo", "maybe?"]


def cli(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], terminal_width=120)


def mixed_answer(body) -> str:
    """Verdicts that vary with the prompt, one in four not a label (a parse failure)."""
    text = json.dumps(body["messages"])
    verdict = VERDICTS[sum(map(ord, text)) % 4]
    return json.dumps({"verdict": verdict, "explanation": f"[bold]because[/] {len(text)}"})


@pytest.fixture
def demo_run(demo_store, db_path):
    """A finished run of a loopback model over the demo dataset, in its template and setting."""
    with LoopbackServer("openai", answer=mixed_answer) as server:
        result = cli(
            db_path, "run", "--dataset", "demo", "--model", "openai-compatible:loop", "--base-url", server.url,
            "--setting", "claim+time", "--name", "loop", "--concurrency", "2",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return db_path


READ_BACK = """
import json, sys
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1])
print(json.dumps({
    "status": log.status, "model": log.eval.model, "task_args": log.eval.task_args,
    "temperature": log.eval.model_generate_config.temperature,
    "metrics": {k: m.value for k, m in log.results.scores[0].metrics.items()},
    "samples": [{
        "id": s.id, "target": s.target, "roles": [m.role for m in s.input],
        "input": [m.text for m in s.input], "output": s.output.completion,
        "verdict": s.scores["verdict"].answer, "value": s.scores["verdict"].value,
        "tool_calls": [c.function for m in s.messages if m.role == "assistant" for c in (m.tool_calls or [])],
        "tool_results": [m.text for m in s.messages if m.role == "tool"],
        "metadata": s.metadata,
    } for s in log.samples],
}))
"""


@needs_interchange_venv
def test_a_run_exported_as_an_eval_log_reads_back_with_inspect(demo_run, tmp_path):
    out = tmp_path / "loop.eval"
    done = workbench_there(demo_run, "export-run", "loop", "--format", "inspect", "-o", out)
    assert done.returncode == 0, done.stderr
    assert f"wrote 24 samples of run loop to {out}" in done.stdout
    log = python_there(READ_BACK, out)
    with opened_store(demo_run) as store:
        run = store.runs.get("loop")
        predictions = {store.claims.get(p.claim_id).external_id: p for p in store.runs.predictions(run.id)}
        gold = {c.external_id: c for c in (store.claims.get(i) for i in store.claims.ids("dataset:demo"))}
        macro_f1 = score_run(store, run.id).full.overall.summary.macro_f1
    assert log["status"] == "success" and log["model"] == "openai-compatible:loop"
    assert log["task_args"]["setting"] == "claim+time" and log["task_args"]["template"] == "jsfactcheck"
    assert math.isclose(log["metrics"]["macro_f1"], macro_f1, abs_tol=1e-12)
    assert len(log["samples"]) == 24
    for sample in log["samples"]:
        prediction, claim = predictions[sample["id"]], gold[sample["id"]]
        assert sample["target"] == (claim.label or "")
        assert sample["output"] == prediction.raw_output and sample["verdict"] == prediction.verdict
        assert sample["roles"][-1] == "user" and claim.text in sample["input"][-1]  # the prompt as rendered
        assert sample["metadata"]["importance"] == claim.importance
        assert sample["metadata"]["status"] == prediction.status
        assert sample["value"] == {"correct": "C", "unscored": "N"}.get(prediction.outcome, "I")


@needs_interchange_venv
def test_export_then_import_gives_the_same_verdicts_and_metrics(demo_run, tmp_path):
    out = tmp_path / "loop.eval"
    assert workbench_there(demo_run, "export-run", "loop", "-o", out).returncode == 0
    done = workbench_there(demo_run, "import-run", out, "--dataset", "demo", "--run", "back", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["matched"] == 24 and report["matched_by"] == {"id": 24} and report["unmatched"] == []
    with opened_store(demo_run) as store:
        first, back = store.runs.get("loop"), store.runs.get("back")
        before = {p.claim_id: (p.status, p.verdict) for p in store.runs.predictions(first.id)}
        after = {p.claim_id: (p.status, p.verdict) for p in store.runs.predictions(back.id)}
        a, b = (score_run(store, r.id).full.overall for r in (first, back))
    assert after == before and "parse_failure" in {status for status, _ in before.values()}
    for name in ("accuracy", "macro_f1", "mcc", "unknown_rate", "parse_failure_rate"):
        x, y = getattr(a.summary, name), getattr(b.summary, name)
        assert x == pytest.approx(y, abs=1e-12, nan_ok=True), name
    again = json.loads(
        workbench_there(demo_run, "import-run", out, "--dataset", "demo", "--run", "back", "--json").stdout
    )
    assert again["already_imported"] is True
    with opened_store(demo_run) as store:
        assert sorted(r.name for r in store.runs.list()) == ["back", "loop"]


FOREIGN_LOG = """
import json, sys
from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score
texts = json.loads(sys.argv[2])
def sample(n, text, output, answer=None):
    scores = {"match": Score(value="C", answer=answer)} if answer else {}
    return EvalSample(id=n, epoch=1, input=text, target="x", output=ModelOutput.from_content("m", output), scores=scores)
samples = [
    sample(1, texts[0], "whatever", answer="refuted"),
    sample(2, texts[1], "Verdict: Supported. The register agrees."),
    sample(3, "A claim nobody made", "Verdict: Refuted"),
]
spec = EvalSpec(created="2026-01-01T00:00:00", task="t", dataset=EvalDataset(name="d"), model="other/m", config=EvalConfig())
write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), sys.argv[1])
print("null")
"""


@needs_interchange_venv
def test_a_log_made_elsewhere_matches_by_input_text_and_lists_what_does_not_match(store, db_path, tmp_path):
    load_mini(store, tmp_path)
    texts = [store.claims.get(i).text for i in store.claims.ids("dataset:mini")[:2]]
    log = tmp_path / "elsewhere.eval"
    python_there(FOREIGN_LOG, log, json.dumps(texts))
    dry = workbench_there(db_path, "import-run", log, "--dataset", "mini", "--dry-run")
    assert "would import 2 samples (2 by input text)" in dry.stdout and store.runs.list() == []
    done = workbench_there(db_path, "import-run", log, "--dataset", "mini")
    assert done.returncode == 0, done.stderr
    assert "imported as run imported-other/m: 2 samples (2 by input text)" in done.stdout
    assert "1 samples match no claim and were not imported: 3" in done.stdout
    run = store.runs.get("imported-other/m")
    found = {store.claims.get(p.claim_id).text: (p.status, p.verdict) for p in store.runs.predictions(run.id)}
    assert found == {texts[0]: ("ok", "Refuted"), texts[1]: ("ok", "Supported")}  # score's answer; parsed output


@needs_interchange_venv
def test_a_file_that_is_not_an_eval_log_is_refused_and_nothing_is_written(store, db_path, tmp_path):
    load_mini(store, tmp_path)
    bad = tmp_path / "notes.eval"
    bad.write_text("not a zip", encoding="utf-8")
    done = workbench_there(db_path, "import-run", bad, "--dataset", "mini")
    assert done.returncode == 1 and f"{bad}: not a readable Inspect eval log" in done.stderr
    assert store.runs.list() == []


def one_search(body):
    if not any(m.get("role") == "tool" for m in body["messages"]):
        return ToolUse([("search", {"query": "Lantern Bridge"})], "Let me look.")
    return '{"verdict": "Refuted", "explanation": "The register says otherwise."}'


@needs_interchange_venv
def test_a_search_runs_steps_become_tool_calls_and_results(store, db_path, tmp_path):
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
    out = tmp_path / "agent.eval"
    assert workbench_there(db_path, "export-run", "agent", "-o", out).returncode == 0
    sample = python_there(READ_BACK, out)["samples"][0]
    assert sample["tool_calls"] == ["search"]
    assert "Lantern Bridge" in sample["tool_results"][0] and "bridges.example.org/lantern" in sample["tool_results"][0]


def test_without_the_inspect_extra_the_commands_say_how_to_install_it(demo_run, tmp_path):
    if importlib.util.find_spec("inspect_ai") is not None:
        pytest.skip("inspect_ai is installed in this venv (the main venv has it not)")
    result = cli(demo_run, "export-run", "loop", "-o", tmp_path / "x.eval")
    assert result.exit_code == 1 and "pip install 'factcheck-workbench[inspect]'" in result.output
    assert not (tmp_path / "x.eval").exists()


CROISSANT_READ = """
import json, sys
import mlcroissant as mlc
dataset = mlc.Dataset(jsonld=sys.argv[1] + "/croissant.json")
claims = [{k.split("/")[-1]: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in r.items()}
          for r in dataset.records(record_set="claims")]
labels = [(lambda v: v.decode() if isinstance(v, bytes) else v)(r["labels/label"]) for r in dataset.records(record_set="labels")]
meta = json.load(open(sys.argv[1] + "/croissant.json"))
print(json.dumps({"claims": claims, "labels": labels, "collection": meta.get("rai:dataCollection"),
                  "license": meta.get("license"), "version": meta.get("version")}))
"""


@needs_interchange_venv
def test_a_curated_benchmark_exports_as_croissant_that_mlcroissant_reads(demo_store, db_path, tmp_path):
    from workbench.cli.demo import load_claimreview_demo

    load_claimreview_demo(demo_store)
    kept = demo_store.curation.kept_count(demo_store.datasets.get("demo-claimreview").id)
    out = tmp_path / "bench"
    done = workbench_there(db_path, "export-croissant", "demo-claimreview", "-o", out, "--license", "CC-BY-4.0")
    assert done.returncode == 0, done.stderr[-2000:]
    found = python_there(CROISSANT_READ, out)
    assert len(found["claims"]) == kept < len(demo_store.claims.ids("dataset:demo-claimreview"))
    assert {c["label"] for c in found["claims"]} <= set(found["labels"]) and found["license"] == "CC-BY-4.0"
    assert "Curation funnel:" in found["collection"] and "removed" in found["collection"]
    again = workbench_there(db_path, "export-croissant", "demo-claimreview", "-o", out, "--license", "CC-BY-4.0")
    assert again.returncode == 1 and "is not empty" in again.stderr
    assert found["version"] == "1.0.0"  # the first release, unless --version says otherwise


@needs_interchange_venv
def test_a_croissant_export_carries_the_release_given_and_refuses_one_that_is_no_version(demo_store, db_path, tmp_path):
    from workbench.cli.demo import load_claimreview_demo

    load_claimreview_demo(demo_store)
    export = ("export-croissant", "demo-claimreview", "--license", "CC-BY-4.0", "--version")
    done = workbench_there(db_path, *export, "2.1.0", "-o", tmp_path / "v2")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "v2" / "croissant.json").read_text(encoding="utf-8"))["version"] == "2.1.0"
    refused = workbench_there(db_path, *export, "v2 final", "-o", tmp_path / "bad")
    assert refused.returncode == 1 and "--version 'v2 final' is not MAJOR.MINOR.PATCH" in refused.stderr
    assert not (tmp_path / "bad").exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_runs_score_becomes_a_hugging_face_eval_results_entry(demo_run, tmp_path):
    import yaml

    out = tmp_path / "jsfactcheck.yaml"
    missing = cli(demo_run, "export-run", "loop", "--format", "hf-eval-results", "-o", out)
    assert missing.exit_code == 1 and "needs --hf-dataset OWNER/NAME" in missing.output and not out.exists()
    done = cli(demo_run, "export-run", "loop", "--format", "hf-eval-results", "--hf-dataset", "org/bench", "-o", out)
    assert done.exit_code == 0, done.output
    (entry,) = yaml.safe_load(out.read_text(encoding="utf-8"))
    with opened_store(demo_run) as store:
        overall = score_run(store, store.runs.get("loop").id).full.overall
    assert entry["dataset"] == {"id": "org/bench"} and entry["value"] == round(overall.summary.macro_f1 * 100, 2)
    assert "setting claim+time" in entry["notes"] and "95% bootstrap interval" in entry["notes"]
    assert len(str(entry["date"])) == 10  # an ISO date, as the Hub's format takes it


claim_texts = st.lists(
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60).filter(str.strip)
    | st.sampled_from(["[bold]x[/]", "[/", "[link=x]y", "\x1b[31mred", "富士山の標高は3776 m"]),
    min_size=2,
    max_size=4,
    unique_by=str.strip,
).filter(lambda texts: "A claim nobody made" not in texts)


@needs_interchange_venv
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=claim_texts)
def test_a_logs_input_finds_its_claim_whatever_the_claims_text(tmp_path_factory, texts):
    folder = tmp_path_factory.mktemp("claims")
    claims = [{"id": f"h{n}", "claim": text, "label": "Refuted"} for n, text in enumerate(texts)]
    with opened_store(folder / "w.db") as store:
        import_file(store, write_mini(folder, claims), "jsonl")
        stored = [store.claims.get(i).text for i in store.claims.ids("dataset:mini")]
    log = folder / "elsewhere.eval"
    python_there(FOREIGN_LOG, log, json.dumps(texts[:2]))
    done = workbench_there(folder / "w.db", "import-run", log, "--dataset", "mini", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["matched_by"] == {"input text": 2}, (texts, stored)
    assert report["unmatched"] == ["3"] and report["claims_without_prediction"] == len(texts) - 2


@needs_interchange_venv
def test_inspect_view_serves_the_exported_log(demo_run, tmp_path):
    """`inspect view` itself (its server on loopback) lists the log and reads it whole."""
    folder = tmp_path / "logs"
    folder.mkdir()
    assert workbench_there(demo_run, "export-run", "loop", "-o", folder / "loop.eval").returncode == 0
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    inspect_cli = INTERCHANGE_PYTHON.parent / "inspect"  # the command inspect-ai installs
    view = interchange_process(inspect_cli, "view", "--log-dir", folder, "--host", "127.0.0.1", "--port", port)
    try:
        for line in view.stdout:  # the server says when it listens
            if "Running on" in line:
                break
        base = f"http://127.0.0.1:{port}/api"
        listed = httpx.get(f"{base}/logs", timeout=30).json()["files"]
        assert [f["task"] for f in listed] == ["workbench/demo"]
        log = httpx.get(f"{base}/logs/{quote(listed[0]['name'], safe='')}", timeout=60).json()
    finally:
        view.terminate()
        view.wait(timeout=30)
    assert log["eval"]["model"] == "openai-compatible:loop" and len(log["samples"]) == 24


JUDGED_READ = """
import json, sys
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1])
print(json.dumps({
    "note": log.eval.metadata.get("input_note"),
    "samples": {s.id: {"eq": s.scores["explanation_quality"].value if "explanation_quality" in s.scores else None,
                       "flags": s.metadata.get("flags", []), "categories": s.metadata.get("failure_categories", [])}
                for s in log.samples},
}))
"""


@needs_interchange_venv
def test_explanation_quality_flags_and_failure_categories_go_with_each_sample(judged_db, tmp_path):
    with LoopbackServer("openai", answer=scripted_judge) as server:
        judged = cli(judged_db, "judge", "sys-a", "--judge", "openai-compatible:judge", "--base-url", server.url)
    assert judged.exit_code == 0, judged.output
    with opened_store(judged_db) as store:
        run = store.runs.get("sys-a")
        eq = {
            store.claims.get(j.claim_id).external_id: j.score
            for j in store.judging.scores(store.runs.judge_runs(run.id)[0].id)
        }
        first = store.runs.predictions(run.id)[0]
        store.annotations.flag([first.claim_id], "contaminated")
        category = next(c for c in store.annotations.categories() if c.name == "Knowledge Error")
        store.annotations.toggle_category(first.id, category.id)
        first_id = store.claims.get(first.claim_id).external_id
    out = tmp_path / "sys-a.eval"
    assert workbench_there(judged_db, "export-run", "sys-a", "-o", out).returncode == 0
    found = python_there(JUDGED_READ, out)
    assert {key: s["eq"] for key, s in found["samples"].items()} == eq and len(eq) == 30
    assert found["samples"][first_id]["flags"] == ["contaminated"]
    assert found["samples"][first_id]["categories"] == ["Knowledge Error"]
    assert sum(bool(s["flags"]) for s in found["samples"].values()) == 1
    assert "inputs are the claim text" in found["note"]  # no template: said, not hidden
