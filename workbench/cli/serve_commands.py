"""`workbench serve`: the same TUI in a browser tab, for a colleague without a terminal habit
or a laptop far from the host (the serving itself is workbench/tui/serve.py)."""

from __future__ import annotations

import ipaddress

import click

from workbench.cli import UserError, current_db_path, shared_options

LOOPBACK = "127.0.0.1"


@click.command("serve")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on.")
@click.option(
    "--host",
    default=LOOPBACK,
    show_default=True,
    metavar="ADDRESS",
    help="Address to listen on. Anything but loopback lets every machine that reaches the port"
    " use the workbench: prefer an SSH port forward (see below).",
)
@click.option("--public-url", metavar="URL", help="The address browsers use, when a proxy stands in front.")
@shared_options
def serve_command(port: int, host: str, public_url: str | None) -> None:
    """Serve the workbench TUI in a browser on http://127.0.0.1:PORT.

    From your laptop, to a workbench on a server reached over SSH, forward the port and keep
    the server listening on loopback only:

        ssh -L 8000:127.0.0.1:8000 you@server   # then, there: workbench serve
    """
    from store.problems import check_path, missing_database_text

    path = current_db_path().resolve()
    check_path(path)
    if not path.exists():
        raise UserError(missing_database_text(path))
    if not _loopback(host):
        click.echo(
            f"Warning: listening on {host}: anyone who can reach port {port} there can use this"
            " workbench as you (read every claim, start runs with your API keys, change labels)."
            f" The safe way from another machine: ssh -L {port}:127.0.0.1:{port} you@this-host, and"
            " serve on 127.0.0.1.",
            err=True,
        )
    from workbench.tui.serve import serve_in_browser

    serve_in_browser(path, host, port, public_url)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
