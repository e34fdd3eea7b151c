"""Item 2: claim detail — metadata, the claim in its response, evidence tabs per setting, copy id."""

from __future__ import annotations

from tests.support.tui import make_app, open_claim, rendered, settle
from workbench.prompting.evidence import FULL_WINDOW_CHARS, PAGE_WINDOW_CHARS, full_window, page_windows
from workbench.tui.screens.detail import EvidenceText


def body(app, key: str) -> str:
    return rendered(app.screen.query_one(f"#text-{key}", EvidenceText).query_one("Static"))


def spans(app, key: str, style: str = "bold reverse") -> list[str]:
    """The highlighted pieces of a tab's text."""
    text = app.screen.query_one(f"#text-{key}", EvidenceText).query_one("Static").content
    return [text.plain[s.start : s.end] for s in text.spans if str(s.style) == style]


async def test_detail_shows_the_claim_in_its_response_and_every_evidence_setting(demo_store, db_path):
    claim_id = demo_store.claims.ids("dataset:demo has:pages has:response")[0]
    claim = demo_store.claims.get(claim_id)
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, claim_id)
        header = rendered(app.screen.query_one("#claim-header"))
        assert f"claim {claim_id}" in header and f"gold {claim.label}" in header
        text = body(app, "claim")
        assert claim.text in text and claim.question in text
        assert "reference time 2" in text and f"importance     {claim.importance}" in text
        # The claim's place in the response is highlighted, exactly its span.
        assert claim.response[claim.claim_start : claim.claim_end] in spans(app, "claim")
        # Reference: the annotators' quoted passage.
        cited = next(e for e in claim.evidence if e.is_cited)
        assert cited.passage in body(app, "reference")
        # Full: the 6,000-character window, the passage highlighted inside it.
        window = full_window(claim)
        assert window.text[:200] in body(app, "full")
        assert len(window.text) <= FULL_WINDOW_CHARS
        assert spans(app, "full") == [cited.passage]
        # Pages: every candidate's 600-character window, the cited one marked.
        pages = body(app, "pages")
        for page in page_windows(claim):
            assert page.text[:100] in pages and len(page.text) <= PAGE_WINDOW_CHARS
            assert (page.url or "") in pages
            # … where the window cuts the page, exactly as the model is shown it.
            shown = ("…" if page.clipped_before else "") + page.text + ("…" if page.clipped_after else "")
            assert shown in pages
        assert any(page.clipped_before or page.clipped_after for page in page_windows(claim))
        assert pages.count("CITED") == 1


async def test_tabs_switch_with_number_keys_and_qa_evidence_shows(demo_store, db_path):
    claim_id = demo_store.claims.ids("has:qa")[0]
    claim = demo_store.claims.get(claim_id)
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, claim_id)
        await pilot.press("5")
        await settle(pilot, app)
        assert app.screen.query_one("TabbedContent").active == "tab-qa"
        qa = body(app, "qa")
        first = next(e for e in claim.evidence if e.kind == "qa")
        assert first.question in qa and "Q1" in qa
        await pilot.press("3")
        assert app.screen.query_one("TabbedContent").active == "tab-full"


async def test_copy_claim_id_notifies_and_fills_the_clipboard(demo_store, db_path):
    claim_id = demo_store.claims.ids("")[3]
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, claim_id)
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == str(claim_id)
        assert any(f"copied claim id {claim_id}" in n.message for n in app._notifications)


async def test_next_and_previous_claim_keys_follow_the_table(demo_store, db_path):
    ids = demo_store.claims.ids("")
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, ids[0])
        await pilot.press("right_square_bracket")
        await settle(pilot, app)
        assert app.screen.claim_id == ids[1]
        assert f"claim {ids[1]}" in rendered(app.screen.query_one("#claim-header"))
        await pilot.press("left_square_bracket")
        await settle(pilot, app)
        assert app.screen.claim_id == ids[0]
        await pilot.press("escape")
        assert app.browser.table.current.id == ids[0]


async def test_long_text_scrolls(demo_store, db_path):
    claim_id = demo_store.claims.ids("has:pages")[0]
    app = make_app(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await open_claim(pilot, app, claim_id)
        await pilot.press("3")
        await settle(pilot, app)
        scroller = app.screen.query_one("#text-full", EvidenceText)
        assert scroller.max_scroll_y > 0
        scroller.focus()
        await pilot.press("pagedown")
        await settle(pilot, app)
        assert scroller.scroll_y > 0
