"""Item 1: the claims browser — filter bar with inline errors, honest counts, keyset paging."""

from __future__ import annotations

import pytest

from tests.support.tui import add_claims, make_app, rendered, screen_text, settle, status, type_filter
from workbench.tui.paging import PAGE_SIZE
from workbench.tui.widgets.claim_table import ClaimTable
from workbench.tui.widgets.filter_bar import FilterBar


@pytest.fixture
def many_claims(store):
    """A few thousand generated claims (enough for many pages)."""
    return add_claims(store, 2500)


async def test_filter_narrows_the_table_and_counts_honestly(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        total = demo_store.claims.count("")
        assert status(app).startswith(f"{total} of {total} claims")
        await type_filter(pilot, app, "label:Refuted importance:Main")
        expected = demo_store.claims.count("label:Refuted importance:Main")
        assert 0 < expected < total
        table = app.screen.query_one(ClaimTable)
        assert {row.label for row in table.window.rows} == {"Refuted"}
        assert len(table.window.rows) == expected
        assert status(app).startswith(f"{expected} of {total} claims")
        assert app.focused is table


async def test_a_bad_filter_points_at_its_culprit_and_keeps_the_old_rows(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(ClaimTable)
        before = [row.id for row in table.window.rows]
        await type_filter(pilot, app, "label:Refuted lable:Main")
        bar = app.screen.query_one(FilterBar)
        assert bar.has_class("-error")
        shown = rendered(bar.query_one("#filter-error"))
        lines = shown.splitlines()
        # The culprit is underlined by carets exactly under "lable:Main".
        start = lines[0].index("lable:Main")
        assert lines[1].index("^") == start and lines[1].count("^") == len("lable:Main")
        assert "did you mean label" in lines[2]
        assert [row.id for row in table.window.rows] == before
        # The status line still counts the rows on show, not "counting…" for ever.
        assert status(app).startswith(f"{demo_store.claims.count(''):,} of ")
        # Fixing the filter clears the error.
        bar.input.value = "label:Refuted"
        await settle(pilot, app)
        assert not bar.has_class("-error")


async def test_an_unknown_run_is_an_inline_error_too(demo_store, db_path):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await type_filter(pilot, app, "run:nosuchrun wrong")
        bar = app.screen.query_one(FilterBar)
        assert bar.has_class("-error")
        assert "no run named 'nosuchrun'" in rendered(bar.query_one("#filter-error"))


async def test_paging_down_to_the_end_and_home_again(store, db_path, many_claims):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(ClaimTable)
        assert status(app).startswith("2,500 of 2,500 claims · row 1")
        # The table holds a window of pages, never everything.
        assert len(table.window.rows) <= 3 * PAGE_SIZE
        for _ in range(30):
            await pilot.press("pagedown")
            await settle(pilot, app)
        assert len(table.window.rows) <= 3 * PAGE_SIZE
        position = table.position
        assert position is not None and position > 300  # scrolled past the first window
        assert table.current.id == many_claims[position]
        await pilot.press("end")
        await settle(pilot, app)
        assert table.current.id == many_claims[-1]
        assert status(app).startswith("2,500 of 2,500 claims · row 2,500")
        await pilot.press("up")
        await settle(pilot, app)
        assert table.current.id == many_claims[-2]
        await pilot.press("home")
        await settle(pilot, app)
        assert table.current.id == many_claims[0]
        assert "row 1 " in status(app) + " "


async def test_scrolling_up_from_the_end_reads_earlier_pages(store, db_path, many_claims):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("end")
        await settle(pilot, app)
        table = app.screen.query_one(ClaimTable)
        for _ in range(40):
            await pilot.press("pageup")
            await settle(pilot, app)
        # The row under the cursor is where keyset paging says it is.
        assert table.current.id == many_claims[table.position]
        assert table.position < 2500 - 400


async def test_jump_to_id_and_sort(store, db_path, many_claims):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(ClaimTable)
        target = many_claims[1234]
        await pilot.press("g")
        await pilot.press(*str(target), "enter")
        await settle(pilot, app)
        assert table.current.id == target
        assert "row 1,235 " in status(app) + " "  # its place, counted after the jump
        await pilot.press("s")  # sort by the next column: gold label
        await settle(pilot, app)
        assert table.query.sort == "label"
        labels = [row.label for row in table.window.rows]
        assert labels == sorted(labels)
        assert table.current.id == target  # the cursor stays on its claim
        assert "gold↑" in screen_text(app)


async def test_jump_to_start_and_end_keys_on_a_text_filter(store, db_path, many_claims):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await type_filter(pilot, app, '"topic 3"')
        table = app.screen.query_one(ClaimTable)
        expected = store.claims.ids('"topic 3"')
        assert status(app).startswith(f"{len(expected):,} of 2,500 claims")
        await pilot.press("end")
        await settle(pilot, app)
        assert table.current.id == expected[-1]
        await pilot.press("home")
        await settle(pilot, app)
        assert table.current.id == expected[0]


def test_the_window_keeps_three_pages_and_knows_its_place():
    from store import ClaimRow
    from workbench.tui.paging import ClaimWindow, PageCache

    def page(start: int) -> list[ClaimRow]:
        return [
            ClaimRow(i, str(i), "d", None, None, None, None, None, "t", sort_value=i) for i in range(start, start + 10)
        ]

    window = ClaimWindow(page_size=10, pages=3)
    window.reset(page(0), "first")
    assert (window.at_start, window.at_end, window.offset) == (True, False, 0)
    for start in (10, 20, 30):
        dropped = window.append(page(start))
    assert dropped == 10 and len(window.rows) == 30 and window.rows[0].id == 10
    assert window.offset == 10 and not window.at_start and window.position(5, None) == 15
    window.append(page(40)[:4])  # a short page: the end
    assert window.at_end and window.rows[-1].id == 43
    window.reset(page(90), "last")
    assert window.offset is None and window.position(9, total=100) == 99
    window.prepend(page(80))
    assert window.position(0, total=100) == 80

    cache = PageCache(capacity=2)
    cache.put(("a",), page(0))
    cache.put(("b",), page(10))
    cache.get(("a",))
    cache.put(("c",), page(20))  # evicts b, the least recently used
    assert cache.get(("b",)) is None and cache.get(("a",)) is not None and len(cache) == 2


async def test_clicking_a_column_title_sorts_by_it_and_again_reverses(store, db_path, many_claims):
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(ClaimTable)
        await pilot.click(ClaimTable, offset=(11, 0))  # the "gold" title
        await settle(pilot, app)
        assert table.query.sort == "label" and not table.query.descending
        assert "gold↑" in screen_text(app)
        await pilot.click(ClaimTable, offset=(11, 0))
        await settle(pilot, app)
        assert table.query.descending
        labels = [row.label for row in table.window.rows]
        assert labels == sorted(labels, reverse=True)
        assert "gold↓" in screen_text(app)


def test_the_sorted_columns_arrow_shows_even_in_a_cut_title():
    from workbench.tui.widgets.columns import header_text, layout

    for sort in ("task", "domain", "label", "id", "date"):
        header = header_text(layout(80, [], sort), sort, descending=True).plain
        assert header.count("↓") == 1, (sort, header)
