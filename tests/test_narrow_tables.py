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
