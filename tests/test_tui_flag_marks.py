"""Issue 33, item 4: a claim curation took out has its own mark (⚑X), not the ⚑C of a
contaminated one, in the browser's flag column; the help screen says what every mark means."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.support.tui import make_app, screen_text, settle
from workbench.render.verdicts import FLAG_MARKS, flag_letter, flag_marks
from workbench.tui.screens.help import HelpScreen


async def test_curated_out_and_contaminated_claims_show_apart(demo_store, db_path):
    store = demo_store
    ids = store.claims.ids("dataset:demo")[:3]
    store.annotations.flag([ids[0]], "curated-out:date", note="before the window", who="curation")
    store.annotations.flag([ids[1]], "contaminated", note="seen", who="tester")
    store.annotations.flag([ids[2]], "cherry-picked", who="tester")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        rows = {line.split()[0]: line for line in screen_text(app).splitlines()[2:8] if line.split()}
        assert "⚑X" in rows[str(ids[0])] and "⚑C" not in rows[str(ids[0])], rows
        assert "⚑C" in rows[str(ids[1])], rows
        assert "⚑c" in rows[str(ids[2])], rows
        await pilot.press("question_mark")
        await settle(pilot, app)
        assert isinstance(app.screen, HelpScreen)
        page = str(app.screen.query_one("#help-body Static").content)
        for mark, words in (("⚑C", "contaminated"), ("⚑X", "curated out"), ("⚑N", "not contaminated")):
            assert any(mark in line and words in line for line in page.splitlines()), mark
        assert "✓  right" in page and "∅  abstained" in page


@given(st.text(min_size=1, max_size=30).filter(lambda k: k.partition(":")[0] not in FLAG_MARKS))
def test_no_other_kind_reads_as_one_of_the_workbench_marks(kind):
    assert flag_letter(kind) not in {mark for mark, _ in FLAG_MARKS.values()}


@given(st.sampled_from(sorted(FLAG_MARKS)), st.text(max_size=10))
def test_a_sub_kind_shares_its_kinds_mark(kind, part):
    assert flag_marks([f"{kind}:{part}", kind]).plain == "⚑" + FLAG_MARKS[kind][0]
