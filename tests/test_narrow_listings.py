"""Issue 33, item 14 and its listing layout: every table the command line prints fits 60, 80,
100 and 140 columns without cutting an id or a name (`tour-2` beside `tour-3`: the suffix tells
runs apart), wraps text at words, and shortens paths keeping the file name."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from store import Dataset, HistoryEntry, LabelSpace, Prediction, Run
from store.claims import ClaimRow
from tests.support.narrow import assert_fits_and_keeps, drawn
from workbench.cli import main
from workbench.cli.data_commands import _claims_table, datasets_listing
from workbench.cli.import_commands import profiles_listing
from workbench.cli.prompt_commands import prompts_listing
from workbench.cli.run_reading_commands import predictions_listing, runs_listing
from workbench.render.listing import short_path
from workbench.render.models import models_listing
from workbench.render.searches import subset_grid
from workbench.render.triage_items import history_table
from workbench.search.stats import SearchStats, SubsetSearch

WIDTHS = (60, 80, 100, 140)
NAME = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_.:支持", min_size=1, max_size=28)
WORDS = st.lists(st.text("abcdefghijklmnopqrstuvwxyz/", min_size=1, max_size=14), min_size=1, max_size=14).map(" ".join)
FOLDERS = st.lists(st.text("abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=16), min_size=0, max_size=8)
FILE_NAME = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=30).map(lambda s: s + ".gguf")


def run_row(n: int, name: str, model: str) -> dict:
    return {
        "id": n,
        "name": name,
        "status": "finished",
        "kind": "answer",
        "of_run": None,
        "model": model,
        "prompt": "jsfactcheck",
        "setting": "claim+time+pages",
        "tokens_in": 123456,
        "tokens_out": 7890,
        "_usage_line": "2.10 s per claim (p95 4.02 s); cost unknown (no price for that model)",
        **dict.fromkeys(("total", "ok", "abstain", "parse_failure", "error", "missing", "cached"), 12345),
        "items_per_second": 1.5,
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(NAME, min_size=1, max_size=4, unique=True), NAME)
def test_runs_keep_every_name_whole_with_its_suffix(stems, model):
    names = [f"{stem}-{n}" for stem in stems for n in (2, 3)]  # alike but for the suffix
    rows = [run_row(i + 1, name, model) for i, name in enumerate(names)]
    for width in WIDTHS:
        listing = runs_listing([dict(row) for row in rows])
        assert_fits_and_keeps(listing, width, [*names, *(str(i + 1) for i in range(len(names)))])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, FOLDERS, FILE_NAME), min_size=1, max_size=3))
def test_models_keep_names_and_file_names_whole(models):
    rows = [
        {
            "name": name,
            "path": "/".join(["", *folders, file_name]),
            "source": "models_dir",
            "quantisation": "Q4_K_M",
            "parameters": 7_200_000_000,
            "context_length": 131072,
            "chat_template": True,
            "size": 4_700_000_000,
            "projector": None,
        }
        for name, folders, file_name in models
    ]
    for width in WIDTHS:
        assert_fits_and_keeps(models_listing(rows), width, [name for name, _, _ in models])
        lines = drawn(models_listing(rows), width)
        for _, _, file_name in models:
            assert any(re.search(rf"/{re.escape(file_name)}(\s|$)", line) for line in lines), file_name


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, st.lists(WORDS, min_size=1, max_size=5)), min_size=1, max_size=4))
def test_datasets_keep_names_and_counts_whole(datasets):
    records = [
        Dataset(
            name=name,
            source_format="averitec",
            label_space=LabelSpace(name="custom", labels=labels),
            imported_at="2026-12-04T01:00:00",
            claim_count=123_456,
        )
        for name, labels in datasets
    ]
    for width in WIDTHS:
        lines = assert_fits_and_keeps(datasets_listing(records), width, [name for name, _ in datasets])
        assert sum("123,456" in line for line in lines) == len(records)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, WORDS), min_size=1, max_size=4))
def test_profiles_wrap_descriptions_under_themselves(profiles):
    rows = [{"name": name, "builtin": True, "description": words} for name, words in profiles]
    for width in WIDTHS:
        lines = assert_fits_and_keeps(profiles_listing(rows), width, [name for name, _ in profiles])
        indent = max(cell_len(name) for name, _ in profiles) + 2
        continued = [line for line in lines[2:] if line.strip() and not any(line.startswith(n) for n, _ in profiles)]
        assert all(line[:indent].strip() == "" for line in continued)  # a hanging indent, never column 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(NAME, FOLDERS, NAME, WORDS), min_size=1, max_size=3))
def test_prompts_keep_names_and_file_names_whole(prompts):
    rows = [
        {
            "name": name,
            "label_space": space,
            "verdicts": description.split()[:4],
            "answer": "json",
            "description": description,
            "contexts": ["claim", "claim+time"],
            "evidence": ["none", "pages"],
            "path": "/".join(["", *folders, f"{name}.toml"]),
        }
        for name, folders, space, description in prompts
    ]
    for width in WIDTHS:
        lines = assert_fits_and_keeps(prompts_listing(rows), width, [name for name, *_ in prompts])
        for name, *_ in prompts:
            assert any(re.search(rf"/{re.escape(name)}\.toml(\s|$)", line) for line in lines)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, NAME, WORDS), min_size=1, max_size=4))
def test_predictions_keep_claim_ids_whole(answers):
    shown = [
        Prediction(run_id=1, claim_id=100_000 + n, status="ok", verdict=verdict, explanation=words)
        for n, (_, verdict, words) in enumerate(answers)
    ]
    claims = {100_000 + n: (external_id, "Supported") for n, (external_id, _, _) in enumerate(answers)}
    for width in WIDTHS:
        assert_fits_and_keeps(predictions_listing(shown, claims), width, [str(p.claim_id) for p in shown])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, NAME, WORDS), min_size=1, max_size=4))
def test_claims_keep_ids_whole(claims):
    rows = [
        ClaimRow(
            id=90_000 + n,
            external_id=external_id,
            dataset="demo",
            label=label,
            importance="Main",
            task=None,
            domain=None,
            claim_date=None,
            text=words,
        )
        for n, (external_id, label, words) in enumerate(claims)
    ]
    for width in WIDTHS:
        assert_fits_and_keeps(_claims_table(rows, width), width, [str(row.id) for row in rows])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, NAME, NAME, WORDS), min_size=1, max_size=4))
def test_triage_history_keeps_annotators_and_runs_whole(changes):
    entries = [
        HistoryEntry(n, 1, 1, run, "note", annotator, changer, None, words, "cli", "2026-12-04T01:59:00")
        for n, (annotator, changer, run, words) in enumerate(changes)
    ]
    for width in WIDTHS:
        whole = [name for annotator, _, run, _ in changes for name in (annotator, run)]
        assert_fits_and_keeps(history_table(entries), width, whole)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(WORDS, st.integers(0, 10**6), min_size=1, max_size=4), NAME)
def test_search_stats_keep_subset_names_and_counts_whole(subsets, field_name):
    stats = SearchStats(
        run=Run(name="searcher", model="gguf:default"),
        claims=sum(subsets.values()),
        searches=0,
        steps=0,
        searches_per_claim=0.0,
        by=field_name,
        subsets={value: SubsetSearch(n, 2.5, 0.25, n // 2) for value, n in subsets.items()},
    )
    for width in WIDTHS:
        lines = assert_fits_and_keeps(subset_grid(stats), width, [f"{n:,}" for n in subsets.values()])
        shown = " ".join(" ".join(lines).split())
        assert all(word in shown for value in subsets for word in value.split())  # wrapped, never cut


@given(FOLDERS, st.one_of(FILE_NAME, st.text("0123456789abcdef", min_size=37, max_size=80)), st.integers(1, 120))
def test_a_short_path_keeps_its_file_name(folders, file_name, width):
    path = "/".join(["", *folders, file_name])
    shown = short_path(path, width)
    assert cell_len(shown) <= max(width, min(cell_len(file_name), 36) + 2)
    assert shown == path or "…" in shown
    if cell_len(file_name) <= 36 or cell_len(file_name) + 2 <= width:
        assert shown.endswith("/" + file_name)
    else:  # a hash-like name keeps its start and its end
        start, end = shown.removeprefix("…/").split("…")
        assert file_name.startswith(start) and file_name.endswith(end) and len(end) >= 16


@pytest.fixture
def tour_runs(demo_store, db_path):
    for name in ("tour-smollm2-claim-time-pages-2", "tour-smollm2-claim-time-pages-3"):
        demo_store.runs.create(Run(name=name, dataset_id=1, model="gguf:default", status="finished"), [1, 2])
    return db_path


@pytest.mark.parametrize("width", [60, 80])
def test_the_runs_command_keeps_run_names_and_suffixes_whole(tour_runs, width):
    result = CliRunner().invoke(main, ["--db", str(tour_runs), "runs"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(cell_len(line) for line in lines) <= width
    for suffix in (2, 3):
        assert any(f"tour-smollm2-claim-time-pages-{suffix} " in line for line in lines), result.output


def test_runs_do_not_ask_for_the_price_of_an_imported_run(demo_store, db_path):
    demo_store.runs.create(Run(name="elsewhere", dataset_id=1, model="imported:elsewhere", status="finished"), [1])
    result = CliRunner().invoke(main, ["--db", str(db_path), "runs"], env={"COLUMNS": "80"})
    assert "elsewhere finished" in result.output
    assert "[prices]" not in result.output and "made elsewhere" in " ".join(result.output.split())


def test_the_keys_page_names_keys_as_the_tui_shows_them():
    from workbench.cli.reference import keys_markdown

    page = keys_markdown()
    assert "| `?` |" in page and "| `/` |" in page and "`]`" in page
    named = re.findall(r"`([a-z]+_[a-z_]+)`", page)  # Textual's names: question_mark, slash, ...
    assert not named, named


@pytest.fixture
def scored_run(demo_store, db_path):
    from tests.support.scoring import RUN_A, make_run

    make_run(demo_store, "A", 1, range(1, 13), RUN_A)
    demo_store.annotations.flag([1, 5, 8], "contaminated")
    return db_path


@pytest.mark.parametrize("width", WIDTHS)
def test_metrics_by_a_field_keeps_slice_names_and_intervals_whole(scored_run, width):
    args = ["--db", str(scored_run), "metrics", "A", "--by", "importance", "--exclude-flag", "contaminated"]
    result = CliRunner().invoke(main, [*args, "--resamples", "100"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    part = result.output[result.output.index("by importance") :]
    lines = part.splitlines()
    assert max(cell_len(line) for line in lines) <= width, part
    for value in ("importance", "Irrelevant", "Main", "w/o contaminated", "0.333"):
        assert any(re.search(rf"(^|\s){re.escape(value)}(\s|$)", line) for line in lines), f"{value!r} cut:\n{part}"
    assert any(re.search(r"\[\d\.\d{3}, \d\.\d{3}\]", line) for line in lines)  # an interval, whole


@pytest.mark.parametrize("width", WIDTHS)
def test_the_confusion_grid_keeps_class_names_and_counts_whole(scored_run, width):
    result = CliRunner().invoke(main, ["--db", str(scored_run), "metrics", "A"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    part = result.output[result.output.index("confusion") : result.output.index("time and cost")]
    lines = part.splitlines()
    assert max(cell_len(line) for line in lines) <= width, part
    for value in ("Supported", "Refuted", "NotEnoughInfo"):
        assert sum(bool(re.search(rf"(^|\s){value}(\s|$)", line)) for line in lines) == 2, f"{value} cut:\n{part}"
    assert "failure>" in part  # the parse-failure column is kept, its header wrapped


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_keeps_metric_and_slice_names_whole(scored_run, demo_store, width):
    from tests.support.scoring import RUN_B, make_run

    make_run(demo_store, "B", 1, range(1, 13), RUN_B)
    args = ["--db", str(scored_run), "compare", "A", "B", "--by", "importance", "--resamples", "100"]
    result = CliRunner().invoke(main, args, env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(cell_len(line) for line in lines) <= width, result.output
    for value in ("parse-failure rate", "Unknown Rate", "macro-F1", "Irrelevant", "importance", "[0.000, 0.250]"):
        assert any(re.search(rf"(^|\s){re.escape(value)}(\s|$)", line) for line in lines), f"{value!r} cut"
    if width >= 80:  # every column of the paired table is shown from 80 columns
        assert any("paired 95% CI" in line and line.endswith("detectable") for line in lines), result.output


@pytest.mark.parametrize("width", WIDTHS)
def test_the_class_table_keeps_class_names_and_subset_rows_whole(scored_run, width):
    args = ["--db", str(scored_run), "metrics", "A", "--exclude-flag", "contaminated", "--resamples", "100"]
    result = CliRunner().invoke(main, args, env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    part = result.output[result.output.index("\nclass") : result.output.index("confusion")]
    lines = part.splitlines()
    assert max(cell_len(line) for line in lines) <= width, part
    assert any(line.split()[-5:] == ["class", "precision", "recall", "F1", "support"] for line in lines if line)
    for value in ("Supported", "Refuted", "NotEnoughInfo"):
        assert any(re.search(rf"^{value}\s+\d\.\d{{3}}", line) for line in lines), f"{value} cut:\n{part}"
    assert sum("w/o contaminated" in line for line in lines) == 3
