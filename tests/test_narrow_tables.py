"""Issue 33, item 14, last part: the tables that were still drawn by Rich alone (the metrics
headline, contamination, explanation quality, curation, triage queue, show-run, AVeriTeC
scores, reformulations) laid out by the listing: at 40 to 140 columns no line is wider than
the terminal, no number, id or name is cut, untrusted text is shown literally."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from store import Run
from tests.support.narrow import assert_fits_and_keeps, drawn, has_whole

WIDTHS = (40, 50, 60, 80, 100, 140)
LABEL = st.text("abcdefghijklmnopqrstuvwxyz支持[]/-", min_size=1, max_size=16).filter(lambda s: s.strip() == s)
NAME_TEXT = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_.支持[]", min_size=1, max_size=20)
WORDS = st.lists(st.text("abcdefghijklmnopqrstuvwxyz[]/", min_size=1, max_size=10), min_size=1, max_size=4).map(
    " ".join
)


def headline_report(classes: list[str], flag: str | None):
    """A run's report built from real metric summaries (gold and predicted labels)."""
    from workbench.metrics import summarise
    from workbench.metrics.resampling import Interval
    from workbench.reports import RunReport
    from workbench.scoring.runs import RunScores, ScoreReport, Scores

    gold = [classes[n % len(classes)] for n in range(23)] + [classes[0]] * 7
    predicted = [classes[(n * 7) % len(classes)] for n in range(30)]
    summary = summarise(gold, predicted, classes)
    intervals = {"accuracy": Interval(0.5, 0.304, 0.527), "macro_f1": Interval(0.4, 0.172, 0.522)}
    run = Run(name="checker-2", model="gguf:default")
    full = RunScores(run, "demo", 30, Scores(summary, intervals), {}, {})
    filtered = RunScores(run, "demo", 30, Scores(summary, {}), {}, {}) if flag else None
    return RunReport(run=run, scores=ScoreReport(full, filtered, flag, 3))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LABEL, min_size=2, max_size=4, unique=True), st.one_of(st.none(), WORDS))
def test_the_metrics_headline_keeps_every_number_whole(classes, flag):
    from workbench.render.headline import scores_table

    report = headline_report(classes, flag)
    majority = report.scores.full.overall.summary.baselines.majority_class
    for width in WIDTHS:
        lines = assert_fits_and_keeps(
            scores_table(report), width, ["[0.304, 0.527]", "[0.172, 0.522]", "parse-failure rate", "(30 of 30)"]
        )
        text = "\n".join(lines)
        if cell_len(majority) <= 18:  # a class name is never cut (a longer one may fold)
            assert has_whole(lines, f"({majority})"), text
        if flag:  # the unflagged set's column (or its own table) is never dropped
            shown = " ".join(text.split())
            assert all(word in shown for word in flag.split()), text


def test_the_metrics_headline_stacks_its_sets_only_when_narrow():
    from workbench.render.headline import scores_table

    report = headline_report(["Supported", "Refuted", "NotEnoughInfo"], "contaminated")
    assert sum("accuracy" in line for line in drawn(scores_table(report), 80)) == 1  # side by side
    narrow = drawn(scores_table(report), 40)
    assert sum(line.startswith("accuracy") for line in narrow) == 2  # one table per set
    assert any(line.rstrip().endswith("without contaminated") for line in narrow)


MODEL = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_.:支", min_size=1, max_size=26)
METRIC = st.sampled_from(["meteor", "embedding", "meteor+image", "embedding+image"])


def summaries(groups):
    from workbench.contamination.flagging import GroupSummary

    return [
        GroupSummary(model, extractor, metric, 901, 880 - n, 0.2345 + n / 100, 0.25, 120 + n, 121 + n)
        for n, (model, extractor, metric) in enumerate(groups)
    ]


def whole_name(lines: list[str], name: str, joiners: str = "") -> bool:
    """`name` on one line, bounded by spaces, the edge or one of `joiners`."""
    import re

    edge = "|".join([r"\s", *map(re.escape, joiners)])
    return any(re.search(rf"(^|{edge}){re.escape(name)}({edge}|$)", line) for line in lines)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(MODEL, MODEL, METRIC), min_size=1, max_size=3, unique_by=lambda g: g[0]), WORDS)
def test_contamination_summary_keeps_models_and_numbers_whole(groups, slice_value):
    from workbench.render.contamination import slices_table, summary_table

    found = summaries(groups)
    for width in WIDTHS:
        for table in (summary_table(found), slices_table("label", {slice_value: found})):
            # at 40 columns a slice value beside a 26-cell model name leaves no room for S
            scores = [f"{s.mean_score:.3f}" for s in found] if width >= 50 else []
            lines = assert_fits_and_keeps(table, width, scores)
            for model, _, _ in groups:
                assert whole_name(lines, model), f"{model!r} cut at {width}:\n" + "\n".join(lines)
        if width >= 60:  # by label: the flagged counts kept too
            assert all(has_whole(lines, f"{s.would_flag:,}") for s in found), "\n".join(lines)
        shown = " ".join(" ".join(lines).split())
        assert all(word in shown for word in slice_value.split())  # wrapped, never cut


@settings(max_examples=15, deadline=None)
@given(st.lists(MODEL, min_size=2, max_size=3, unique=True), st.lists(METRIC, min_size=1, max_size=2, unique=True))
def test_combined_flags_break_between_names_never_inside_one(models, metrics):
    from workbench.render.contamination import combined_table

    for width in WIDTHS:
        lines = assert_fits_and_keeps(
            combined_table([("&".join(models), "&".join(metrics), 12_345)]), width, ["12,345"]
        )
        for name in [*models, *metrics]:
            assert whole_name(lines, name, "&·"), f"{name!r} cut at {width}:\n" + "\n".join(lines)


def test_probe_comparison_and_sweep_keep_their_numbers_whole():
    from workbench.contamination.comparison import ProbeComparison
    from workbench.contamination.sweep import SweepResult
    from workbench.metrics.resampling import McNemarResult, PairedComparison
    from workbench.render.contamination import probe_table, sweep_table

    compared = ProbeComparison(
        "gguf:smollm2-135m-instruct", "gguf:qwen", "meteor", 1_234, 0.21, 0.26,
        PairedComparison(0.05, -0.012, 0.113, 0.042), 0.25, 0.25, 40, 52, McNemarResult(3, 15, 0.0075),
    )  # fmt: skip
    taus = [n / 100 for n in range(101)]
    sweep = SweepResult(taus, [0.5 + t / 3 for t in taus], 40, 12, 0.5, 0.667, (0.5, 0.5), 0, {})
    for width in WIDTHS:
        # the difference from 50 columns, the claims from 80 (a 26-cell model name takes the rest)
        difference = ["+0.050"] * (width >= 50) + ["1,234"] * (width >= 80)
        assert_fits_and_keeps(probe_table([compared]), width, ["gguf:smollm2-135m-instruct", *difference])
        lines = assert_fits_and_keeps(sweep_table(sweep), width, ["0.50", "0.667", "0.95"])
        assert any(line.rstrip().endswith("◀ best") for line in lines) or width < 40


@settings(max_examples=15, deadline=None)
@given(st.dictionaries(WORDS, st.integers(1, 10**5), min_size=1, max_size=4), LABEL)
def test_explanation_quality_keeps_slices_and_intervals_whole(slices, field):
    from workbench.judging.scores import ExplanationScores
    from workbench.metrics import MeanInterval
    from workbench.render.explanations import explanations_view

    judge = Run(name="judge-[bold]-2", model="gguf:judge")
    eq = ExplanationScores(
        Run(name="checker", model="gguf:default"), judge, MeanInterval(6.25, 5.5, 7.0, 30), [1] * 11, 30, 0, 0, 0, 0,
        {field: {value: MeanInterval(6.25, 5.75, 6.75, n) for value, n in slices.items()}},
    )  # fmt: skip
    for width in WIDTHS:
        lines = assert_fits_and_keeps(
            explanations_view(eq), width, ["6.25", "[5.75, 6.75]", *map("{:,}".format, slices.values())]
        )
        shown = " ".join(" ".join(lines).split())
        assert all(word in shown for value in slices for word in value.split()) and "judge-[bold]-2" in shown


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(MODEL, MODEL), min_size=1, max_size=3))
def test_judge_agreement_keeps_scoring_names_and_kappas_whole(pairs):
    from workbench.metrics import Agreement
    from workbench.metrics.agreement import Estimate
    from workbench.render.explanations import agreement_table

    kappa = Estimate(0.712, 0.55, 0.83)
    rows = [(first, second, Agreement(1_234, 0.8, 0.9, 0.75, kappa)) for first, second in pairs]
    for width in WIDTHS:
        kappas = ["0.712", "[0.55, 0.83]"] if width >= 50 else []  # 40: two 26-cell names leave no room
        lines = assert_fits_and_keeps(agreement_table(rows), width, kappas)
        for first, second in pairs:
            assert whole_name(lines, first) and whole_name(lines, second), "\n".join(lines)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(WORDS, st.integers(0, 10**6)), min_size=1, max_size=5), NAME_TEXT)
def test_the_curation_funnel_keeps_steps_and_counts_whole(steps, dataset):
    from workbench.curation.funnel import Funnel, FunnelRow
    from workbench.render.curation import funnel_table

    total = sum(removed for _, removed in steps) + 1_234
    rows, left = [], total
    for n, (asked, removed) in enumerate(steps):
        rows.append(FunnelRow(f"step{n}", True, asked, left, removed, left - removed, "a note"))
        left -= removed
    funnel = Funnel(dataset, total, left, [*rows, FunnelRow("screen", False, "not run", 0, 0, 0)])
    for width in WIDTHS:
        # the claims left always; the claims removed from 50 columns (beside 7-cell counts)
        counts = [f"{row.left:,}" for row in rows] + [f"{row.removed:,}" for row in rows if width >= 50]
        lines = assert_fits_and_keeps(funnel_table(funnel), width, [*(r.step for r in funnel.rows), *counts])
        shown = " ".join(" ".join(lines).split())
        assert all(word in shown for asked, _ in steps for word in asked.split()), "\n".join(lines)
        assert "not run" in shown and dataset in shown


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(NAME_TEXT, st.booleans()), min_size=1, max_size=5), NAME_TEXT)
def test_the_triage_queue_keeps_claim_references_whole(queued, dataset):
    from store.assignments import QueueItem
    from workbench.render.triage_queue import queue_listing

    items = [QueueItem(n + 1, 90_000 + n, n, done, True) for n, (_, done) in enumerate(queued)]
    references = {90_000 + n: (external, None, dataset) for n, (external, _) in enumerate(queued)}
    for width in WIDTHS:
        room = width - len("99  90000    done ✓")  # a reference longer than the room left folds, as a name does
        refs = [f"{dataset}:{external}" for external, _ in queued]
        whole = [ref for ref in refs if cell_len(ref) <= room] + [str(i.claim_id) for i in items]
        lines = assert_fits_and_keeps(queue_listing(items, references), width, whole)
        assert sum("done ✓" in line for line in lines) == sum(done for _, done in queued)


@settings(max_examples=15, deadline=None)
@given(st.dictionaries(NAME_TEXT, WORDS, min_size=1, max_size=6))
def test_show_run_keeps_each_part_whole_and_its_value_readable(manifest):
    from workbench.render.manifest import manifest_view

    for width in WIDTHS:
        lines = assert_fits_and_keeps(manifest_view("tour-2", manifest), width, ["tour-2"])
        for key in manifest:
            if cell_len(key) <= 20:
                assert whole_name(lines, key), f"{key!r} cut at {width}:\n" + "\n".join(lines)
        shown = " ".join(" ".join(lines).split())
        assert all(word in shown for value in manifest.values() for word in value.split() if len(word) <= 10)
    wide = drawn(manifest_view("tour-2", {"versions.factcheck-workbench": "0.1.0"}), 80)
    assert any(line.split() == ["versions.factcheck-workbench", "0.1.0"] for line in wide)  # side by side at 80


def test_averitec_scores_keep_metric_names_and_scores_whole():
    from workbench.contamination.averitec_scorer import EvidenceScores
    from workbench.render.averitec_scores import averitec_scores_view

    thresholds = {0.1: 0.667, 0.2: 0.556, 0.25: 0.5, 0.3: 0.444, 0.4: 0.278, 0.5: 0.167}
    result = EvidenceScores(18, 0.405, 0.345, 0.667, 0.591, thresholds, [], "3.9.2")
    for width in WIDTHS:
        lines = assert_fits_and_keeps(averitec_scores_view(result), width, ["0.405", "0.345", "0.591", "0.167"])
        assert any(line.split() == ["Question", "+", "answer", "(HU-METEOR)", "0.345"] for line in lines)
        assert not any(set(line) & set("┏┃│└") for line in lines)  # drawn like the other listings


@settings(max_examples=15, deadline=None)
@given(st.lists(WORDS, min_size=2, max_size=2, unique=True))
def test_the_reformulation_grid_keeps_labels_and_tests_whole(subsets):
    from workbench.judging.reformulation import ReformulationTable
    from workbench.metrics.resampling import PairedComparison
    from workbench.render.searches import reformulation_grid

    labels = ["specification", "generalisation", "word substitution", "repeated"]
    means = {label: 1.25 + n for n, label in enumerate(labels)}
    table = ReformulationTable(
        Run(name="searcher", model="gguf:default"), None, 120, 0, means,
        {value: means for value in subsets}, dict.fromkeys(subsets, 60),
        {labels[0]: PairedComparison(0.125, -0.0625, 0.3125, 0.0421)},
    )  # fmt: skip
    for width in WIDTHS:
        lines = assert_fits_and_keeps(reformulation_grid(table), width, [*labels, "1.25", "4.25", "[-0.06, +0.31],"])
        shown = " ".join(" ".join(lines).split())
        assert "p = 0.0421" in shown and "+0.12" in shown  # the test's parts each whole
        if width >= 80:
            assert all(word in shown for value in subsets for word in value.split())  # subsets' headers


def averimatec_found(run_name: str) -> dict:
    """The figures `workbench averimatec --json` prints, as its table reads them."""

    def counted(official, readable, failures):
        return {"official": official, "failures_excluded": readable, "failures": failures, "failure_rate": failures / 8}

    return {
        "run": run_name, "claims": 8, "threshold": 0.4,
        "question_recall": counted(0.4537, 0.5185, 1), "evidence_recall": counted(0.3125, 0.3571, 1),
        "justification_recall": counted(0.125, 0.1429, 1), "verdict_accuracy": counted(0.25, 0.2857, 1),
        "ungated_verdict_accuracy": 0.625, "not_judged": 0,
        "prompt": {"evidence": {"name": "averimatec", "source": "ours", "hash": "ab" * 32}},
        "images_shown": {"evidence": True},
    }  # fmt: skip


@settings(max_examples=15, deadline=None)
@given(NAME_TEXT)
def test_judge_figures_keep_names_and_figures_whole(run_name):
    """The AVerImaTeC (and Ev2R: the same listing) figures: names whole, the organisers' figure
    never dropped; the failures give way first."""
    from workbench.render.averimatec import averimatec_table

    for width in WIDTHS:
        lines = assert_fits_and_keeps(averimatec_table(averimatec_found(run_name)), width, ["0.4537", "0.3125"])
        shown = " ".join(" ".join(lines).split())
        assert all(word in shown.split() for word in "Evidence recall (image-text)".split())  # wrapped at words
        assert run_name in shown  # the name as typed
        if width >= 80:
            assert any(line.split() == ["Question", "recall", "0.4537", "0.5185", "1", "(12.5%)"] for line in lines)


def leaderboard_row(old_score):
    from types import SimpleNamespace as Row

    def part(official, readable=None, failures=1):
        return Row(official=official, readable=readable, failures=failures)

    summary = Row(
        question_recall=part(0.4537), pair_recall=part(0.3912), score=part(0.2, 0.2222),
        threshold=0.5, claims=10,
    )  # fmt: skip
    judges = {"pairs": Row(model="openai-compatible:llama", prompt_name="ev2r")}
    ev2r = Row(summary=summary, judges=judges, run=Row(name="demo-sub"))
    meteor = Row(question_only=0.2404, qa=0.1855)
    return Row(ev2r=ev2r, meteor=meteor, old_score=old_score, seconds_per_claim=12.5, meteor_problem=None)


def test_the_leaderboard_row_keeps_every_figure_side_by_side_or_under_each_other():
    from workbench.render.leaderboard import leaderboard_view

    figures = ["0.4537", "0.3912", "0.2000", "0.2404", "0.1855", "0.1000", "12.5"]
    for width in WIDTHS:
        lines = assert_fits_and_keeps(leaderboard_view(leaderboard_row(0.1)), width, figures)
        side_by_side = any(line.split() == figures for line in lines)
        assert side_by_side or width < 80, "\n".join(lines)  # under each other only when narrow
        assert not side_by_side or width > 40, "\n".join(lines)
        if not side_by_side:
            assert any(line.split() == ["Q+A", "(METEOR)", "0.1855"] for line in lines)


@settings(max_examples=20, deadline=None)
@given(st.lists(WORDS, min_size=2, max_size=14, unique=True), NAME_TEXT)
def test_the_triage_confusion_keeps_category_names_and_counts(categories, annotator):
    """Two annotators' categories against each other: names wrap at words, never cut with an
    ellipsis; every count shown, in a grid where it fits, else as column:count beside each name."""
    from types import SimpleNamespace as Found

    import numpy as np

    from workbench.render.triage import confusion_table

    n = len(categories)
    counts = np.arange(n * n).reshape(n, n) * 7
    found = Found(confusion=Found(first=annotator, second="ben", labels=categories, counts=counts))
    for width in WIDTHS[2:]:  # from 60 columns, as the other listings
        lines = drawn(confusion_table(found), width)
        assert all(cell_len(line) <= width for line in lines) and "…" not in "".join(lines[1:])
        words = " ".join(lines).split()
        assert all(word in words for category in categories for word in category.split())
        grid = any(line.split() == [str(k) for k in range(1, n + 1)] for line in lines)
        for row, category in enumerate(categories):  # each row's counts, in order, after its number
            first = category.split()[0]
            at = next(i for i in range(len(words) - 1) if words[i : i + 2] == [str(row + 1), first])
            for column, count in enumerate(counts[row].tolist(), start=1):
                at = words.index(str(count) if grid else f"{column}:{count}", at + 1)
        if n <= 6:
            assert grid or width < 80, "\n".join(lines)  # the grid at 80 columns for a usual scheme
