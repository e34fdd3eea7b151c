"""One claim whole: metadata, question and response, evidence per setting, verdicts."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from workbench.render.claims import claim_body, claim_header, full_body, pages_body, qa_body, reference_body
from workbench.render.display import literal
from workbench.render.triage_items import history_lines
from workbench.tui.bundles import ClaimBundle, load_bundle
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.messages import DataChanged
from workbench.tui.widgets.claim_images import ClaimImages
from workbench.tui.widgets.footer import KeyFooter
from workbench.tui.widgets.run_status import RunStatus
from workbench.tui.widgets.trajectory_view import TrajectoryView
from workbench.tui.widgets.verdicts import VerdictList

SORT_FIELDS = {"date": "claim_date"}
TABS = [
    ("claim", "Claim"),
    ("reference", "Reference"),
    ("full", "Full"),
    ("pages", "Pages"),
    ("qa", "QA"),
    ("verdicts", "Verdicts"),
    ("images", "Images"),
    ("trajectory", "Trajectory"),
    ("history", "History"),
]


class EvidenceText(VerticalScroll):
    """A scrollable, literal text (a claim's part or one setting's evidence)."""

    HELP = """\
Evidence exactly as each input setting shows it to a model. Reference: the quoted
passage. Full: the cited page cut to a 6,000-character window, the passage
highlighted. Pages: every candidate page's 600-character window, the cited one marked
CITED. QA: question-answer evidence. ↑/↓, PageUp/PageDown scroll."""

    def compose(self) -> ComposeResult:
        yield Static(Text("reading…", style="dim"))

    def show(self, text: Text) -> None:
        self.query_one(Static).update(text)


def history_body(bundle: ClaimBundle, annotator: str) -> Text:
    """The History tab: every change to the claim's labels, as `annotator` may see them."""
    body = Text("History of this claim's labels", style="bold underline")
    body.append(" (as ")
    body.append_text(literal(annotator, "bold"))
    body.append(")\n")
    body.append_text(history_lines(bundle.history))
    if bundle.hidden_history:
        body.append(
            f"\n{bundle.hidden_history} change(s) to others' labels hidden: the answers are in your blind queue"
            " and you have not reviewed them yet",
            style="italic",
        )
    return body


class ClaimDetailScreen(ReportsWorkerErrors, Screen):
    """The claim, its evidence tabs and the verdicts of every run."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [
        Binding("escape", "back", "Back", id="detail.back", tooltip="Back to the claims table"),
        Binding("right_square_bracket", "step(1)", "Next", id="detail.next", tooltip="The next claim in the table"),
        Binding(
            "left_square_bracket", "step(-1)", "Prev", id="detail.previous", tooltip="The previous claim in the table"
        ),
        Binding("1", "tab('claim')", "Claim", show=False, id="detail.tab_claim", tooltip="Claim tab"),
        Binding(
            "2",
            "tab('reference')",
            "Reference",
            show=False,
            id="detail.tab_reference",
            tooltip="Reference evidence tab",
        ),
        Binding("3", "tab('full')", "Full", show=False, id="detail.tab_full", tooltip="Full window tab"),
        Binding("4", "tab('pages')", "Pages", show=False, id="detail.tab_pages", tooltip="Pages tab"),
        Binding("5", "tab('qa')", "QA", show=False, id="detail.tab_qa", tooltip="Question-answer tab"),
        Binding(
            "6,v",
            "tab('verdicts')",
            "Verdicts",
            id="detail.tab_verdicts",
            tooltip="Every run's verdict beside the gold label",
        ),
        Binding(
            "7,i",
            "tab('images')",
            "Images",
            show=False,
            id="detail.tab_images",
            tooltip="The claim's images, drawn in the terminal",
        ),
        Binding(
            "8",
            "tab('trajectory')",
            "Trajectory",
            show=False,
            id="detail.tab_trajectory",
            tooltip="What search runs searched and read for this claim",
        ),
        Binding(
            "9,h",
            "tab('history')",
            "History",
            show=False,
            id="detail.tab_history",
            tooltip="Every change to this claim's labels: who, when, old, new",
        ),
        Binding("c", "copy_id", "Copy id", id="detail.copy_id", tooltip="Copy the claim id"),
        Binding("f", "flag", "Flag", id="detail.flag", tooltip="Flag this claim"),
        Binding("r", "run", "Run", id="detail.run", tooltip="Run a model on this claim"),
        Binding(
            "n",
            "error(True)",
            "Next error",
            show=False,
            id="detail.next_error",
            tooltip="Next claim the focus run got wrong",
        ),
        Binding(
            "N",
            "error(False)",
            "Prev error",
            show=False,
            id="detail.previous_error",
            tooltip="Previous claim the focus run got wrong",
        ),
    ]

    class Loaded(Message):
        def __init__(self, claim_id: int, bundle: ClaimBundle | None):
            super().__init__()
            self.claim_id = claim_id
            self.bundle = bundle

    def __init__(self, claim_id: int):
        super().__init__()
        self.claim_id = claim_id
        self.bundle: ClaimBundle | None = None
        self._epoch = 0

    def compose(self) -> ComposeResult:
        yield Label(Text(f"claim {self.claim_id}", style="bold"), id="claim-header")
        with Horizontal(id="detail-body"):
            with TabbedContent(id="detail-tabs"):
                for key, title in TABS:
                    with TabPane(title, id=f"tab-{key}"):
                        if key == "verdicts":
                            yield VerdictList(id="verdict-list")
                        elif key == "images":
                            yield ClaimImages(id="claim-images")
                        elif key == "trajectory":
                            yield TrajectoryView(id="trajectory-view")
                        else:
                            yield EvidenceText(id=f"text-{key}")
            # On wide terminals the verdicts stay in view beside the claim and its evidence.
            yield VerdictList(id="side-verdicts")
        yield RunStatus()
        yield KeyFooter()  # fitted to the width: whole keys only

    def on_mount(self) -> None:
        self._load(self.claim_id)

    def on_screen_resume(self) -> None:
        if self._epoch != self.app.data_epoch:
            self._load(self.claim_id)

    @on(DataChanged)
    def _data_changed(self) -> None:
        self._load(self.claim_id)

    @work(thread=True, exclusive=True, group="claim", exit_on_error=False)
    def _load(self, claim_id: int) -> None:
        bundle = load_bundle(self.app.stores.get(), claim_id, self.app.settings.annotator)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(claim_id, bundle))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if message.claim_id != self.claim_id:
            return
        self._epoch = self.app.data_epoch
        bundle = message.bundle
        if bundle is None:
            self.query_one("#claim-header", Label).update(Text(f"claim {self.claim_id} no longer exists"))
            return
        self.bundle = bundle
        claim = bundle.claim
        self.query_one("#claim-header", Label).update(claim_header(claim))
        found = self.app.browser.table.good_query.filter  # what the browser searched for, marked
        bodies = {
            "claim": claim_body(claim, bundle.flags, found),
            "reference": reference_body(claim, found),
            "full": full_body(claim, found),
            "pages": pages_body(claim, found),
            "qa": qa_body(claim),
            "history": history_body(bundle, self.app.settings.annotator),
        }
        for key, body in bodies.items():
            self.query_one(f"#text-{key}", EvidenceText).show(body)
        for verdicts in self.query(VerdictList):
            verdicts.show_bundle(bundle)
        self.query_one(ClaimImages).show(claim.images, bundle.image_data)
        self.query_one(TrajectoryView).show(bundle.trajectories, bundle.retrieved_facts, bundle.retrieved)

    def show_claim(self, claim_id: int) -> None:
        """Switch to another claim without leaving the screen."""
        self.claim_id = claim_id
        self._load(claim_id)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_tab(self, key: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{key}"
        pane = self.query_one(f"#tab-{key}", TabPane)
        pane.query_children().first().focus()

    def action_step(self, step: int) -> None:
        table = self.app.browser.table
        before = table.current
        table.set_cursor(table.cursor + step)
        row = table.current
        if row is None or (before is not None and row.id == before.id):
            self.notify("no more claims this way (yet: the next page may still be reading)")
            return
        self.show_claim(row.id)

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(str(self.claim_id))
        self.notify(f"copied claim id {self.claim_id}")

    def action_flag(self) -> None:
        from workbench.tui.screens.flag_dialog import FlagDialog

        browser = self.app.browser  # the claims matching the browser's filter, as from there
        dialog = FlagDialog(
            self.claim_id, [], browser.table.good_query.filter, browser.count, list(self.app.catalogue.flag_kinds)
        )
        self.app.push_screen(dialog, browser.actions.flag_requested)

    def action_run(self) -> None:
        self.app.browser.actions.run(claim_id=self.claim_id)

    def action_error(self, forward: bool) -> None:
        if self.bundle is None:
            return
        browser = self.app.browser
        if browser.focus_run is None:  # said in this screen's keys (v here opens the Verdicts tab)
            self.notify("no run to step through yet: r runs a model on this claim", severity="warning")
            return
        sort = browser.table.query.sort
        claim = self.bundle.claim
        value = getattr(claim, SORT_FIELDS.get(sort, sort))
        browser.actions.step_error(forward, key=(value, claim.id), then=self.show_claim)
