"""The flips view: every claim whose verdict differs in correctness between a pinned base run
and another, right-to-wrong then wrong-to-right, each read beside the gold label with both
runs' verdicts and explanations; the command line that reopens the view is shown."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Static
from textual.worker import get_current_worker

from workbench.render.display import literal, one_line
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import DataChanged
from workbench.tui.widgets.filled_table import fill_table
from workbench.tui.widgets.footer import KeyFooter

COLUMNS = ("claim", "gold", "base", "other", "text")


class FlipsScreen(ReportsWorkerErrors, Screen):
    """The claims a run gets right and the base run wrong, and the reverse."""

    HELP = """\
Every claim whose answer is right in one run and wrong in the other (the shared claims
`compare` counts), right → wrong first, then wrong → right. The first run is the pinned
base. j/k or ↑/↓ move; the pane below shows the gold label and both runs' verdicts and
explanations. Enter opens the claim whole. / filters with the claims browser's filter
language (e.g. importance:Main, label:Refuted). The line at the bottom reopens this view."""
    BINDINGS = [
        Binding("escape", "back", "Back", id="flips.back", tooltip="Back to where you were"),
        Binding("j", "move(1)", "Next", id="flips.next", tooltip="The next flipped claim"),
        Binding("k", "move(-1)", "Prev", id="flips.previous", tooltip="The previous flipped claim"),
        Binding("slash", "filter", "Filter", id="flips.filter", tooltip="Narrow the flips with the filter language"),
    ]
    AUTO_FOCUS = "#flips-table"
    DEFAULT_CSS = """
    FlipsScreen #flips-header { height: 1; padding: 0 1; background: $panel; }
    FlipsScreen #flips-filter { height: 1; border: none; padding: 0 1; display: none; }
    FlipsScreen #flips-filter.-shown { display: block; }
    FlipsScreen #flips-table { height: 1fr; }
    FlipsScreen #flips-pane { height: 1fr; border-top: solid $panel; padding: 0 1; }
    FlipsScreen #flips-command { height: 1; padding: 0 1; color: $text-muted; }
    """

    class Read(Message):
        def __init__(self, flips, error: str | None = None):
            super().__init__()
            self.flips, self.error = flips, error

    class Pane(Message):
        def __init__(self, claim_id: int, text: Text):
            super().__init__()
            self.claim_id, self.text = claim_id, text

    def __init__(self, base: str, other: str, filter_text: str = ""):
        super().__init__()
        self.base, self.other, self.filter_text = base, other, filter_text
        self.flips = None
        self._row_claims: list[int | None] = []

    def compose(self) -> ComposeResult:
        yield Label(Text("flips: reading…", style="dim"), id="flips-header")
        yield Input(self.filter_text, placeholder="filter, e.g. importance:Main", id="flips-filter")
        yield DataTable(id="flips-table", cursor_type="row", zebra_stripes=False)
        with VerticalScroll(id="flips-pane"):
            yield Static(Text(""), id="flips-claim")
        yield Label("", id="flips-command")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for name in COLUMNS:
            table.add_column(name, key=name)
        self._read()

    @on(DataChanged)
    def _data_changed(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="flips", exit_on_error=False)
    def _read(self) -> None:
        from workbench.errors import WorkbenchError
        from workbench.scoring.flips import read_flips

        try:
            found = read_flips(self.app.stores.get(), self.base, self.other, self.filter_text)
        except WorkbenchError as error:
            found, problem = None, str(error)
        else:
            problem = None
        if not get_current_worker().is_cancelled:
            self.post_message(self.Read(found, problem))

    @on(Read)
    def _shown(self, message: Read) -> None:
        if message.error is not None:
            self.query_one("#flips-header", Label).update(literal(message.error, "bold red"))
            return
        self.flips = flips = message.flips
        self.query_one("#flips-header", Label).update(self._header(flips))
        self.query_one("#flips-command", Label).update(literal(flips.command(str(self.app.db_path))))
        self._fill(flips)

    def _header(self, flips) -> Text:
        from workbench.scoring.flips import RIGHT_TO_WRONG, WRONG_TO_RIGHT

        text = Text("flips ", style="bold")
        text.append_text(literal(flips.base.name, "bold"))
        text.append(" (base) → ")
        text.append_text(literal(flips.other.name, "bold"))
        text.append(f" · {flips.counts[RIGHT_TO_WRONG]:,} right→wrong · {flips.counts[WRONG_TO_RIGHT]:,} wrong→right")
        if flips.filter_text:
            text.append(" · ")
            text.append_text(literal(flips.filter_text, "yellow"))
        return text

    def _fill(self, flips) -> None:
        rows, self._row_claims = self._rows(flips)
        table = self.query_one(DataTable)
        fill_table(table, [(name, Text(name)) for name in COLUMNS], rows)
        if not flips.rows:
            self.query_one("#flips-claim", Static).update(
                Text(
                    "no claim flips between these runs" + (" under this filter" if flips.filter_text else ""),
                    style="dim",
                )
            )
            return
        table.move_cursor(row=1)

    def _rows(self, flips) -> tuple[list[tuple[Text, ...]], list[int | None]]:
        """The table's rows, each group under a heading row, and the claim of each (None for
        a heading)."""
        rows, claims = [], []
        direction = None
        room = max(16, self.app.size.width - 60)  # the text column gets what the others leave
        for row in flips.rows:
            if row.direction != direction:  # a group's heading row, not a claim
                direction = row.direction
                count = flips.counts[direction]
                heading = f"{direction}: {count:,} claim" + ("" if count == 1 else "s")
                rows.append((Text(""), Text(""), Text(""), Text(""), Text(heading, style="bold")))
                claims.append(None)
            rows.append(
                (
                    literal(row.external_id),
                    literal(row.gold or "—"),
                    literal(row.verdict_a or "—"),
                    literal(row.verdict_b or "—"),
                    literal(one_line(row.text, room)),
                )
            )
            claims.append(row.claim_id)
        return rows, claims

    @on(DataTable.RowHighlighted, "#flips-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        claim_id = self._claim_at(event.cursor_row)
        if claim_id is not None:
            self._read_pane(claim_id)

    @work(thread=True, exclusive=True, group="flips-pane", exit_on_error=False)
    def _read_pane(self, claim_id: int) -> None:
        from workbench.render.verdicts import flip_pane

        store = self.app.stores.get()
        claim = store.claims.get(claim_id)
        answers = [(run, store.runs.prediction(run.id, claim_id)) for run in (self.flips.base, self.flips.other)]
        if not get_current_worker().is_cancelled and claim is not None:
            self.post_message(self.Pane(claim_id, flip_pane(claim, answers)))

    @on(Pane)
    def _pane(self, message: Pane) -> None:
        self.query_one("#flips-claim", Static).update(message.text)

    def _claim_at(self, row: int) -> int | None:
        return self._row_claims[row] if 0 <= row < len(self._row_claims) else None

    def action_move(self, step: int) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row + step
        while 0 <= row < len(self._row_claims) and self._row_claims[row] is None:
            row += step  # over a group's heading
        if 0 <= row < len(self._row_claims):
            table.move_cursor(row=row)

    @on(DataTable.RowSelected, "#flips-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        claim_id = self._claim_at(event.cursor_row)
        if claim_id is not None and hasattr(self.app, "open_claim"):
            self.app.open_claim(claim_id)

    def action_filter(self) -> None:
        field = self.query_one("#flips-filter", Input)
        field.add_class("-shown")
        field.focus()

    @on(Input.Submitted, "#flips-filter")
    def _filter(self, event: Input.Submitted) -> None:
        self.filter_text = event.value.strip()
        self.query_one("#flips-filter", Input).set_class(bool(self.filter_text), "-shown")
        self.query_one(DataTable).focus()
        self._read()

    def action_back(self) -> None:
        field = self.query_one("#flips-filter", Input)
        if field.has_focus:  # Escape in the filter leaves it, not the view
            field.set_class(bool(self.filter_text), "-shown")
            self.query_one(DataTable).focus()
            return
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        else:
            self.app.exit()
