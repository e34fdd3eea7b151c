"""Adjudication: the answers annotators labelled differently, every label side by side with
the claim, verdict, explanation and gold; the adjudicator records the final categories.

A decision is written only if nobody decided the answer since this screen read it; when
someone did, their decision is shown and a second s replaces it (both stay in history).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.worker import get_current_worker

from store import Adjudication, AdjudicationConflict, FailureCategory, Prediction, Store
from store import Label as StoredLabel
from workbench.render.display import literal, printable
from workbench.render.triage_items import labels_view, notes_text
from workbench.tui.bundles import ClaimBundle, load_bundle
from workbench.tui.messages import DataChanged
from workbench.tui.screens.answer_queue import AnswerQueueScreen
from workbench.tui.widgets.dialogs import TextPrompt


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
    return Disagreement(
        bundle, prediction, store.annotations.categories(), labels, store.triage.adjudication(prediction.id)
    )


class AdjudicationScreen(AnswerQueueScreen):
    """The adjudication queue of one run, one answer at a time."""

    PREFIX, SIDE, VERB = "adjudication", "labels", "adjudicate"

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
        Binding(
            "N,p,left_square_bracket",
            "step(-1)",
            "Prev",
            id="adjudication.previous",
            tooltip="The previous disagreement",
        ),
        Binding("s", "save", "Decide", id="adjudication.save", tooltip="Save your draft as the final categories"),
    ]

    class QueueRead(Message):
        def __init__(self, claim_ids: list[int]):
            super().__init__()
            self.claim_ids = claim_ids

    def __init__(self, run_id: int, run_name: str):
        super().__init__(run_id, run_name)
        self.item: Disagreement | None = None
        self.draft: frozenset[int] = frozenset()
        self.seen_version: int | None = None

    @property
    def adjudicator(self) -> str:
        return self.app.settings.annotator

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
            self.set_header(header)
            self.set_side(
                Text("Every answer two people labelled has the same label from both, or a decision.", style="dim")
            )
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

    @on(AnswerQueueScreen.ItemRead)
    def _item_read(self, message: AnswerQueueScreen.ItemRead) -> None:
        if not self.queue or message.claim_id != self.queue[self.index] or message.item is None:
            return
        moved = self.item is None or self.item.prediction.id != message.item.prediction.id
        self.item = item = message.item
        if moved:  # a new answer: the draft starts from its decision, else from what all agree on
            self.draft = self._starting_draft(item)
            self.seen_version = item.decision.version if item.decision else None
        self._show_item()
        self.show_evidence(item.bundle, item.prediction)

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
        self.set_header(header)
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
        # Two cells kept for the scrollbar a long side panel shows.
        width = max(20, (self.query_one("#adjudication-side").content_size.width or self.size.width // 2 - 3) - 2)
        table = labels_view(item.categories, item.labels, decided, self.draft, width)
        self.set_side(Group(table, notes_text(item.labels), status, keys))

    def on_resize(self) -> None:
        """The labels table or, narrower, the stacked labels: chosen at the panel's width."""
        if self.item is not None:
            self.call_after_refresh(self._show_item)

    @on(DataChanged)
    def _data_changed(self) -> None:
        self._read_queue()

    def category_pressed(self, category: FailureCategory) -> None:
        """A category's own key puts it in the draft or takes it out."""
        self.draft = self.draft ^ {category.id}
        self._show_item()

    def action_save(self) -> None:
        item = self.item
        if item is None or self.refused(item.prediction):
            return
        draft, seen = self.draft, self.seen_version
        note = item.decision.note if item.decision else ""
        self.app.push_screen(
            TextPrompt("Why these categories? (a note with the decision)", "optional", note or ""),
            lambda text: self._decide(item.prediction.id, draft, text, seen) if text is not None else None,
        )

    @work(thread=True, exclusive=False, group="adjudication-write", exit_on_error=False)
    def _decide(self, prediction_id: int, draft: frozenset[int], note: str, seen: int | None) -> None:
        try:
            decision = self.app.stores.get().triage.adjudicate(
                prediction_id, draft, note.strip() or None, self.adjudicator, seen
            )
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
        self.notify(
            f"{who} decided this answer meanwhile: their decision is shown; s again replaces it",
            severity="warning",
            markup=False,
        )
        self._read_item(self.queue[self.index])
