"""What the triage and adjudication screens share: a run's answers one at a time from a
queue, the answer and its evidence in tabs beside a side panel, n/p to walk the queue,
and a failure category's own key acting on the answer shown."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Label, Static, TabbedContent, TabPane

from store import FailureCategory, Prediction
from workbench.render.claims import full_body, pages_body, qa_body, reference_body
from workbench.render.display import literal
from workbench.triage.answers import refusal
from workbench.tui.bundles import ClaimBundle
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.screens.detail import EvidenceText
from workbench.tui.triage_text import answer_body
from workbench.tui.widgets.footer import KeyFooter

EVIDENCE_TABS = (("answer", "Answer"), ("reference", "Reference"), ("full", "Full"), ("pages", "Pages"), ("qa", "QA"))


class AnswerQueueScreen(ReportsWorkerErrors, Screen):
    """A queue of one run's answers. Subclasses name their widgets' ids (PREFIX, SIDE),
    the header's verb, how to open the index-th answer and what a category key does."""

    PREFIX: ClassVar[str]
    """The start of every widget id: "#PREFIX-header", "#PREFIX-answer"..."""
    SIDE: ClassVar[str]
    """The side panel's id after the prefix."""
    VERB: ClassVar[str]
    """The header's first word."""

    class ItemRead(Message):
        """An answer of the queue read (None: the run has no answer for the claim any more)."""

        def __init__(self, claim_id: int, item):
            super().__init__()
            self.claim_id, self.item = claim_id, item

    def __init__(self, run_id: int, run_name: str):
        super().__init__()
        self.run_id, self.run_name = run_id, run_name
        self.queue: list[int] = []
        """Claim ids, in queue order."""
        self.index = 0
        self.item = None
        """The answer shown (with its bundle, prediction and categories), once read."""

    def compose(self) -> ComposeResult:
        prefix = self.PREFIX
        yield Label(self._title(), id=f"{prefix}-header")
        with Horizontal(id=f"{prefix}-body"):
            with TabbedContent(id=f"{prefix}-tabs"):
                for key, title in EVIDENCE_TABS:
                    with TabPane(title, id=f"{prefix}-tab-{key}"):
                        yield EvidenceText(id=f"{prefix}-{key}")
            with VerticalScroll(id=f"{prefix}-side"):
                yield Static(Text("reading…", style="dim"), id=f"{prefix}-{self.SIDE}")
        yield KeyFooter()  # fitted to the width: whole keys only

    def _title(self) -> Text:
        """'VERB RUN · as NAME' (names literal: people type them)."""
        title = Text(f"{self.VERB} ", style="bold")
        title.append_text(literal(self.run_name, "bold"))
        title.append(" · as ")
        title.append_text(literal(self.app.settings.annotator, "bold reverse"))
        return title

    def set_header(self, header: Text) -> None:
        self.query_one(f"#{self.PREFIX}-header", Label).update(header)

    def set_side(self, content) -> None:
        self.query_one(f"#{self.PREFIX}-{self.SIDE}", Static).update(content)

    def show_evidence(self, bundle: ClaimBundle, prediction: Prediction) -> None:
        """The answer and the claim's evidence, one tab each."""
        claim = bundle.claim
        bodies = {
            "answer": answer_body(bundle, prediction),
            "reference": reference_body(claim),
            "full": full_body(claim),
            "pages": pages_body(claim),
            "qa": qa_body(claim),
        }
        for key, body in bodies.items():
            self.query_one(f"#{self.PREFIX}-{key}", EvidenceText).show(body)

    def refused(self, prediction: Prediction) -> bool:
        """True, having said why, when the answer is not wrong: failure categories are for
        wrong answers (an assigned queue can hold right ones)."""
        why = refusal(prediction.outcome, self.run_name, prediction.claim_id)
        if why is not None:
            self.notify(why, severity="warning", markup=False)
        return why is not None

    def _open(self, index: int) -> None:
        raise NotImplementedError

    def category_pressed(self, category: FailureCategory) -> None:
        raise NotImplementedError

    def on_key(self, event: events.Key) -> None:
        """A failure category's own key (keys live in the database, not in BINDINGS)."""
        if self.item is None or isinstance(self.focused, Input) or not event.character:
            return
        category = next((c for c in self.item.categories if c.key and c.key == event.character), None)
        if category is not None:
            event.stop()
            self.category_pressed(category)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_step(self, step: int) -> None:
        if self.queue:
            self._open(self.index + step)
