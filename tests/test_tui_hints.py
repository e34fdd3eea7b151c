"""Item 1 of issue 20: every hint on every screen names a key that does that there. Each
test opens a screen as a person would, sees the hint, presses the key it names and checks
that it did what the hint said. A scan of the TUI's texts finds every hint-shaped phrase,
so a hint added later without a walk here fails `test_every_hint_in_the_code_is_walked`;
the F1 help texts' keys are checked against the bindings of the screen they describe."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, TabbedContent

from tests.loopback_servers import LoopbackServer
from tests.support.contamination import make_scores
from tests.support.tui import add_run, gold, make_app, rendered, screen_text, settle, until, wrong_label
from workbench.tui.app import WorkbenchApp
from workbench.tui.key_catalogue import binding_owners, own_bindings
from workbench.tui.screens.contamination.screen import ContaminationScreen
from workbench.tui.screens.detail import ClaimDetailScreen
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.metrics.screen import MetricsScreen
from workbench.tui.screens.run_dialog import RunDialog
from workbench.tui.screens.run_picker import RunPicker
from workbench.tui.widgets.dialogs import ConfirmDialog, TextPrompt, TextViewer
from workbench.tui.widgets.run_status import RunStatus

TUI = Path(__file__).resolve().parents[1] / "workbench" / "tui"
KEY = r"(?:[A-Za-z?+<>\[\]{}]|ctrl\+\w+|esc|Esc|Enter|Tab|F1|space|shift\+Tab)"
HINT_SHAPES = [
    r"\bpress \S+",
    rf"\({KEY}(?=[ )])[^()]*\)",
    rf"(?:^|[;:,.(·] ?|\band |\bor ){KEY}(?: / \S+)? (?:cancels|toggles|to [a-z]+|runs|reviewed|note|next|"
    r"agreement|adjudicate|undoes|copies|closes|marks|scroll|opens|moves|starts|gives|shows|cycle|types|back|"
    r"flags|picks|new|unmarks|removes|swaps|writes|evidence)\b",
    r"\b[A-Za-z]: next\b",
    r"· (?:enter|esc|[A-Za-z]): ",
    r"\b(?:with|press) [A-Za-z?](?=[,.;)]| or| to|$)",
]
WALKED = {
    "(u to undo)": "test_u_to_undo",
    "press v to pick runs (or r to start one)": "test_the_browser_without_a_run_names_v_and_r",
    "no run to step through yet: r runs a model on this claim": "test_the_claim_detail_names_its_own_keys",
    "(r runs a model)": "test_the_claim_detail_names_its_own_keys",
    "cancel it first (K)": "test_k_cancels_the_run_going",
    "K cancels": "test_k_cancels_the_run_going",
    " (b)  ": "test_the_metrics_views_labels_name_their_keys",
    "flag kind (k)": "test_the_metrics_views_labels_name_their_keys",
    "cutoff (c)": "test_the_metrics_views_labels_name_their_keys",
    "type a cutoff date (c)": "test_the_metrics_views_labels_name_their_keys",
    "browser filter (Enter)": "test_enter_in_the_metrics_view_opens_claims",
    "start one from the browser (r)": "test_with_no_runs_the_views_name_r_in_the_browser",
    "press r in the browser to start one": "test_with_no_runs_the_views_name_r_in_the_browser",
    "m: next": "test_the_contamination_header_names_m",
    "r reviewed + next; e note; + new category; < > evidence tabs; a agreement; d adjudicate": "test_the_triage_panel_names_keys_that_work_there",
    " (y)": "test_a_confirmation_takes_y_and_n",
    " (n)": "test_a_confirmation_takes_y_and_n",
    "(F1 help)": "test_f1_in_the_filter_bar",
    "(space marks rows in the table)": "test_space_marks_the_row_and_moves_on",
    "c copies · esc closes": "test_the_raw_output_viewer_copies_and_closes",
    "Enter opens a slice's claims": "test_enter_in_the_metrics_view_opens_claims",
    "Enter opens a cell's claims": "test_enter_in_the_metrics_view_opens_claims",
    "(space ticks, enter accepts)": "test_the_run_picker_ticks_with_space_and_accepts_with_enter",
    "Metrics (m)": "test_the_help_titles_name_the_keys_that_open_them",
    "Contamination (C)": "test_the_help_titles_name_the_keys_that_open_them",
    "Runs shown (v)": "test_the_help_titles_name_the_keys_that_open_them",
    "Datasets (D)": "test_the_help_titles_name_the_keys_that_open_them",
    "enter: the claims curation kept · a: every claim": "test_the_datasets_header_names_enter_and_a",
    "no run to triage yet: start one with r, or pick runs with v": "test_the_browser_without_a_run_names_v_and_r",
    "Agreement (a in triage)": "test_the_triage_panel_names_keys_that_work_there",
    "Adjudication (d in triage)": "test_the_triage_panel_names_keys_that_work_there",
}
NOT_HINTS = {
    "(a local model: a few seconds the first time)",
    "(a GGUF model loads)",
    "(a model being checked or loaded)",
    "(a note with the decision)",
    "(a yes/no decision per answer)",
    " change(s) to others",
    " (A) vs ",
    " (B) on ",
    " (B − A)",
}


def hint_phrases() -> list[tuple[str, str]]:
    """(file:line, text) of every string in the TUI with a hint's shape (docstrings and the
    F1 help texts aside: those are checked against the bindings below)."""
    found = []
    for path in sorted(TUI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and ast.get_docstring(node)
        }
        skipped |= {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "HELP" for t in node.targets)
        }
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            elif isinstance(node, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            else:
                continue
            if any(re.search(shape, text) for shape in HINT_SHAPES):
                found.append((f"{path.relative_to(TUI)}:{node.lineno}", text))
    return found


def test_every_hint_in_the_code_is_walked():
    unwalked = [
        (where, text)
        for where, text in hint_phrases()
        if not any(h in text or text.strip() in h for h in WALKED) and not any(n in text for n in NOT_HINTS)
    ]
    assert unwalked == []


HELP_CONTEXT = {
    "ClaimTable": ["ClaimsScreen"],
    "FilterBar": ["ClaimsScreen"],
    "VerdictList": ["ClaimDetailScreen"],
    "FlagDialog": ["ClaimTable"],
    "ScopeSet": ["FlagDialog"],
    "RunPicker": ["ClaimsScreen"],
}
"""Widgets and dialogs whose help may name the keys of the screen they sit on or come from."""
HELP_WORDS = {"(a yes"}
"""Phrases of a help text shaped like a key and a verb that are neither."""
ALWAYS = {"tab", "shift+tab", "escape", "esc", "enter", "up", "down", "pageup", "pagedown", "?", "f1"}


def test_the_keys_each_help_text_names_are_bound_where_it_says():
    owners = {owner.__name__: owner for _, owner in binding_owners(WorkbenchApp)}
    keys_of = {
        name: {k.strip().lower() for b in own_bindings(o) for k in b.key.split(",")} for name, o in owners.items()
    }
    names = {
        "question_mark": "?",
        "plus": "+",
        "left_square_bracket": "[",
        "right_square_bracket": "]",
        "left_curly_bracket": "{",
        "right_curly_bracket": "}",
        "slash": "/",
        "greater_than_sign": ">",
        "less_than_sign": "<",
    }
    keys_of = {n: {names.get(k, k) for k in ks} for n, ks in keys_of.items()}
    wrong = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            help_text = next(
                (
                    s.value.value
                    for s in node.body
                    if isinstance(s, ast.Assign) and any(getattr(t, "id", "") == "HELP" for t in s.targets)
                ),
                None,
            )
            if help_text is None:
                continue
            allowed = keys_of.get(node.name, set()) | keys_of["WorkbenchApp"] | ALWAYS
            for other in HELP_CONTEXT.get(node.name, []):
                allowed |= keys_of.get(other, set())
            for match in re.finditer(rf"(?:^|[;:,.(] ?|\band )(?P<keys>{KEY}(?: / {KEY})?) [a-z]+s\b", help_text, re.M):
                for key in match.group("keys").split(" / "):
                    if key.lower() not in allowed and key not in allowed and match.group(0).strip() not in HELP_WORDS:
                        wrong.append((node.name, match.group(0).strip()))
    assert wrong == []


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def line_of(app) -> str:
    status = app.screen.query_one(RunStatus)
    return str(status.render()) if status.display else ""


@pytest.fixture
def answered(demo_store):
    """A run over six demo claims, every other answer wrong (triage has work to do)."""
    ids = demo_store.claims.ids("dataset:demo -label:Unclear -label:Unevaluable")[:6]
    answers = {
        i: ("ok", wrong_label(gold(demo_store, i)) if n % 2 == 0 else gold(demo_store, i)) for n, i in enumerate(ids)
    }
    return add_run(demo_store, "sys", answers)


async def test_u_to_undo(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        first = app.browser.table.current.id
        await pilot.press("f", "enter")
        await until(pilot, lambda: any("(u to undo)" in n for n in notes(app)))
        assert demo_store.annotations.flags_for(first)
        await pilot.press("u")
        await until(pilot, lambda: not demo_store.annotations.flags_for(first))


async def test_the_browser_without_a_run_names_v_and_r(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("E")
        await settle(pilot, app)
        assert "no run chosen: press v to pick runs (or r to start one)" in notes(app)
        await pilot.press("t")
        await settle(pilot, app)
        assert "no run to triage yet: start one with r, or pick runs with v" in notes(app)
        await pilot.press("v")
        await settle(pilot, app)
        assert isinstance(app.screen, RunPicker)
        await pilot.press("escape", "r")
        await settle(pilot, app)
        assert isinstance(app.screen, RunDialog)


async def test_the_claim_detail_names_its_own_keys(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        claim_id = app.browser.table.current.id
        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("n")
        await settle(pilot, app)
        assert "no run to step through yet: r runs a model on this claim" in notes(app)
        await pilot.press("v")  # here v is the Verdicts tab, as the footer says
        await settle(pilot, app)
        assert "no run has answered this claim yet (r runs a model)" in screen_text(app)
        await pilot.press("r")
        await settle(pilot, app)
        assert isinstance(app.screen, RunDialog) and app.screen.claim_id == claim_id
        assert f"this claim ({claim_id})" in screen_text(app)


async def test_k_cancels_the_run_going(demo_store, db_path):
    from workbench.runs.engine import RunRequest, prepare_run

    def slow(body):
        return json.dumps({"verdict": "Supported", "explanation": "slowly"})

    app = make_app(db_path)
    with LoopbackServer("openai", latency=0.5, answer=slow) as server:
        prepared = prepare_run(
            demo_store,
            RunRequest(model="openai-compatible:slow", base_url=server.url, dataset="demo", concurrency=1, name="slow"),
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            assert app.runs.start(prepared)
            await until(pilot, lambda: "K cancels" in line_of(app))
            assert not app.runs.start(prepared)
            await until(pilot, lambda: "a run is already going; cancel it first (K)" in notes(app))
            await pilot.press("K")
            await until(pilot, lambda: not app.runs.active)
            assert app.runs.state.status == "cancelled"


async def test_the_metrics_views_labels_name_their_keys(demo_store, db_path, answered):
    app = make_app(db_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        app.push_screen(MetricsScreen(db_path, [answered.id], resamples=50))
        await until(pilot, lambda: app.screen.update is not None)
        screen = app.screen
        assert "by importance (b)" in screen_text(app)
        await pilot.press("b")
        await until(pilot, lambda: "by task (b)" in screen_text(app))
        assert "flag kind (k)" in screen_text(app) and "cutoff (c)" in screen_text(app)
        await pilot.press("k")
        assert screen.focused is screen.query_one("#flag-kind", Input)
        await pilot.press("escape", "c")
        assert screen.focused is screen.query_one("#cutoff", Input)
        await pilot.press("escape")
        while screen.field != "cutoff":
            await pilot.press("b")
            await settle(pilot, app)
        await pilot.press("escape")  # the cutoff field asked for a date: leave it empty
        await until(pilot, lambda: "type a cutoff date (c)" in screen_text(app))
        await pilot.press("c")
        assert screen.focused is screen.query_one("#cutoff", Input)


async def test_enter_in_the_metrics_view_opens_claims(demo_store, db_path, answered):
    """On a flip row, a breakdown row and a confusion cell, as their titles say."""
    other = add_run(
        demo_store, "other", {i: ("ok", gold(demo_store, i)) for i in demo_store.runs.claim_ids(answered.id)}
    )
    app = make_app(db_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        for selector, row, expected in (
            ("#flips", 1, "run:sys wrong run:other right"),
            ("#breakdown", 0, "run:sys importance:Main"),
            ("ConfusionTable", 0, "run:sys label:Supported verdict:Supported"),
        ):
            app.push_screen(MetricsScreen(db_path, [answered.id, other.id], resamples=50))
            await until(pilot, lambda: app.screen.update is not None and app.screen.update.comparison is not None)
            assert "Enter opens a cell's claims" in " ".join(screen_text(app).split())
            table = app.screen.query(selector).first(DataTable)
            if selector == "#flips":
                assert "browser filter (Enter)" in [str(c.label) for c in table.columns.values()]
            table.focus()
            table.move_cursor(row=row, column=1 if selector == "ConfusionTable" else 0)
            await pilot.press("enter")
            await settle(pilot, app)
            assert app.screen is app.browser and app.browser.table.query.filter == expected


async def test_the_run_picker_ticks_with_space_and_accepts_with_enter(demo_store, db_path, answered):
    other = add_run(
        demo_store, "other", {i: ("ok", gold(demo_store, i)) for i in demo_store.runs.claim_ids(answered.id)}
    )
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert list(app.browser.table.query.run_ids) == [other.id, answered.id]
        await pilot.press("v")
        await settle(pilot, app)
        assert "(space ticks, enter accepts)" in screen_text(app)
        await pilot.press("space", "enter")  # the first run un-ticked
        await settle(pilot, app)
        assert list(app.browser.table.query.run_ids) == [answered.id]


async def test_with_no_runs_the_views_name_r_in_the_browser(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("m")
        await until(pilot, lambda: "start one from the browser (r)" in screen_text(app))
        await pilot.press("escape", "r")
        await settle(pilot, app)
        assert isinstance(app.screen, RunDialog)
        await pilot.press("escape", "v")
        await settle(pilot, app)
        assert "no runs yet: press r in the browser to start one" in screen_text(app)
        await pilot.press("escape", "r")
        await settle(pilot, app)
        assert isinstance(app.screen, RunDialog)


async def test_the_contamination_header_names_m(demo_store, db_path):
    make_scores(demo_store, "gguf:A")
    make_scores(demo_store, "gguf:B")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("C")
        await until(pilot, lambda: "(model/metric 1 of 2; m: next)" in screen_text(app))
        assert isinstance(app.screen, ContaminationScreen)
        await pilot.press("m")
        await until(pilot, lambda: "(model/metric 2 of 2; m: next)" in screen_text(app))


async def test_the_triage_panel_names_keys_that_work_there(demo_store, db_path, answered):
    from workbench.tui.screens.adjudication import AdjudicationScreen
    from workbench.tui.screens.new_category import CategoryKeyPrompt
    from workbench.tui.screens.team import AgreementScreen
    from workbench.tui.screens.triage import TriageScreen

    app = make_app(db_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TriageScreen) and app.screen.item is not None)
        triage = app.screen
        panel = triage.query_one("#triage-categories")
        await until(pilot, lambda: "< > evidence tabs" in rendered(panel))
        assert "r reviewed + next; e note; + new category; < > evidence tabs; a agreement; d adjudicate" in rendered(
            panel
        )
        tabs = triage.query_one(TabbedContent)
        await pilot.press("greater_than_sign")
        assert tabs.active == "triage-tab-reference"
        await pilot.press("less_than_sign", "less_than_sign")
        assert tabs.active == "triage-tab-qa"
        for key, dialog in (("e", TextPrompt), ("plus", CategoryKeyPrompt)):  # + asks the key first
            await pilot.press(key)
            await settle(pilot, app)
            assert isinstance(app.screen, dialog)
            await pilot.press("escape")
        first = triage.item.prediction
        await pilot.press("r")  # reviewed, and on to the next
        await until(pilot, lambda: triage.item is not None and triage.item.prediction.id != first.id)
        assert demo_store.triage.label(first.id, "tester").done
        await pilot.press("a")
        await settle(pilot, app)
        assert isinstance(app.screen, AgreementScreen)
        await pilot.press("escape", "d")
        await settle(pilot, app)
        assert isinstance(app.screen, AdjudicationScreen)


async def test_a_confirmation_takes_y_and_n(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.browser.apply_filter("dataset:demo importance:Main")
        await settle(pilot, app)
        for answer, flagged in (("n", False), ("y", True)):
            await pilot.press("f")
            await settle(pilot, app)
            app.screen.query_one("#scope-filter").value = True
            await pilot.press("enter")
            await settle(pilot, app)
            assert isinstance(app.screen, ConfirmDialog) and "(y)" in screen_text(app) and "(n)" in screen_text(app)
            await pilot.press(answer)
            await settle(pilot, app)
            assert not isinstance(app.screen, ConfirmDialog)
            assert bool(demo_store.annotations.flag_kinds()) is flagged


async def test_f1_in_the_filter_bar(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert "(F1 help)" in screen_text(app)
        await pilot.press("slash", "f1")
        await settle(pilot, app)
        assert isinstance(app.screen, HelpScreen)


async def test_space_marks_the_row_and_moves_on(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.browser.table
        first = table.current.id
        await pilot.press("space")
        await settle(pilot, app)
        assert first in table.marked and table.current.id != first


async def test_the_raw_output_viewer_copies_and_closes(demo_store, db_path, answered):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        app.browser.apply_filter(f"run:{answered.name}")
        await settle(pilot, app)
        await pilot.press("enter", "v")
        await settle(pilot, app)
        app.screen.query_one("#verdict-list").highlighted = 1
        await pilot.press("o")
        await settle(pilot, app)
        assert isinstance(app.screen, TextViewer)
        assert screen_text(app).splitlines()[-1].split()[:4] == ["esc", "Close", "c", "Copy"]  # its own footer
        await pilot.press("c")
        assert any(n.startswith("copied ") for n in notes(app))
        await pilot.press("escape")
        assert isinstance(app.screen, ClaimDetailScreen)


async def test_the_help_titles_name_the_keys_that_open_them(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        from workbench.tui.screens.datasets import DatasetsScreen

        for key, opened in (("m", MetricsScreen), ("C", ContaminationScreen), ("v", RunPicker), ("D", DatasetsScreen)):
            await pilot.press(key)
            await settle(pilot, app)
            assert isinstance(app.screen, opened)
            await pilot.press("escape")
            await settle(pilot, app)


async def test_the_datasets_header_names_enter_and_a(demo_store, db_path):
    from workbench.tui.screens.datasets import DatasetsScreen

    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        for key in ("enter", "a"):
            await pilot.press("D")
            await settle(pilot, app)
            assert isinstance(app.screen, DatasetsScreen)
            assert "enter: the claims curation kept · a: every claim" in screen_text(app)
            await pilot.press(key)
            await settle(pilot, app)
            assert app.screen is app.browser and "demo" in app.browser.table.query.filter
