"""Starting a judge run from the metrics view (j): the first run's explanations, scored
0-10 by a judge model the user names, on the same run control as any model run."""

from __future__ import annotations

from textual import work

from workbench.render.display import printable
from workbench.tui.widgets.dialogs import TextPrompt, plain_title


class JudgesExplanations:
    """For the metrics screen: `action_judge` asks for a model and starts the judge run.

    Needs `self.update` (the numbers shown), `self.app` and `self.notify` from the screen.
    """

    def action_judge(self) -> None:
        """Ask for a judge model, then score the first run's explanations with it."""
        if self.update is None or not self.update.runs:
            self.notify("no run to judge yet", severity="warning")
            return
        run = self.update.runs[0].run

        def chosen(text: str | None) -> None:
            words = (text or "").split()
            if words:
                model = words[0]
                loads = " (a GGUF model loads)" if model.startswith("gguf:") else ""
                self.app.runs.preparing(f"judge of {run.name}", f"checking the judge {model}{loads}…")
                self._prepare_judge(run.id, model, words[1] if len(words) > 1 else None)

        title = plain_title("judge the explanations of run", run.name, "with the model")
        self.app.push_screen(
            TextPrompt(
                title,
                "gguf:default",
                "gguf:default",
                hint="MODEL [BASE_URL], e.g. openai:gpt-4.1, gguf:PATH, openai-compatible:NAME"
                " http://host:8000/v1; the same judge again continues its run",
            ),
            chosen,
        )

    @work(thread=True, group="metrics-judge", exit_on_error=False)
    def _prepare_judge(self, run_id: int, model: str, base_url: str | None) -> None:
        """Off the UI thread: a GGUF judge loads here, and an API judge is asked once."""
        from workbench.judging.runs import JudgeRequest, prepare_judge_run
        from workbench.runs.types import RunSetupError

        try:
            prepared = prepare_judge_run(self.app.stores.get(), JudgeRequest(str(run_id), model, base_url))
        except RunSetupError as error:
            self.app.call_from_thread(self.app.runs.not_started, str(error))
            self.app.call_from_thread(self.notify, printable(str(error)), severity="error", markup=False)
            return
        if not prepared.pending_claim_ids:
            self.app.call_from_thread(self.app.runs.not_started)
            self.app.call_from_thread(
                self.notify, f"every explanation has a judgment in {printable(prepared.run.name)}", markup=False
            )
            return
        self.app.call_from_thread(self.app.runs.start, prepared)  # the progress line and K, on this screen too
