"""`workbench nlp-data`: install the NLTK data (WordNet 3.0, punkt_tab) METEOR needs."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli import UserError, shared_options


@click.command("nlp-data")
@click.option(
    "--dir",
    "target",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="PATH",
    help="nltk_data folder to install into (default: <this Python's prefix>/nltk_data).",
)
@click.option(
    "--index-url",
    default=None,
    metavar="URL",
    help="NLTK data index (index.xml) to download from: a mirror's (default: NLTK's own).",
)
@shared_options
def nlp_data(target: Path | None, index_url: str | None) -> None:
    """Install WordNet 3.0 and punkt_tab for METEOR evidence scoring."""
    from workbench.render.console import output_console
    from workbench.render.waiting import status

    # Said before nltk loads: checking means loading WordNet, which takes seconds.
    with status(
        "checking WordNet 3.0 and punkt_tab (loading WordNet takes a few seconds)…", output_console()
    ) as console:
        import nltk

        from workbench.nlp.nlp_data import NlpDataMissing, default_target, ensure_nlp_data

        chosen = target if target is not None else default_target()
        default_path = [str(p) for p in nltk.data.path]
        try:
            landed = ensure_nlp_data(chosen, index_url=index_url, log=lambda line: console.print(line, markup=False))
        except NlpDataMissing as exc:
            raise UserError(str(exc)) from exc
    click.echo(f"NLTK data is in {landed}")
    if str(landed) not in default_path:
        # A folder off nltk's default path is only found through NLTK_DATA.
        click.echo(f"nltk does not search that folder by default; set NLTK_DATA={landed}")
