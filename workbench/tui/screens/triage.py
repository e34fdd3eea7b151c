"""Triage: walk my queue of a run's answers (or, with nothing assigned to me, the run's wrong
answers) and sort each into failure categories, as me (the annotator in the header)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TabbedContent, TabPane
from textual.worker import get_current_worker

from store import FailureCategory, PageRequest
from workbench.render.display import printable
from workbench.tui.bundles import TriageItem, load_triage_item
from workbench.tui.messages import DataChanged
from workbench.tui.screens.answer_queue import AnswerQueueScreen
from workbench.tui.screens.detail import EvidenceText
from workbench.tui.triage_text import category_panel
from workbench.tui.widgets.dialogs import TextPrompt, TextViewer, plain_title

QUEUE_PAGE = 200
RESERVED_KEYS = set("nNpreo+[]?qumKCad<>")
"""Keys the triage screen (or the app) already uses: a category cannot take them."""


class TriageScreen(AnswerQueueScreen):
    """One wrong answer at a time: claim, gold, verdict, explanation, evidence, categories."""

    PREFIX, SIDE, VERB = "triage", "categories", "triage"

    HELP = """\
Triage walks your queue of the run (what `workbench triage assign` gave you), or, when
nothing is assigned to you, the run's wrong answers (run:NAME wrong), one by one. Every
label is yours (the header says who you are: --annotator, the config's annotator, or
your login name). Press a category's key (1-6 for the built-in ones) to put the answer in
that category or take it out; an answer can have several. > and < go round the evidence
tabs (Answer, Reference, Full, Pages, QA). r marks it reviewed (your
label is in) and moves to what is left, e writes a note, + adds your own category (its
key first, refused at once if taken, then its name). The panel counts your labels over the run. In a blind queue the others'
labels of an answer show only once you have marked it reviewed. a shows how far the
annotators agree, d the answers they disagree on (adjudication). Filter triaged claims
in the browser with triage:SLUG and reviewed ones with run:NAME reviewed."""
    BINDINGS = [
        Binding("escape", "back", "Back", id="triage.back", tooltip="Back to the claims browser"),
        Binding("n,right_square_bracket", "step(1)", "Next", id="triage.next", tooltip="The next wrong answer"),
        Binding(
            "N,p,left_square_bracket", "step(-1)", "Prev", id="triage.previous", tooltip="The previous wrong answer"
        ),
        Binding(
            "r",
            "reviewed",
            "Reviewed",
            id="triage.reviewed",
            tooltip="Mark reviewed and go to the next (again: unmark)",
        ),
        Binding("e", "note", "Note", id="triage.note", tooltip="Write a note on this answer"),
        Binding(
            "plus",
            "add_category",
            "New category",
            id="triage.add_category",
            tooltip="Add your own failure category with its own key",
        ),
        # The evidence tabs: digits are category keys here, so the tabs go round with < and >.
        Binding(
            "greater_than_sign",
            "evidence_tab(1)",
            "Next tab",
            show=False,
            id="triage.next_tab",
            tooltip="The next evidence tab (Answer, Reference, Full, Pages, QA)",
        ),
        Binding(
            "less_than_sign",
            "evidence_tab(-1)",
            "Prev tab",
            show=False,
            id="triage.previous_tab",
            tooltip="The previous evidence tab",
        ),
        Binding(
            "a",
            "agreement",
            "Agreement",
            id="triage.agreement",
            tooltip="How far the run's annotators agree (kappa, alpha, per category)",
        ),
        Binding(
            "d",
            "adjudicate",
            "Adjudicate",
            id="triage.adjudicate",
            tooltip="The answers annotators labelled differently: decide the final categories",
        ),
        Binding("o", "raw_output", "Raw", id="triage.raw", tooltip="The model's raw output"),
    ]

    class QueueRead(Message):
        def __init__(
            self,
            claim_ids: list[int],
            complete: bool,
            total: int | None,
            positions: list[int] | None = None,
            start: int | None = None,
            progress=None,
        ):
            super().__init__()
            self.claim_ids, self.complete, self.total = claim_ids, complete, total
            self.positions, self.start, self.progress = positions, start, progress

    class CountsRead(Message):
        def __init__(self, counts: dict[str, int]):
            super().__init__()
            self.counts = counts

    def __init__(self, run_id: int, run_name: str):
        super().__init__(run_id, run_name)
        self.positions: list[int] = []
        """In my queue: each item's position (keyset paging); empty for the run's wrong answers."""
        self.assigned: bool | None = None
        """True when I have a queue in this run (None until the first read)."""
        self.progress = None
        self._wanted_position: int | None = None
        """The queue position to open once the page holding it has been read."""
        self.queue_complete = False
        self.total: int | None = None
        self.item: TriageItem | None = None
        self.counts: dict[str, int] | None = None
        """My category counts over the run, read apart from the items (they can take a while)."""

    @property
    def annotator(self) -> str:
        return self.app.settings.annotator

    @property
    def queue_filter(self) -> str:
        return f"run:{self.run_id} wrong"

    def on_mount(self) -> None:
        self._read_queue(None)
        self._read_counts()

    @work(thread=True, exclusive=True, group="triage-counts", exit_on_error=False)
    def _read_counts(self) -> None:
        counts = self.app.stores.get().annotations.category_counts(self.run_id, self.annotator)
        if not get_current_worker().is_cancelled:
            self.post_message(self.CountsRead(counts))

    @on(CountsRead)
    def _counts_read(self, message: CountsRead) -> None:
        self.counts = message.counts
        if self.item is not None:
            self.set_side(category_panel(self.item, self.counts))

    # -- the queue ------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="triage-queue", exit_on_error=False)
    def _read_queue(self, after: int | None, recount: bool = True) -> None:
        """The next page of my queue (keyset by position) or of the run's wrong answers
        (keyset by id), and, if asked, its length and my progress."""
        store = self.app.stores.get()
        worker = get_current_worker()
        if store.assignments.has_queue(self.run_id, self.annotator):
            items = store.assignments.queue(self.run_id, self.annotator, after, QUEUE_PAGE)
            progress = store.assignments.progress(self.run_id, self.annotator)
            first = store.assignments.next_item(self.run_id, self.annotator) if after is None else None
            message = self.QueueRead(
                [i.claim_id for i in items],
                len(items) < QUEUE_PAGE,
                progress.assigned,
                [i.position for i in items],
                first.position if first else None,
                progress,
            )
        else:
            request = PageRequest(filter=self.queue_filter, after=(after, after) if after else None, limit=QUEUE_PAGE)
            ids = [row.id for row in store.claims.page(request)]
            message = self.QueueRead(
                ids, len(ids) < QUEUE_PAGE, store.claims.count(self.queue_filter) if recount else None
            )
        if not worker.is_cancelled:
            self.post_message(message)

    @on(QueueRead)
    def _queue_read(self, message: QueueRead) -> None:
        first = not self.queue
        self.assigned = message.positions is not None
        known = set(self.queue)
        for n, claim_id in enumerate(message.claim_ids):
            if claim_id not in known:
                self.queue.append(claim_id)
                if message.positions is not None:
                    self.positions.append(message.positions[n])
        self.queue_complete = message.complete
        if message.total is not None:
            self.total = message.total
        if message.progress is not None:
            self.progress = message.progress
        wanted = message.start if first else self._wanted_position
        if wanted is not None and wanted in self.positions:
            self._wanted_position = None
            self._open(self.positions.index(wanted))
        elif wanted is not None and not message.complete:  # beyond this page: read on to it
            self._wanted_position = wanted
            self._read_queue(self.positions[-1], recount=False)
        elif first:
            self._open(0)
        elif self.item is not None:
            self._show_header()

    def _after(self) -> int | None:
        """The keyset of the last item read (a position in my queue, a claim id otherwise)."""
        if not self.queue:
            return None
        return self.positions[-1] if self.assigned else self.queue[-1]

    def _open(self, index: int) -> None:
        if not self.queue:
            self._show_empty()
            return
        self.index = max(0, min(index, len(self.queue) - 1))
        if not self.queue_complete and self.index >= len(self.queue) - 20:
            self._read_queue(self._after(), recount=False)
        self._read_item(self.queue[self.index])

    def _show_empty(self) -> None:
        header = self._title()
        header.append(": no wrong answers to triage (yet)", style="bold")
        self.set_header(header)
        self.set_side(Text("nothing here", style="dim"))
        self.query_one("#triage-answer", EvidenceText).show(
            Text(
                "This run has no wrong answers on scored claims. Run more claims, or look at its "
                "abstentions and parse failures in the browser (A, P).",
                style="dim",
            )
        )

    # -- one item -------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="triage-item", exit_on_error=False)
    def _read_item(self, claim_id: int) -> None:
        store = self.app.stores.get()
        item = load_triage_item(store, self.run_id, claim_id, self.annotator)
        if self.assigned:
            self.progress = store.assignments.progress(self.run_id, self.annotator)
        if not get_current_worker().is_cancelled:
            self.post_message(self.ItemRead(claim_id, item))

    @on(AnswerQueueScreen.ItemRead)
    def _item_read(self, message: AnswerQueueScreen.ItemRead) -> None:
        if not self.queue or message.claim_id != self.queue[self.index]:
            return
        item = self.item = message.item
        if item is None:
            self.notify(f"claim {message.claim_id} has no answer from this run any more", severity="warning")
            return
        self._show_header()
        self.set_side(category_panel(item, self.counts))
        self.show_evidence(item.bundle, item.prediction)

    def _show_header(self) -> None:
        item = self.item
        total = self.total if self.total is not None else len(self.queue)
        header = self._title()
        if self.assigned and self.progress is not None:
            header.append(
                f" · my queue {self.index + 1:,} of {total:,} · {self.progress.done:,} done,"
                f" {self.progress.left:,} left"
            )
        else:
            header.append(f" · {self.index + 1:,} of {total:,} wrong")
        header.append(f" · claim {self.queue[self.index]}")
        if item is not None and item.reviewed:
            header.append(" · reviewed ✓", style="bold green")
        self.set_header(header)

    @on(DataChanged)
    def _data_changed(self) -> None:
        """New answers may have landed (a run is going): extend the queue, re-read the item."""
        self._read_counts()
        if self.queue:
            self._read_item(self.queue[self.index])
            if self.queue_complete:
                self._read_queue(self._after())
        else:
            self._read_queue(None)

    # -- keys -------------------------------------------------------------------------------

    def category_pressed(self, category: FailureCategory) -> None:
        """A failure category's own key puts the answer in it or takes it out."""
        if not self.refused(self.item.prediction):
            self._toggle(self.item.prediction.id, category.id)

    @work(thread=True, exclusive=False, group="triage-write", exit_on_error=False)
    def _toggle(self, prediction_id: int, category_id: int) -> None:
        self.app.stores.get().triage.toggle_category(prediction_id, self.annotator, category_id)
        self.app.call_from_thread(self._reread)

    def _reread(self) -> None:
        """After my own write: the item again, and my counts (in their own worker)."""
        self._read_counts()
        if self.queue:
            self._read_item(self.queue[self.index])

    def action_evidence_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        panes = [pane.id for pane in tabs.query(TabPane)]
        tabs.active = panes[(panes.index(tabs.active) + step) % len(panes)]

    def action_reviewed(self) -> None:
        if self.item is not None and not self.refused(self.item.prediction):
            now = not self.item.reviewed
            self._review(self.item.prediction.id, now, None, advance=now)

    @work(thread=True, exclusive=False, group="triage-write", exit_on_error=False)
    def _review(self, prediction_id: int, reviewed: bool, note: str | None, advance: bool) -> None:
        self.app.stores.get().triage.set_done(prediction_id, self.annotator, reviewed, note=note)
        self.app.call_from_thread(self._reviewed, advance)

    def _reviewed(self, advance: bool) -> None:
        """On to the next item: in my queue the next I have not reviewed, else the next."""
        if advance and self.assigned:
            self._next_left()
        elif advance and self.index < len(self.queue) - 1:
            self._open(self.index + 1)
        else:
            self._reread()

    @work(thread=True, exclusive=True, group="triage-next", exit_on_error=False)
    def _next_left(self) -> None:
        store = self.app.stores.get()
        here = self.positions[self.index] if self.positions else -1
        found = store.assignments.next_item(self.run_id, self.annotator, here)
        self.app.call_from_thread(self._go_to_position, None if found is None else found.position)

    def _go_to_position(self, position: int | None) -> None:
        if position is None:
            self.notify("your queue is done: every item reviewed", markup=False)
            self._reread()
        elif position in self.positions:
            self._open(self.positions.index(position))
        else:  # past what has been read: read on to it
            self._wanted_position = position
            self._read_queue(self._after(), recount=False)

    def action_note(self) -> None:
        item = self.item
        if item is None or self.refused(item.prediction):
            return

        def save(note: str | None) -> None:
            if note is not None:
                self._review(item.prediction.id, item.reviewed, note, advance=False)

        self.app.push_screen(TextPrompt("Note on this answer", "what went wrong?", item.note or ""), save)

    def action_add_category(self) -> None:
        from workbench.tui.screens.new_category import ask_new_category

        taken = {c.key: c.name for c in (self.item.categories if self.item else []) if c.key}
        ask_new_category(self.app, RESERVED_KEYS, taken, self._add_category)

    @work(thread=True, exclusive=False, group="triage-write", exit_on_error=False)
    def _add_category(self, name: str, key: str | None) -> None:
        from workbench.tui.screens.new_category import ask_name

        try:
            category = self.app.stores.get().annotations.add_category(name, key)
        except Exception as error:  # a name taken meanwhile (ValueError, or sqlite's IntegrityError)
            why = f"cannot add {printable(name)!r}: {printable(error)}"
            self.app.call_from_thread(ask_name, self.app, key, self._add_category, name, why)
            return
        self.app.call_from_thread(
            self.notify, f"added category {printable(category.name)} (triage:{category.slug})", markup=False
        )
        self.app.call_from_thread(self._reread)

    def action_agreement(self) -> None:
        from workbench.tui.screens.team import AgreementScreen

        self.app.push_screen(AgreementScreen(self.run_id, self.run_name))

    def action_adjudicate(self) -> None:
        from workbench.tui.screens.adjudication import AdjudicationScreen

        self.app.push_screen(AdjudicationScreen(self.run_id, self.run_name))

    def action_raw_output(self) -> None:
        if self.item is not None:
            prediction = self.item.prediction
            title = plain_title("raw output of", self.run_name, "for claim", prediction.claim_id)
            self.app.push_screen(TextViewer(title, prediction.raw_output or prediction.error))
