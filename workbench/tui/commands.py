"""The workbench's commands in Textual's command palette (ctrl+p).

Run names are untrusted: every hit is a plain Content (the palette's own highlighter
would read them as markup), and help texts never contain them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from workbench.render.display import one_line
from workbench.tui.screens.claim_actions import run_term

PRESETS = [
    ("Filter: contaminated claims", "flagged:contaminated"),
    ("Filter: any flag", "flagged:any"),
    ("Filter: not flagged", "-flagged:any"),
    ("Filter: main claims", "importance:Main"),
    ("Filter: claims with pages", "has:pages"),
    ("Filter: claims with question-answer evidence", "has:qa"),
    ("Filter: clear (every claim)", ""),
]
RUN_VIEWS = [
    ("Open run", "", "Every claim in the run"),
    ("Errors of run", "wrong", "Claims the run got wrong"),
    ("Abstentions of run", "status:abstain", "Claims the run abstained on"),
    ("Parse failures of run", "status:parse_failure", "Claims whose answer could not be read"),
    ("API errors of run", "status:error", "Claims the model never answered"),
    ("Triaged as flawed reasoning in run", "triage:flawed-reasoning", "Claims sorted into that category"),
]


class WorkbenchCommands(Provider):
    """Filter presets, runs (open, errors, triage), flag, jump to claim, run a model, metrics."""

    def commands(self) -> Iterator[tuple[str, Callable[[], object], str]]:
        app = self.app
        browser = app.browser
        for title, filter_text in PRESETS:
            yield title, partial(app.show_claims, filter_text), f"Show claims matching {filter_text or 'anything'}"
        for run in app.catalogue.runs:
            name = one_line(run.name, 40)
            for title, terms, help_text in RUN_VIEWS:
                yield f"{title} {name}", partial(app.show_claims, f"{run_term(run)} {terms}".strip()), help_text
            yield f"Triage run {name}", partial(app.open_triage, run.id), "Walk your queue, or the run's wrong answers"
            yield f"Agreement of run {name}", partial(app.open_agreement, run.id), "How far the annotators agree"
            yield f"Adjudicate run {name}", partial(app.open_adjudication, run.id), "Decide where annotators disagree"
        yield "Flag claims…", browser.action_flag, "Flag the highlighted claim, the marked rows or the filter"
        yield "Undo the last flag", app.action_undo, "Reverse the last flag or unflag"
        yield "Jump to claim…", browser.action_goto, "Go to a claim by id or DATASET:EXTERNAL_ID"
        yield "Run a model…", browser.action_run, "Run a model on this claim, the marked rows or the filter"
        yield "Choose runs shown in the table…", browser.action_choose_runs, "Pick verdict columns"
        yield "Metrics", app.action_metrics, "Scores per run (the metrics view)"
        yield "Contamination", app.action_contamination, "Contamination scores, matched evidence, threshold"
        yield "Datasets and curation funnels", app.action_datasets, "Each dataset's curation funnel and articles"
        yield "Help", app.action_help, "Every key and the filter language"

    async def discover(self) -> Hits:
        for title, command, help_text in self.commands():
            yield DiscoveryHit(Content(title), command, text=title, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, command, help_text in self.commands():
            score, offsets = matcher.fuzzy_search.match(matcher.query, title)
            if score > 0:
                display = Content(title)
                for offset in offsets:
                    display = display.stylize(matcher.match_style, offset, offset + 1)
                yield Hit(score, display, command, text=title, help=help_text)
