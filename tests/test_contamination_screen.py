"""The contamination screen in a minimal host app at 80x24: the highlighted claim's
matched pairs, the threshold keys and their live count, accepting the flags."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.app import App
from textual.widgets import DataTable, Static

from tests.support.contamination import EVIDENCE, ORACLE, make_scores
from tests.support.tui import screen_text, until
from workbench.contamination.flagging import pick_group, write_flags
from workbench.tui.messages import FlagsChanged
from workbench.tui.screens.contamination.screen import ContaminationScreen


class Host(App):
    def __init__(self, screen: ContaminationScreen):
        super().__init__()
        self.first = screen
        self.flag_changes: list[FlagsChanged] = []

    def on_mount(self) -> None:
        self.push_screen(self.first)

    def on_flags_changed(self, message: FlagsChanged) -> None:
        self.flag_changes.append(message)


def text_of(screen, selector: str) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(screen.query_one(selector, Static).content)
    return " ".join(console.export_text().split())


@pytest.fixture
def scored(demo_store):
    make_scores(demo_store, "gguf:A", evidence={**EVIDENCE, 3: (ORACLE, ["[red]markup[/red] \x1b[2J stays"])})
    write_flags(demo_store, pick_group(demo_store, "gguf:A", "meteor"), 0.25)
    return demo_store


async def test_pairs_threshold_and_accept_at_80x24(scored, db_path):
    scores = scored.contamination.score_values("gguf:A", "meteor")
    screen = ContaminationScreen(db_path, claim_id=2)
    app = Host(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: screen.detail is not None and screen.detail.claim.id == 2)
        pairs = text_of(screen, "#cont-pairs")
        assert "[1] The trial enrolled 2,400 adults aged 18 to 70. 1.00 [1] The trial enrolled" in pairs
        assert "[2] Penguins live in Antarctica." in pairs
        assert f"s = {scores[2]:.3f}" in text_of(screen, "#cont-claim")
        table = screen.query_one("#cont-claims", DataTable)
        assert table.row_count == 4 and table.get_row_index("2") == table.cursor_row
        # Live count: at 0.25 claims 1 and 2 are flagged; at 0.40 only claim 1.
        assert "tau 0.25 → 2 of 4 claims would be flagged (2 flagged now)" in text_of(screen, "#cont-tau")
        for _ in range(3):
            await pilot.press("right_curly_bracket")
        await pilot.press("left_square_bracket")
        assert screen.tau == 0.39
        assert scores[2] < 0.39 < scores[1]
        assert "tau 0.39 → 1 of 4 claims would be flagged (2 flagged now)" in text_of(screen, "#cont-tau")
        # Accept: a confirmation, then the flags at 0.39 are written.
        await pilot.press("a")
        await until(pilot, lambda: app.screen is not screen)
        await pilot.press("y")
        await until(pilot, lambda: app.flag_changes)
        await until(pilot, lambda: screen.overview.flagged_now == 1)
        assert scored.annotations.flagged_claim_ids("contaminated", "gguf:A", "meteor", "pipeline") == {1}
        assert "(1 flagged now)" in text_of(screen, "#cont-tau")
        assert app.flag_changes[0].change.added_ids


async def test_moving_down_the_list_shows_that_claim_literally(scored, db_path):
    screen = ContaminationScreen(db_path, model="gguf:A", metric="meteor")
    app = Host(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: screen.detail is not None)
        assert screen.detail.claim.id == 1  # the highest score first
        table = screen.query_one("#cont-claims", DataTable)
        table.focus()
        await pilot.press("down", "down")
        await until(pilot, lambda: screen.detail is not None and screen.detail.claim.id == 3)
        pairs = text_of(screen, "#cont-pairs")
        assert "[red]markup[/red] \\x1b[2J stays" in pairs
        await pilot.press("escape")
        assert app.screen is not screen


async def test_no_scores_says_how_to_get_them(store, db_path):
    screen = ContaminationScreen(db_path)
    app = Host(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: screen.overview is not None)
        assert (
            f"`workbench --db {db_path} contamination run --model TARGET --extractor EXTRACTOR --dataset DATASET` first"
        ) in text_of(screen, "#cont-header")  # the whole command, wrapped, never cut
        await pilot.press("right_square_bracket", "a", "w")  # nothing to move, accept or plot: no crash
        assert screen.tau is None


async def test_another_claim_starts_at_the_top_of_its_evidence(scored, db_path):
    screen = ContaminationScreen(db_path, model="gguf:A", metric="meteor")
    app = Host(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: screen.detail is not None)
        table = screen.query_one("#cont-claims", DataTable)
        # The store id stands beside the benchmark's own id, so "0" or "1" never reads like a score.
        assert [str(cell) for cell in table.get_row_at(0)[:2]] == ["1", "js-001"]
        detail = screen.query_one("#cont-detail")
        await until(pilot, lambda: detail.max_scroll_y > 0)
        detail.scroll_end(animate=False)
        await until(pilot, lambda: detail.scroll_y > 0)
        table.focus()
        await pilot.press("down")
        await until(pilot, lambda: screen.detail is not None and screen.detail.claim.id != 1)
        await until(pilot, lambda: detail.scroll_y == 0)
        header = text_of(screen, "#cont-header")
        assert "model/metric 1 of 1" in header


async def test_no_scores_offers_only_keys_that_act_and_m_says_why(store, db_path):
    """Issue 33, item 7: no `] [ a w` in the footer with nothing to act on; m says why."""
    screen = ContaminationScreen(db_path)
    app = Host(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: screen.overview is not None)
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "Back" in footer and "Model/metric" in footer, footer
        for offered in ("tau+", "tau-", "Accept", "Sweep"):
            assert offered not in footer, footer
        await pilot.press("m")
        await until(pilot, lambda: app._notifications)
        said = [n.message for n in app._notifications]
        assert f"no contamination scores yet: run `workbench --db {db_path} contamination run" in said[-1], said


async def test_m_with_one_model_and_metric_keeps_tau_and_says_so(scored, db_path):
    screen = ContaminationScreen(db_path, claim_id=2)
    app = Host(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: screen.detail is not None)
        assert "m: next" not in text_of(screen, "#cont-header")
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.tau == 0.27
        await pilot.press("m")
        await until(pilot, lambda: app._notifications)
        assert screen.tau == 0.27 and "tau 0.27" in text_of(screen, "#cont-tau")
        said = app._notifications
        message = list(said)[-1].message
        assert "only gguf:A · meteor has scores: nothing else to switch to" in message, message
        assert f"workbench --db {db_path} contamination run" in message
