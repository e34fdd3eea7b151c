"""Run a model on this claim, the marked rows or the filter, with a preview of the exact prompt."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioSet, Select, Static
from textual.worker import get_current_worker

from workbench.render.display import literal, printable
from workbench.tui.errors import ReportsWorkerErrors
from workbench.tui.run_preview import MODEL_KINDS, RunChoice, checking_text, preview_text, setting_names, template_names
from workbench.tui.widgets.choosers import MarkedRadioButton
from workbench.tui.widgets.footer import KeyFooter


class RunDialog(ReportsWorkerErrors, ModalScreen):
    """Pick model, setting, template and claims; see the prompt; start (the run goes on in a worker)."""

    HELP = """\
Run a model. Model: the embedded SmolLM2 (gguf:default, runs here on the CPU), a local
GGUF model (a name from the Hugging Face cache, LM Studio, Ollama or models_dirs, typed
ahead: right arrow takes the suggestion; or a file's path), OpenAI or Anthropic (keys from OPENAI_API_KEY / ANTHROPIC_API_KEY or [keys] in the
config file), or any OpenAI-compatible server (give its URL). Setting: what the model
sees (context x evidence, e.g. claim+time+full). Template: the wording (auto picks the
one named after the claims' label space). Options: key=value words, concurrency and any
of `workbench run --param` (temperature, max_tokens, seed, timeout, attempts, json,
n_ctx, ...). Claims: the highlighted one, the marked rows
or every claim matching the filter. The preview is the exact messages sent for the
highlighted claim; under it, the estimate: prompt and generated tokens, the cost at the
price table's prices, a local model's time at its recorded speed. Search: let the model search before it answers (max_steps=,
max_searches=, claim_tokens= in the options; image_search=true adds image search with
searxng or serper, max_images= how many a vision model may look at); its steps, and the
images it looked at, show in the claim's Trajectory tab. ctrl+s (or the Start button) starts; progress shows in the browser
and K cancels."""
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # short terminals: the form rows closer together
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="run.cancel", tooltip="Close without running"),
        Binding("ctrl+s", "start", "Start", id="run.start", tooltip="Check the setup and start the run"),
    ]

    class Previewed(Message):
        def __init__(self, choice: RunChoice, text: Text):
            super().__init__()
            self.choice, self.text = choice, text

    class Estimated(Message):
        def __init__(self, choice: RunChoice, text: Text):
            super().__init__()
            self.choice, self.text = choice, text

    class ModelsFound(Message):
        def __init__(self, names: list[str], found):
            super().__init__()
            self.names, self.found = names, found

    class ModelHint(Message):
        def __init__(self, name: str, text: Text):
            super().__init__()
            self.name, self.text = name, text

    class Prepared(Message):
        def __init__(self, prepared, error: str | None, note: str | None = None):
            super().__init__()
            self.prepared, self.error, self.note = prepared, error, note

    def __init__(self, claim_id: int | None, marked: list[int], filter_text: str, count: int | None):
        super().__init__()
        self.claim_id = claim_id
        self.marked = marked
        self.filter_text = filter_text
        self.count = count
        self._starting = False
        self._found = None
        """The local models (backends.model_catalog), once the background look has found them."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide", id="run-dialog"):
            yield Label("Run a model", classes="dialog-title")
            with VerticalScroll(id="run-form"):
                with Horizontal(classes="form-row"):
                    yield Label("model", classes="form-label")
                    yield Select(
                        [(Text(title), key) for key, title in MODEL_KINDS],
                        value="default",
                        allow_blank=False,
                        compact=True,
                        id="run-model-kind",
                    )
                with Horizontal(classes="form-row", id="row-model-name"):
                    yield Label("name/path", classes="form-label")
                    yield Input(placeholder="model name or GGUF path", compact=True, id="run-model-name")
                yield Static(id="run-model-hint", markup=False)
                with Horizontal(classes="form-row", id="row-base-url"):
                    yield Label("base URL", classes="form-label")
                    yield Input(placeholder="http://127.0.0.1:8000/v1", compact=True, id="run-base-url")
                with Horizontal(classes="form-row"):
                    yield Label("setting", classes="form-label")
                    yield Select(
                        [(Text(s), s) for s in setting_names()],
                        value="claim",
                        allow_blank=False,
                        compact=True,
                        id="run-setting",
                    )
                with Horizontal(classes="form-row"):
                    yield Label("template", classes="form-label")
                    templates = template_names(self.app.settings)  # file names: shown literally
                    yield Select(
                        [(Text(printable(t)), t) for t in templates],
                        value="auto",
                        allow_blank=False,
                        compact=True,
                        id="run-template",
                    )
                with Horizontal(classes="form-row"):
                    yield Label("search", classes="form-label")
                    yield Select(
                        [
                            (Text("none: answer from the prompt"), ""),
                            (Text("fts: this database's evidence and documents (offline)"), "fts"),
                            (Text("searxng: a SearXNG server (searxng_url in the config)"), "searxng"),
                            (Text("tavily: Tavily's API (TAVILY_API_KEY)"), "tavily"),
                            (Text("serper: Google's results through Serper (SERPER_API_KEY)"), "serper"),
                        ],
                        value="",
                        allow_blank=False,
                        compact=True,
                        id="run-search",
                    )
                with Horizontal(classes="form-row"):
                    yield Label("run name", classes="form-label")
                    yield Input(placeholder="(automatic)", compact=True, id="run-name")
                with Horizontal(classes="form-row"):
                    yield Label("options", classes="form-label")
                    yield Input(
                        placeholder="concurrency=16 temperature=0.2 max_tokens=256", compact=True, id="run-options"
                    )
                with RadioSet(id="run-scope", compact=True):
                    yield MarkedRadioButton(
                        Text(f"this claim ({self.claim_id})"),
                        value=self.claim_id is not None and not self.marked,
                        disabled=self.claim_id is None,
                        id="scope-claim",
                    )
                    yield MarkedRadioButton(
                        Text(f"marked rows ({len(self.marked):,})"),
                        value=bool(self.marked),
                        disabled=not self.marked,
                        id="scope-marked",
                    )
                    count = "counting…" if self.count is None else f"{self.count:,}"
                    yield MarkedRadioButton(
                        Text(f"every claim matching the filter ({count})"),
                        value=self.claim_id is None and not self.marked,
                        id="scope-filter",
                    )
            # Outside the form, so the first messages show at 24 rows; it scrolls on its own (Tab to it).
            yield Label(
                Text(
                    f"prompt for claim {self.claim_id}"
                    if self.claim_id is not None
                    else "prompt preview (no claim highlighted)",
                    style="bold",
                )
            )
            with VerticalScroll(id="run-preview-box"):
                yield Static(Text("rendering…", style="dim"), id="run-preview")
            yield Static(id="run-estimate", markup=False)
            yield Static(id="run-error", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Start ^s", variant="primary", id="start", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield KeyFooter()  # the dialog's own keys, over the screen's

    def on_mount(self) -> None:
        self._show_model_rows()
        self.query_one("#run-model-kind", Select).focus()
        self._refresh_preview()
        self._find_models()

    # -- local models: type-ahead ----------------------------------------------------------

    @work(thread=True, exclusive=True, group="run-models", exit_on_error=False)
    def _find_models(self) -> None:
        from workbench.tui.run_preview import local_model_names

        names, found = local_model_names(self.app.settings)
        self.post_message(self.ModelsFound(names, found))

    @on(ModelsFound)
    def _models_found(self, message: ModelsFound) -> None:
        from textual.suggester import SuggestFromList

        self._found = message.found
        self.query_one("#run-model-name", Input).suggester = SuggestFromList(message.names, case_sensitive=False)
        self._refresh_model_hint()

    @on(Input.Changed, "#run-model-name")
    def _model_name_changed(self) -> None:
        self._refresh_model_hint()

    def _refresh_model_hint(self) -> None:
        if str(self.query_one("#run-model-kind", Select).value) == "gguf":
            self._hint_model(self.query_one("#run-model-name", Input).value.strip(), self._found)

    @work(thread=True, exclusive=True, group="run-model-hint", exit_on_error=False)
    def _hint_model(self, name: str, found) -> None:
        from workbench.tui.run_preview import model_hint

        text = model_hint(name, found)
        if not get_current_worker().is_cancelled:
            self.post_message(self.ModelHint(name, text))

    @on(ModelHint)
    def _model_hinted(self, message: ModelHint) -> None:
        self.query_one("#run-model-hint", Static).update(message.text)

    # -- the form ---------------------------------------------------------------------

    def choice(self) -> RunChoice:
        """What the form says now."""
        pressed = self.query_one("#run-scope", RadioSet).pressed_button
        scope = (pressed.id or "scope-filter").removeprefix("scope-") if pressed else "filter"
        return RunChoice(
            model_kind=str(self.query_one("#run-model-kind", Select).value),
            model_name=self.query_one("#run-model-name", Input).value.strip(),
            base_url=self.query_one("#run-base-url", Input).value.strip() or None,
            setting=str(self.query_one("#run-setting", Select).value),
            template=str(self.query_one("#run-template", Select).value),
            name=self.query_one("#run-name", Input).value.strip() or None,
            scope=scope,
            claim_id=self.claim_id,
            marked=list(self.marked),
            filter_text=self.filter_text,
            options=self.query_one("#run-options", Input).value,
            search=str(self.query_one("#run-search", Select).value),
        )

    def _show_model_rows(self) -> None:
        kind = self.query_one("#run-model-kind", Select).value
        self.query_one("#row-model-name").display = kind != "default"
        self.query_one("#run-model-hint").display = kind == "gguf"
        self.query_one("#row-base-url").display = kind == "openai-compatible"
        placeholder = {
            "gguf": "a name `workbench models` lists, or /path/to/model.gguf",
            "openai": "gpt-4o-mini",
            "anthropic": "claude-3-5-haiku-latest",
            "openai-compatible": "model name",
        }
        self.query_one("#run-model-name", Input).placeholder = placeholder.get(str(kind), "")

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "run-model-kind":
            self._show_model_rows()
            self._refresh_model_hint()
        self._refresh_preview()

    @on(RadioSet.Changed)
    def _scope_changed(self) -> None:
        self._refresh_preview()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    @on(Input.Changed, "#run-options, #run-model-name, #run-base-url")
    def _estimate_inputs_changed(self) -> None:
        self._refresh_estimate()

    # -- preview ----------------------------------------------------------------------------

    def _refresh_preview(self) -> None:
        self._render_preview(self.choice())
        self._refresh_estimate()

    def _refresh_estimate(self) -> None:
        self._estimate(self.choice())

    @work(thread=True, exclusive=True, group="run-estimate", exit_on_error=False)
    def _estimate(self, choice: RunChoice) -> None:
        from workbench.tui.run_preview import estimate_line

        text = estimate_line(self.app.stores.get(), choice, self.app.settings)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Estimated(choice, text))

    @on(Estimated)
    def _estimated(self, message: Estimated) -> None:
        self.query_one("#run-estimate", Static).update(message.text)

    @work(thread=True, exclusive=True, group="run-preview", exit_on_error=False)
    def _render_preview(self, choice: RunChoice) -> None:
        text = preview_text(self.app.stores.get(), choice, self.app.settings)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Previewed(choice, text))

    @on(Previewed)
    def _previewed(self, message: Previewed) -> None:
        self.query_one("#run-preview", Static).update(message.text)

    # -- starting ------------------------------------------------------------------------------

    def action_start(self) -> None:
        if self._starting:
            return
        choice = self.choice()
        problem = choice.problem()
        if problem:
            self._show_error(problem)
            return
        self._starting = True
        self._show_error(None, Text(checking_text(choice), style="dim"))
        self._prepare(choice)

    @work(thread=True, exclusive=True, group="run-prepare", exit_on_error=False)
    def _prepare(self, choice: RunChoice) -> None:
        from workbench.runs.engine import RunSetupError, prepare_run, waiting_message

        store = self.app.stores.get()
        try:
            prepared = prepare_run(store, choice.request())
        except RunSetupError as error:
            self.post_message(self.Prepared(None, str(error)))
            return
        waiting = store.batches.waiting(prepared.run.id)
        if waiting and prepared.pending_claim_ids:  # its claims are out at a batch API: never twice
            self.post_message(self.Prepared(None, waiting_message(prepared.run.name, waiting)))
            return
        from workbench.tui.run_preview import budget_note
        from workbench.usage.budget import BudgetError

        try:  # a continued run keeps its --max-cost: checked here, said before it starts
            note = budget_note(store, prepared, self.app.settings)
        except BudgetError as error:
            self.post_message(self.Prepared(None, str(error)))
            return
        self.post_message(self.Prepared(prepared, None, note))

    @on(Prepared)
    def _prepared(self, message: Prepared) -> None:
        self._starting = False
        if message.error is not None:
            self._show_error(message.error)
            return
        if not message.prepared.pending_claim_ids:
            self.notify(
                f"{printable(message.prepared.run.name)} already has every answer"
                " (the response cache or an earlier run)",
                markup=False,
            )
        if message.note:
            self.notify(message.note, markup=False, timeout=10)
        self.dismiss(message.prepared)

    def _show_error(self, error: str | None, text: Text | None = None) -> None:
        box = self.query_one("#run-error", Static)
        box.update(text if text is not None else literal(error or "", "bold red"))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_worker_state_changed(self, event) -> None:
        super().on_worker_state_changed(event)
        if event.worker.group == "run-prepare" and event.state.name == "ERROR":
            self._starting = False
            self._show_error(f"could not start: {event.worker.error}")
