"""The workbench's terminal UI (Textual). The only package that imports textual.

`run_workbench(db_path)` opens it; `python -m workbench.tui --db FILE` does the same
(and is what `workbench serve` runs for each browser tab).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path


def run_workbench(
    db_path: str | Path,
    annotator: str | None = None,
    compare: tuple[str, str, str] | None = None,
    cluster: str | None = None,
) -> int:
    """Open the workbench on a database file (created and migrated if needed) as
    `annotator` (default: the config's); returns the app's exit status (non-zero when it
    stopped on an error).

    The database is opened once before the terminal is taken over, so a path that cannot
    be used (store.DatabaseProblem) or a name that cannot be an annotator's
    (workbench.triage.TriageError) is raised here, with the terminal untouched. `compare`
    (base run, other run, filter) opens the flips view between two runs; `cluster` is what
    the metrics view's intervals resample together (a field or `none`; None: the profile's).
    """
    from store import Store
    from workbench.config import load_settings
    from workbench.triage.people import check_annotator

    settings = load_settings()
    settings = dataclasses.replace(settings, annotator=check_annotator(annotator or settings.annotator))
    store = Store.open(db_path)
    try:
        pictures = settings.images != "off" and store.claims.have_images()
    finally:
        store.close()
    if pictures and not in_a_browser_tab():  # asks the terminal what it can draw: only before the app starts
        from workbench.tui.widgets.claim_images import prepare_renderer

        prepare_renderer(settings.images)
    from workbench.tui.app import WorkbenchApp

    app = WorkbenchApp(db_path, settings=settings, compare=compare, cluster=cluster)
    app.run()
    return app.return_code or 0


def in_a_browser_tab() -> bool:
    """Whether this process draws into a browser tab (`workbench serve`). The page's terminal
    draws no pictures of its own, so pictures are half-blocks, chosen when the first one
    shows: asking the terminal first (and importing numpy for it) held up the first frame."""
    import os

    return "web_driver" in os.environ.get("TEXTUAL_DRIVER", "")


__all__ = ["run_workbench", "in_a_browser_tab"]
