"""Every run's verdict for one claim beside the gold label; raw output one key away."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.render.claims import verdict_item
from workbench.render.display import literal, printable
from workbench.render.verdicts import legend
from workbench.tui.bundles import ClaimBundle
from workbench.tui.widgets.dialogs import TextPrompt, TextViewer, plain_title


class VerdictList(OptionList):
    """One entry per run that answered this claim, oldest run first."""

    HELP = """\
Verdicts side by side: each run's answer next to the gold label. ✓ right, ✗ wrong
(with the gold label beside it), ∅ abstained, ? parse failure (the model's answer
could not be read), ! API error (no answer at all). o shows the raw model output.
Under an explanation: its quality scores (EQ, 0-10) by judge runs and people; e gives
your own score of the highlighted run's explanation (empty removes it)."""
    BINDINGS = [
        Binding("o", "raw_output", "Raw output", id="verdicts.raw", tooltip="The model's raw output"),
        Binding(
            "e",
            "score_explanation",
            "Score",
            id="verdicts.score",
            tooltip="Your own 0-10 score of the highlighted run's explanation",
        ),
    ]

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, markup=False)
        self.bundle: ClaimBundle | None = None

    def show_bundle(self, bundle: ClaimBundle) -> None:
        """Replace the entries, keeping the highlighted run if it is still there."""
        previous = self.highlighted_option.id if self.highlighted_option else None
        self.bundle = bundle
        claim = bundle.claim
        options: list[Option] = [Option(self._gold_line(bundle), id="gold", disabled=True)]
        for run, prediction in bundle.verdicts:
            options.append(
                Option(
                    verdict_item(run, prediction, claim.label, bundle.scored, bundle.judgments_of(run)), id=str(run.id)
                )
            )
        if not bundle.verdicts:
            options.append(
                Option(
                    Text("no run has answered this claim yet (r runs a model)", style="dim"), id="none", disabled=True
                )
            )
        self.set_options(options)
        ids = [o.id for o in options]
        if previous in ids:
            self.highlighted = ids.index(previous)
        elif bundle.verdicts:
            self.highlighted = 1

    @staticmethod
    def _gold_line(bundle: ClaimBundle) -> Text:
        line = Text("gold label ", style="bold")
        line.append_text(literal(bundle.claim.label or "—", "bold reverse"))
        line.append("\n")
        line.append_text(legend())
        return line

    def _highlighted_answer(self):
        """(run, prediction) highlighted, or None (with a word to the user)."""
        option = self.highlighted_option
        if self.bundle is None or option is None or not (option.id or "").isdigit():
            self.app.notify("highlight a run's answer first", severity="warning")
            return None
        return next((r, p) for r, p in self.bundle.verdicts if r.id == int(option.id))

    def action_score_explanation(self) -> None:
        found = self._highlighted_answer()
        if found is None:
            return
        run, prediction = found
        if not (prediction.explanation or "").strip():
            self.app.notify("this answer has no explanation to score", severity="warning")
            return
        who = self.app.settings.annotator
        mine = next((j.score for j in self.bundle.judgments_of(run) if j.judge == f"person:{who}"), None)

        def save(text: str | None) -> None:
            if text is None:
                return
            score = person_score(text)
            if score is False:
                self.app.notify(
                    f"a score is a number from 0 to 10, not {printable(text)!r}", severity="error", markup=False
                )
                return
            self.app.stores.get().judging.set_person_score(prediction.id, who, score)
            self.app.data_changed()

        title = plain_title("your score (0-10) of the explanation by", run.name, "for claim", self.bundle.claim.id)
        self.app.push_screen(
            TextPrompt(
                title,
                "0-10",
                "" if mine is None else f"{mine:g}",
                hint=f"as {who}; the rubric: wrong verdict 0-4, right 5-10; empty removes your score",
            ),
            save,
        )

    def action_raw_output(self) -> None:
        found = self._highlighted_answer()
        if found is None:
            return
        run, prediction = found
        raw = prediction.raw_output if prediction.raw_output is not None else prediction.error
        title = plain_title("raw output of", run.name, "for claim", self.bundle.claim.id, f"({prediction.status})")
        self.app.push_screen(TextViewer(title, raw))


def person_score(text: str) -> float | None | bool:
    """A typed score: a number 0-10, None for an empty answer (remove), False otherwise."""
    text = text.strip()
    if not text:
        return None
    try:
        score = float(text)
    except ValueError:
        return False
    return score if 0.0 <= score <= 10.0 else False
