"""The TUI in a browser tab (textual-serve): each tab runs its own `python -m workbench.tui`
process on the database, as a terminal would. Only this package imports Textual's parts."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

PAGE = Path(__file__).with_name("serve_page")
"""The folder of the page a browser tab opens (app_index.html, rendered by textual-serve)."""


def serve_in_browser(db_path: Path, host: str, port: int, public_url: str | None = None) -> None:
    """Serve the workbench on http://HOST:PORT until interrupted."""
    from textual_serve.server import Server

    command = shlex.join([sys.executable, "-m", "workbench.tui", "--db", str(db_path)])
    server = Server(
        command,
        host=host,
        port=port,
        title=f"fact-check workbench: {db_path.name}",
        public_url=public_url,
        templates_path=PAGE,  # our page: no splash, no font from another host, the whole window
    )
    server.serve()
