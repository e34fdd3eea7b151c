"""Adjudication: the answers annotators labelled differently, every label side by side with
the claim, verdict, explanation and gold; the adjudicator records the final categories.

A decision is written only if nobody decided the answer since this screen read it; when
someone did, their decision is shown and a second s replaces it (both stay in history).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Label, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from store import Adjudication, AdjudicationConflict, FailureCategory, Label as StoredLabel, Prediction, Store
from workbench.render.claims import full_body, pages_body, qa_body, reference_body
from workbench.render.display import literal, printable
from workbench.render.triage_items import notes_text, side_by_side
from workbench.tui.bundles import ClaimBundle, load_bundle
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import DataChanged
from workbench.tui.screens.detail import EvidenceText
from workbench.tui.widgets.dialogs import TextPrompt
from workbench.tui.triage_text import answer_body
from workbench.tui.widgets.footer import KeyFooter


@dataclass
class Disagreement:
    """One answer to decide, read whole."""

    bundle: ClaimBundle
    prediction: Prediction
    categories: list[FailureCategory]
    labels: dict[str, StoredLabel]
    decision: Adjudication | None


def load_disagreement(store: Store, run_id: int, claim_id: int) -> Disagreement | None:
    bundle = load_bundle(store, claim_id)
    prediction = store.runs.prediction(run_id, claim_id)
    if bundle is None or prediction is None:
        return None
    labels = {name: label for name, label in store.triage.labels(prediction.id).items() if label.labelled}
    return Disagreement(bundle, prediction, store.annotations.categories(), labels,
                        store.triage.adjudication(prediction.id))


class AdjudicationScreen(ReportsWorkerErrors, Screen):
    """The adjudication queue of one run, one answer at a time."""

    HELP = """\
The answers two or more annotators labelled differently, that nobody has decided yet.
The table shows each annotator's categories (✓), the decision if there is one, and yours
(the draft): a category's key puts it in your draft or takes it out; s saves your draft as
the final categories, with a note. If someone else decided the answer meanwhile, nothing
is saved: their decision appears, and s again replaces it. Final labels feed the
failure-category breakdown of metrics and reports; people's own labels stay as they are."""
    BINDINGS = [
        Binding("escape", "back", "Back", id="adjudication.back", tooltip="Back"),
        Binding("n,right_square_bracket", "step(1)", "Next", id="adjudication.next", tooltip="The next disagreement"),
        Binding("N,p,left_square_bracket", "step(-1)", "Prev", id="adjudication.previous",
                tooltip="The previous disagreement"),
        Binding("s", "save", "Decide", id="adjudication.save", tooltip="Save your draft as the final categories"),
    ]

    class QueueRead(Message):
        def __init__(self, claim_ids: list[int]):
            super().__init__()
            self.claim_ids = claim_ids

    class ItemRead(Message):
        def __init__(self, claim_id: int, item: Disagreement | None):
            super().__init__()
            self.claim_id, self.item = claim_id, item

    def __init__(self, run_id: int, run_name: str):
        super().__init__()
        self.run_id, self.run_name = run_id, run_name
        self.queue: list[int] = []
        self.index = 0
        self.item: Disagreement | None = None
        self.draft: frozenset[int] = frozenset()
        self.seen_version: int | None = None

    @property
    def adjudicator(self) -> str:
        return self.app.settings.annotator

    def compose(self) -> ComposeResult:
        yield Label(self._title(), id="adjudication-header")
        with Horizontal(id="adjudication-body"):
            with TabbedContent(id="adjudication-tabs"):
                for key, title in (("answer", "Answer"), ("reference", "Reference"), ("full", "Full"),
                                   ("pages", "Pages"), ("qa", "QA")):
                    with TabPane(title, id=f"adjudication-tab-{key}"):
                        yield EvidenceText(id=f"adjudication-{key}")
            with VerticalScroll(id="adjudication-side"):
                yield Static(Text("reading…", style="dim"), id="adjudication-labels")
        yield KeyFooter()  # fitted to the width: whole keys only

    def _title(self) -> Text:
        title = Text("adjudicate ", style="bold")
        title.append_text(literal(self.run_name, "bold"))
        title.append(" · as ")
        title.append_text(literal(self.adjudicator, "bold reverse"))
        return title

    def on_mount(self) -> None:
        self._read_queue()

    @work(thread=True, exclusive=True, group="adjudication-queue", exit_on_error=False)
    def _read_queue(self) -> None:
        from workbench.triage.final import disagreements

        ids = [item.claim_id for item in disagreements(self.app.stores.get(), self.run_id)]
        if not get_current_worker().is_cancelled:
            self.post_message(self.QueueRead(ids))

    @on(QueueRead)
    def _queue_read(self, message: QueueRead) -> None:
        current = self.queue[self.index] if self.queue else None
        self.queue = list(dict.fromkeys(self.queue + message.claim_ids))  # decided ones stay while here
        if not self.queue:
            header = self._title()
            header.append(": no disagreement to decide", style="bold")
            self.query_one("#adjudication-header", Label).update(header)
            self.query_one("#adjudication-labels", Static).update(
                Text("Every answer two people labelled has the same label from both, or a decision.", style="dim"))
            return
        self._open(self.queue.index(current) if current in self.queue else 0)

    def _open(self, index: int) -> None:
        self.index = max(0, min(index, len(self.queue) - 1))
        self._read_item(self.queue[self.index])

    @work(thread=True, exclusive=True, group="adjudication-item", exit_on_error=False)
    def _read_item(self, claim_id: int) -> None:
        item = load_disagreement(self.app.stores.get(), self.run_id, claim_id)
        if not get_current_worker().is_cancelled:
            self.post_message(self.ItemRead(claim_id, item))

    @on(ItemRead)
    def _item_read(self, message: ItemRead) -> None:
        if not self.queue or message.claim_id != self.queue[self.index] or message.item is None:
            return
        moved = self.item is None or self.item.prediction.id != message.item.prediction.id
        self.item = item = message.item
        if moved:  # a new answer: the draft starts from its decision, else from what all agree on
            self.draft = self._starting_draft(item)
            self.seen_version = item.decision.version if item.decision else None
        self._show_item()
        claim = item.bundle.claim
        bodies = {"answer": answer_body(item.bundle, item.prediction), "reference": reference_body(claim),
                  "full": full_body(claim),
                  "pages": pages_body(claim), "qa": qa_body(claim)}
        for key, body in bodies.items():
            self.query_one(f"#adjudication-{key}", EvidenceText).show(body)

    @staticmethod
    def _starting_draft(item: Disagreement) -> frozenset[int]:
        if item.decision is not None:
            return item.decision.category_ids
        sets = [label.category_ids for label in item.labels.values()]
        return frozenset.intersection(*sets) if sets else frozenset()

    def _show_item(self) -> None:
        item = self.item
        header = self._title()
        header.append(f" · {self.index + 1:,} of {len(self.queue):,} disagreements · claim {item.bundle.claim.id}")
        self.query_one("#adjudication-header", Label).update(header)
        decided = item.decision.category_ids if item.decision else None
        status = Text()
        if item.decision is not None:
            status.append(f"decision {item.decision.version} by ", style="green")
            status.append_text(literal(item.decision.adjudicator, "bold green"))
            status.append(f" ({item.decision.decided_at[:16].replace('T', ' ')})", style="green")
            if item.decision.note:
                status.append(": ")
                status.append_text(literal(item.decision.note, "italic"))
        else:
            status.append("not decided yet", style="yellow")
        status.append("\n")
        keys = Text("keys: a category's key edits your draft (yours); s decides", style="dim")
        self.query_one("#adjudication-labels", Static).update(
            Group(side_by_side(item.categories, item.labels, decided, self.draft), notes_text(item.labels), status,
                  keys))

    @on(DataChanged)
    def _data_changed(self) -> None:
        self._read_queue()

    def on_key(self, event: events.Key) -> None:
        """A category's own key edits the draft (keys live in the database, not in BINDINGS)."""
        if self.item is None or isinstance(self.focused, Input) or not event.character:
            return
        category = next((c for c in self.item.categories if c.key and c.key == event.character), None)
        if category is not None:
            event.stop()
            self.draft = self.draft ^ {category.id}
            self._show_item()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_step(self, step: int) -> None:
        if self.queue:
            self._open(self.index + step)

    def action_save(self) -> None:
        item = self.item
        if item is None:
            return
        draft, seen = self.draft, self.seen_version
        note = item.decision.note if item.decision else ""
        self.app.push_screen(TextPrompt("Why these categories? (a note with the decision)", "optional", note or ""),
                             lambda text: self._decide(item.prediction.id, draft, text, seen)
                             if text is not None else None)

    @work(thread=True, exclusive=False, group="adjudication-write", exit_on_error=False)
    def _decide(self, prediction_id: int, draft: frozenset[int], note: str, seen: int | None) -> None:
        try:
            decision = self.app.stores.get().triage.adjudicate(prediction_id, draft, note.strip() or None,
                                                               self.adjudicator, seen)
        except AdjudicationConflict as conflict:
            self.app.call_from_thread(self._conflict, conflict.current)
            return
        self.app.call_from_thread(self._decided, decision)

    def _decided(self, decision: Adjudication) -> None:
        self.seen_version = decision.version
        self.notify(f"decided (decision {decision.version})", markup=False)
        self._read_item(self.queue[self.index])

    def _conflict(self, current: Adjudication | None) -> None:
        self.seen_version = current.version if current else None
        who = printable(current.adjudicator) if current else "someone"
        self.notify(f"{who} decided this answer meanwhile: their decision is shown; s again replaces it",
                    severity="warning", markup=False)
        self._read_item(self.queue[self.index])
