"""Triage: walk one run's wrong answers and sort each into failure categories."""

from __future__ import annotations

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from store import PageRequest
from workbench.render.display import printable
from workbench.tui.bundles import TriageItem, load_triage_item
from workbench.tui.errors import ReportsWorkerErrors
from workbench.render.claims import full_body, pages_body, qa_body, reference_body
from workbench.tui.messages import DataChanged
from workbench.tui.screens.detail import EvidenceText
from workbench.tui.screens.dialogs import TextPrompt, TextViewer, plain_title
from workbench.tui.triage_text import answer_body, category_panel

QUEUE_PAGE = 200
RESERVED_KEYS = set("nNpreo+[]?qumKC")
"""Keys the triage screen (or the app) already uses: a category cannot take them."""


class TriageScreen(ReportsWorkerErrors, Screen):
    """One wrong answer at a time: claim, gold, verdict, explanation, evidence, categories."""

    HELP = """\
Triage walks the run's wrong answers (the filter run:NAME wrong) one by one. Press a
category's key (1-6 for the built-in ones) to put the answer in that category or take
it out; an answer can have several. r marks it reviewed and moves on, e writes a note,
+ adds your own category with its own key. The panel counts each category over the
whole run. Filter triaged claims in the browser with triage:SLUG (e.g.
triage:flawed-reasoning) and reviewed ones with run:NAME reviewed."""
    BINDINGS = [
        Binding("escape", "back", "Back", id="triage.back", tooltip="Back to the claims browser"),
        Binding("n,right_square_bracket", "step(1)", "Next", id="triage.next", tooltip="The next wrong answer"),
        Binding("N,p,left_square_bracket", "step(-1)", "Prev", id="triage.previous",
                tooltip="The previous wrong answer"),
        Binding("r", "reviewed", "Reviewed", id="triage.reviewed",
                tooltip="Mark reviewed and go to the next (again: unmark)"),
        Binding("e", "note", "Note", id="triage.note", tooltip="Write a note on this answer"),
        Binding("plus", "add_category", "New category", id="triage.add_category",
                tooltip="Add your own failure category with its own key"),
        Binding("o", "raw_output", "Raw", id="triage.raw", tooltip="The model's raw output"),
    ]

    class QueueRead(Message):
        def __init__(self, claim_ids: list[int], complete: bool, total: int | None):
            super().__init__()
            self.claim_ids, self.complete, self.total = claim_ids, complete, total

    class ItemRead(Message):
        def __init__(self, claim_id: int, item: TriageItem | None):
            super().__init__()
            self.claim_id, self.item = claim_id, item

    def __init__(self, run_id: int, run_name: str):
        super().__init__()
        self.run_id = run_id
        self.run_name = run_name
        self.queue: list[int] = []
        self.queue_complete = False
        self.total: int | None = None
        self.index = 0
        self.item: TriageItem | None = None

    @property
    def queue_filter(self) -> str:
        return f"run:{self.run_id} wrong"

    def compose(self) -> ComposeResult:
        yield Label(Text(f"triage {printable(self.run_name)}", style="bold"), id="triage-header")
        with Horizontal(id="triage-body"):
            with TabbedContent(id="triage-tabs"):
                for key, title in (("answer", "Answer"), ("reference", "Reference"), ("full", "Full"),
                                   ("pages", "Pages"), ("qa", "QA")):
                    with TabPane(title, id=f"triage-tab-{key}"):
                        yield EvidenceText(id=f"triage-{key}")
            with VerticalScroll(id="triage-side"):
                yield Static(Text("reading…", style="dim"), id="triage-categories")
        yield Footer(compact=True)  # 80 columns hold more keys

    def on_mount(self) -> None:
        self._read_queue(None)

    # -- the queue ------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="triage-queue", exit_on_error=False)
    def _read_queue(self, after: int | None, recount: bool = True) -> None:
        """The next page of the queue's claim ids (keyset, by id) and, if asked, its length."""
        claims = self.app.stores.get().claims
        request = PageRequest(filter=self.queue_filter, after=(after, after) if after else None,
                              limit=QUEUE_PAGE)
        ids = [row.id for row in claims.page(request)]
        total = claims.count(self.queue_filter) if recount else None
        if not get_current_worker().is_cancelled:
            self.post_message(self.QueueRead(ids, len(ids) < QUEUE_PAGE, total))

    @on(QueueRead)
    def _queue_read(self, message: QueueRead) -> None:
        first = not self.queue
        known = set(self.queue)
        self.queue += [i for i in message.claim_ids if i not in known]
        self.queue_complete = message.complete
        if message.total is not None:
            self.total = message.total
        if first:
            self._open(0)
        elif self.item is not None:
            self._show_header()

    def _open(self, index: int) -> None:
        if not self.queue:
            self._show_empty()
            return
        self.index = max(0, min(index, len(self.queue) - 1))
        if not self.queue_complete and self.index >= len(self.queue) - 20:
            self._read_queue(self.queue[-1], recount=False)
        self._read_item(self.queue[self.index])

    def _show_empty(self) -> None:
        self.query_one("#triage-header", Label).update(
            Text(f"triage {printable(self.run_name)}: no wrong answers to triage (yet)", style="bold"))
        self.query_one("#triage-categories", Static).update(Text("nothing here", style="dim"))
        self.query_one("#triage-answer", EvidenceText).show(
            Text("This run has no wrong answers on scored claims. Run more claims, or look at its "
                 "abstentions and parse failures in the browser (A, P).", style="dim"))

    # -- one item -------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="triage-item", exit_on_error=False)
    def _read_item(self, claim_id: int) -> None:
        item = load_triage_item(self.app.stores.get(), self.run_id, claim_id)
        if not get_current_worker().is_cancelled:
            self.post_message(self.ItemRead(claim_id, item))

    @on(ItemRead)
    def _item_read(self, message: ItemRead) -> None:
        if not self.queue or message.claim_id != self.queue[self.index]:
            return
        item = self.item = message.item
        if item is None:
            self.notify(f"claim {message.claim_id} has no answer from this run any more", severity="warning")
            return
        self._show_header()
        self.query_one("#triage-categories", Static).update(category_panel(item))
        claim = item.bundle.claim
        bodies = {"answer": answer_body(item), "reference": reference_body(claim), "full": full_body(claim),
                  "pages": pages_body(claim), "qa": qa_body(claim)}
        for key, body in bodies.items():
            self.query_one(f"#triage-{key}", EvidenceText).show(body)

    def _show_header(self) -> None:
        item = self.item
        total = self.total if self.total is not None else len(self.queue)
        header = Text(f"triage {printable(self.run_name)}", style="bold")
        header.append(f" · {self.index + 1:,} of {total:,} wrong · claim {self.queue[self.index]}")
        if item is not None and item.reviewed:
            header.append(" · reviewed ✓", style="bold green")
        self.query_one("#triage-header", Label).update(header)

    @on(DataChanged)
    def _data_changed(self) -> None:
        """New answers may have landed (a run is going): extend the queue, re-read the item."""
        if self.queue:
            self._read_item(self.queue[self.index])
            if self.queue_complete:
                self._read_queue(self.queue[-1])
        else:
            self._read_queue(None)

    # -- keys -------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """A failure category's own key toggles it (keys live in the database, not in BINDINGS)."""
        if self.item is None or isinstance(self.focused, Input) or not event.character:
            return
        category = next((c for c in self.item.categories if c.key and c.key == event.character), None)
        if category is not None:
            event.stop()
            self._toggle(self.item.prediction.id, category.id)

    @work(thread=True, exclusive=False, group="triage-write", exit_on_error=False)
    def _toggle(self, prediction_id: int, category_id: int) -> None:
        self.app.stores.get().annotations.toggle_category(prediction_id, category_id,
                                                          who=self.app.settings.annotator)
        self.app.call_from_thread(self._reread)

    def _reread(self) -> None:
        if self.queue:
            self._read_item(self.queue[self.index])

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_step(self, step: int) -> None:
        if self.queue:
            self._open(self.index + step)

    def action_reviewed(self) -> None:
        if self.item is not None:
            now = not self.item.reviewed
            self._review(self.item.prediction.id, now, None, advance=now)

    @work(thread=True, exclusive=False, group="triage-write", exit_on_error=False)
    def _review(self, prediction_id: int, reviewed: bool, note: str | None, advance: bool) -> None:
        self.app.stores.get().annotations.review(prediction_id, reviewed, note=note,
                                                 who=self.app.settings.annotator)
        self.app.call_from_thread(self._reviewed, advance)

    def _reviewed(self, advance: bool) -> None:
        if advance and self.index < len(self.queue) - 1:
            self._open(self.index + 1)
        else:
            self._reread()

    def action_note(self) -> None:
        item = self.item
        if item is None:
            return

        def save(note: str | None) -> None:
            if note is not None:
                self._review(item.prediction.id, item.reviewed, note, advance=False)

        self.app.push_screen(TextPrompt("Note on this answer", "what went wrong?", item.note or ""), save)

    def action_add_category(self) -> None:
        def named(name: str | None) -> None:
            if name and name.strip():
                self.app.push_screen(
                    TextPrompt("Key for the category (one character, optional)", "e.g. 7"),
                    lambda key: self._add_category(name.strip(), (key or "").strip() or None))

        self.app.push_screen(TextPrompt("New failure category", "e.g. Date confusion"), named)

    @work(thread=True, exclusive=False, group="triage-write", exit_on_error=False)
    def _add_category(self, name: str, key: str | None) -> None:
        if key is not None and (len(key) != 1 or key in RESERVED_KEYS):
            self.app.call_from_thread(self.notify, f"a category key is one character other than"
                                      f" {' '.join(sorted(RESERVED_KEYS))}", severity="error", markup=False)
            return
        try:
            category = self.app.stores.get().annotations.add_category(name, key)
        except ValueError as error:
            self.app.call_from_thread(self.notify, printable(error), severity="error", markup=False)
            return
        except Exception as error:  # a duplicate slug is an sqlite IntegrityError
            self.app.call_from_thread(self.notify, f"cannot add {printable(name)!r}: {printable(error)}",
                                      severity="error", markup=False)
            return
        self.app.call_from_thread(self.notify, f"added category {printable(category.name)}"
                                  f" (triage:{category.slug})", markup=False)
        self.app.call_from_thread(self._reread)

    def action_raw_output(self) -> None:
        if self.item is not None:
            prediction = self.item.prediction
            title = plain_title("raw output of", self.run_name, "for claim", prediction.claim_id)
            self.app.push_screen(TextViewer(title, prediction.raw_output or prediction.error))
