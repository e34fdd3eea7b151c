"""A person at a TUI, for the concurrency test: opens the workbench headless on a database
as ANNOTATOR, opens their queue of RUN, says "ready", waits for a line on stdin (so every
writer starts at once), then labels COUNT items (category key 1, then r).

    python -m tests.team_tui_writer DB ANNOTATOR RUN COUNT
(No tests here.)
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys

from tests.support.tui import make_app, settle
from workbench.config import load_settings


async def label(db_path: str, annotator: str, run_name: str, count: int) -> None:
    settings = dataclasses.replace(load_settings(), annotator=annotator)
    app = make_app(db_path, settings=settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        run = app.catalogue.run_named(run_name)
        app.open_triage(run.id)
        await settle(pilot, app)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        for _ in range(count):
            await pilot.press("1")
            await settle(pilot, app)
            await pilot.press("r")
            await settle(pilot, app)


if __name__ == "__main__":
    db, who, run_name, count = sys.argv[1:5]
    asyncio.run(label(db, who, run_name, int(count)))
