"""The contamination view: why claims were flagged, how scores spread, where tau should be.

Left: the highest-scoring claims of one target model and metric (● = s >= tau). Right:
the highlighted claim's oracle evidence beside the model's own, matched pairs aligned
with their pair scores. Bottom: the distribution of s with tau marked (w swaps in the
threshold sweep against people's labels). [ ] and { } move tau and the header says at
once how many claims that tau would flag; a writes those flags after a confirmation.
Every read runs on a worker thread with its own database connection.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from workbench.choices import CONTAMINATION_COMMAND
from workbench.render.charts import draw_histogram, draw_sweep
from workbench.render.contamination import claim_heading, evidence_table, score_line
from workbench.render.display import literal, printable
from workbench.render.listing import id_end
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import DataChanged, FlagsChanged
from workbench.tui.screens.contamination.data import ClaimDetail, Overview, accept_flags, read_claim, read_overview
from workbench.tui.widgets.footer import KeyFooter

SMALL_STEP, BIG_STEP = 0.01, 0.05
CHART_ROWS = (8, 16)  # the chart's height: a third of the screen within these bounds


class ContaminationScreen(ReportsWorkerErrors, Screen):
    """Contamination scores of one model and metric: pairs, distribution, threshold."""

    HELP = """\
Why claims were flagged contaminated. The list holds the highest-scoring claims (s, and
● when s >= tau); the right side shows the highlighted claim's oracle evidence beside
the evidence in the model's own article, matched pairs on one line with their pair score
f (Tab moves into the evidence to scroll it, shift+Tab back to the list). [ and ] move
tau by 0.01, { and } by 0.05: the header shows how many claims that tau flags. a writes those flags (after a confirmation; u undoes). m shows the next model /
metric, w swaps the histogram for the threshold sweep against people's labels (mark
them with `workbench contamination mark`). Details: docs/contamination.md."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="contamination.back", tooltip="Back to where you were"),
        Binding("right_square_bracket", "nudge(0.01)", "tau+", id="contamination.tau_up", tooltip="Raise tau by 0.01"),
        Binding(
            "left_square_bracket", "nudge(-0.01)", "tau-", id="contamination.tau_down", tooltip="Lower tau by 0.01"
        ),
        Binding(
            "right_curly_bracket",
            "nudge(0.05)",
            "tau++",
            show=False,
            id="contamination.tau_up_big",
            tooltip="Raise tau by 0.05",
        ),
        Binding(
            "left_curly_bracket",
            "nudge(-0.05)",
            "tau--",
            show=False,
            id="contamination.tau_down_big",
            tooltip="Lower tau by 0.05",
        ),
        Binding(
            "a",
            "accept",
            "Accept flags",
            id="contamination.accept",
            tooltip="Flag the claims with s >= tau (replaces this model and metric's flags)",
        ),
        Binding(
            "m",
            "next_group",
            "Model/metric",
            id="contamination.next_group",
            tooltip="Show the next model, metric and extractor with scores",
        ),
        Binding(
            "w", "toggle_chart", "Sweep", id="contamination.sweep", tooltip="Swap the histogram and the threshold sweep"
        ),
        Binding("R", "reload", "Reload", show=False, id="contamination.reload", tooltip="Read the scores again"),
    ]
    AUTO_FOCUS = "#cont-claims"
    DEFAULT_CSS = """
    ContaminationScreen #cont-header { height: auto; padding: 0 1; background: $panel; }
    ContaminationScreen #cont-tau { height: 1; padding: 0 1; }
    ContaminationScreen #cont-main { height: 1fr; }
    ContaminationScreen #cont-claims { width: 30; height: 1fr; }
    ContaminationScreen #cont-detail { width: 1fr; height: 1fr; padding: 0 1; }
    ContaminationScreen #cont-detail > Static { height: auto; }
    ContaminationScreen #cont-chart { height: 8; }
    """

    class OverviewRead(Message):
        def __init__(self, overview: Overview):
            super().__init__()
            self.overview = overview

    class ClaimRead(Message):
        def __init__(self, claim_id: int, detail: ClaimDetail | None):
            super().__init__()
            self.claim_id, self.detail = claim_id, detail

    class FlagsWritten(Message):
        def __init__(self, change, summary: str):
            super().__init__()
            self.change, self.summary = change, summary

    def __init__(self, db_path: Path, claim_id: int | None = None, model: str | None = None, metric: str | None = None):
        super().__init__()
        self.db_path = Path(db_path)
        self.claim_id, self.model, self.metric = claim_id, model, metric
        self.overview: Overview | None = None
        self.detail: ClaimDetail | None = None
        self.tau: float | None = None
        self.group_index: int | None = None
        self.show_sweep = False

    def compose(self) -> ComposeResult:
        yield Static(Text("reading contamination scores…", style="dim"), id="cont-header")
        yield Static(id="cont-tau")
        with Horizontal(id="cont-main"):
            yield DataTable(id="cont-claims", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="cont-detail"):
                yield Static(id="cont-claim")
                yield Static(id="cont-pairs")
        yield PlotextPlot(id="cont-chart")
        yield KeyFooter()  # fitted to the width: whole keys only

    def on_mount(self) -> None:
        table = self.query_one("#cont-claims", DataTable)
        table.add_column("id", key="id", width=4)
        table.add_column("claim", key="claim", width=10)
        table.add_column("s", key="s", width=5)
        table.add_column("", key="mark", width=1)
        self._read_overview()

    def on_resize(self) -> None:
        """Give the chart more rows on a tall terminal (8 rows leave it four for bars)."""
        low, high = CHART_ROWS
        self.query_one("#cont-chart").styles.height = max(low, min(high, self.size.height // 3))

    # -- reading (worker threads: their own connection, results by message) ------------

    @work(thread=True, exclusive=True, group="contamination-overview", exit_on_error=False)
    def _read_overview(self) -> None:
        overview = read_overview(self.db_path, self.model, self.metric, self.group_index, self.claim_id)
        self.post_message(self.OverviewRead(overview))

    @work(thread=True, exclusive=True, group="contamination-claim", exit_on_error=False)
    def _read_claim(self, claim_id: int) -> None:
        group = self.overview.group if self.overview else None
        detail = read_claim(self.db_path, group, claim_id) if group else None
        self.post_message(self.ClaimRead(claim_id, detail))

    @work(thread=True, exclusive=True, group="contamination-accept", exit_on_error=False)
    def _write_flags(self, group, tau: float) -> None:
        change = accept_flags(self.db_path, group, tau)
        summary = (
            f"{len(change.added_ids):,} claims flagged contaminated for {group.target_model} /"
            f" {group.metric} at tau {tau:.2f}"
        )
        self.post_message(self.FlagsWritten(change, summary))

    @on(OverviewRead)
    def _overview_read(self, message: OverviewRead) -> None:
        self.overview = overview = message.overview
        if overview.group is None:
            self._paint_empty(overview)
            return
        self.model, self.metric = overview.group.target_model, overview.group.metric
        self.group_index = None  # from now on the group is named by its model and metric
        if self.tau is None:
            self.tau = overview.tau
        self.refresh_bindings()
        self._fill_claims()
        self._paint_tau()
        self._paint_chart()
        wanted = self.claim_id if self.claim_id is not None else (overview.top[0].claim_id if overview.top else None)
        if wanted is not None:
            self._show_claim(wanted)

    def _show_claim(self, claim_id: int) -> None:
        self.claim_id = claim_id
        self._read_claim(claim_id)

    @on(ClaimRead)
    def _claim_read(self, message: ClaimRead) -> None:
        if message.claim_id != self.claim_id:
            return  # an answer for a claim the cursor has already left
        another_claim = self.detail is None or message.detail is None or self.detail.claim.id != message.claim_id
        self.detail = message.detail
        self._paint_claim()
        if another_claim:  # a new claim starts at its top, not where the last one was scrolled to
            self.query_one("#cont-detail", VerticalScroll).scroll_home(animate=False)

    @on(DataChanged)
    def _data_changed(self) -> None:
        """Something was committed (here, or a pipeline run in another terminal): read again."""
        self._read_overview()

    @on(FlagsWritten)
    def _flags_written(self, message: FlagsWritten) -> None:
        self.app.post_message(FlagsChanged(message.change, message.summary))
        self.notify(printable(message.summary), markup=False)
        self._read_overview()

    # -- painting --------------------------------------------------------------------------

    def _paint_empty(self, overview: Overview) -> None:
        wanted = " ".join(printable(v) for v in (self.model, self.metric) if v)
        text = (
            "no contamination scores"
            + (f" for {wanted}" if wanted else "")
            + f"; run `{printable(self._command())}` first"
        )  # the header wraps: the whole command shows
        self.query_one("#cont-header", Static).update(Text(text, style="yellow"))
        self.refresh_bindings()  # the footer drops the keys that act on scores

    def _no_other_group(self) -> str:
        """Why m has nothing to switch to, with the command that would score another model."""
        group = self.overview.group
        if group is None:
            return f"no contamination scores yet: run `{printable(self._command())}` first"
        return (
            f"only {printable(group.target_model)} · {printable(group.metric)} has scores: nothing else to switch"
            f" to (`{printable(self._command())}` with another --model scores one)"
        )

    def _command(self) -> str:
        """The command that makes scores, naming this database."""
        return CONTAMINATION_COMMAND.replace("workbench ", f"workbench --db {shlex.quote(str(self.db_path))} ", 1)

    def _fill_claims(self) -> None:
        table = self.query_one("#cont-claims", DataTable)
        table.clear()
        for row in self.overview.top:
            score = "—" if row.score is None else f"{row.score:.2f}"
            # The store id beside the benchmark's own: AVeriTeC's "0", "1" alone read like scores.
            table.add_row(
                Text(str(row.claim_id), justify="right"),
                literal(id_end(row.external_id or "", 10)),  # a URL id differs at its end
                score,
                self._mark(row.score),
                key=str(row.claim_id),
            )
        if self.claim_id is not None and str(self.claim_id) in table.rows:
            table.move_cursor(row=table.get_row_index(str(self.claim_id)))

    def _mark(self, score: float | None) -> Text:
        return Text("●", style="red") if score is not None and score >= self.tau else Text("")

    def _paint_tau(self) -> None:
        overview, group = self.overview, self.overview.group
        header = literal(f"{group.target_model} · {group.metric} · extractor {group.extractor_model}", "bold")
        position = overview.groups.index(group) + 1 if group in overview.groups else 1
        many = len(overview.groups) > 1
        header.append(
            f"  (model/metric {position} of {len(overview.groups)}{'; m: next' if many else ''})", style="dim"
        )
        self.query_one("#cont-header", Static).update(header)
        would = overview.would_flag(self.tau)
        line = Text(f"tau {self.tau:.2f}", style="bold")
        line.append(f" → {would:,} of {overview.scorable:,} claims would be flagged", style="bold")
        line.append(f" ({overview.flagged_now:,} flagged now)", style="dim")
        self.query_one("#cont-tau", Static).update(line)

    def _paint_chart(self) -> None:
        plot = self.query_one("#cont-chart", PlotextPlot)
        overview = self.overview
        if self.show_sweep and overview.sweep is not None:
            draw_sweep(plot.plt, overview.sweep.taus, overview.sweep.agreement, overview.sweep.best_tau, compact=True)
            plot.plt.vline(self.tau, "blue")
        else:
            draw_histogram(
                plot.plt,
                overview.sorted_scores,
                self.tau,
                f"distribution of s over {overview.scorable:,} claims · tau {self.tau:.2f}",
                compact=True,
            )
        plot.refresh()

    def _paint_claim(self) -> None:
        detail = self.detail
        heading = self.query_one("#cont-claim", Static)
        pairs = self.query_one("#cont-pairs", Static)
        if detail is None:
            heading.update(Text("this claim has no score for this model and metric", style="yellow"))
            pairs.update("")
            return
        heading.update(Group(claim_heading(detail.claim), score_line(detail.row, self.tau, detail.flagged)))
        pairs.update(evidence_table(detail.oracle, detail.generated, detail.row))

    # -- keys ---------------------------------------------------------------------------------

    def check_action(self, action: str, parameters) -> bool | None:
        """With no scores, tau, accept and sweep act on nothing: the footer leaves them out
        (the header says which command makes scores). m stays: it says why it cannot."""
        if action in ("nudge", "accept", "toggle_chart"):
            return self.overview is not None and self.overview.group is not None
        return True

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_nudge(self, step: float) -> None:
        if self.overview is None or self.overview.group is None:
            return
        self.tau = min(1.0, max(0.0, round(self.tau + step, 2)))
        self._paint_tau()
        self._paint_chart()
        table = self.query_one("#cont-claims", DataTable)
        for row in self.overview.top:
            table.update_cell(str(row.claim_id), "mark", self._mark(row.score))
        if self.detail is not None:
            self._paint_claim()

    def action_accept(self) -> None:
        from workbench.tui.widgets.dialogs import ConfirmDialog

        if self.overview is None or self.overview.group is None:
            return
        group, tau = self.overview.group, self.tau
        question = literal(
            f"Flag the {self.overview.would_flag(tau):,} claims with s >= {tau:.2f} as contaminated"
            f" for {group.target_model} / {group.metric}? This replaces the"
            f" {self.overview.flagged_now:,} pipeline flags of that model and metric."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._write_flags(group, tau)

        self.app.push_screen(ConfirmDialog(question, yes="Flag them"), answered)

    def action_next_group(self) -> None:
        if self.overview is None:
            return
        if len(self.overview.groups) < 2:  # nothing to switch to: tau stays as the user set it
            self.notify(self._no_other_group(), severity="warning", markup=False)
            return
        current = self.overview.groups.index(self.overview.group) if self.overview.group in self.overview.groups else -1
        self.group_index = current + 1
        self.tau, self.claim_id, self.model, self.metric = None, None, None, None
        self._read_overview()

    def action_toggle_chart(self) -> None:
        if self.overview is None or self.overview.group is None:
            return
        if self.overview.sweep is None:
            self.notify(
                "no labelled claims with a score yet: mark some with `workbench contamination mark`", severity="warning"
            )
            return
        self.show_sweep = not self.show_sweep
        sweep = self.overview.sweep
        if self.show_sweep:
            kappa = sweep.kappa
            said = (
                f"{kappa.value:.3f}"
                if kappa is not None and kappa.value is not None
                else f"undefined ({kappa.undefined})"
                if kappa is not None
                else "—"
            )
            self.notify(
                f"best tau {sweep.best_tau:.2f}: agreement {sweep.best_agreement:.3f} over"
                f" {sweep.labelled} labelled claims; Cohen's kappa {said}",
                markup=False,
            )
        self._paint_chart()

    def action_reload(self) -> None:
        self._read_overview()

    @on(DataTable.RowHighlighted, "#cont-claims")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        claim_id = int(event.row_key.value)
        if claim_id != self.claim_id or self.detail is None:
            self._show_claim(claim_id)
