"""`workbench articles`: fetch each claim's oracle fact-check article, and see where they stand."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from workbench.cli import UserError, current_db_path, shared_options
from workbench.cli.opening import open_store
from workbench.render.console import output_console
from workbench.render.display import literal

console = output_console()


@click.group("articles")
@shared_options
def articles() -> None:
    """Each claim's oracle article: the fact-check page its article_url names, fetched (or read
    from saved pages and WARC files) and its main text stored, for the contamination pipeline
    and the search leak check."""


@articles.command("fetch")
@click.option("--dataset", "dataset", metavar="NAME", help="The claims of this dataset.")
@click.option("--where", "filter_text", default="", help="Only claims matching this filter.")
@click.option(
    "--from",
    "sources",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FOLDER|WARC",
    help="Read saved pages (a folder of HTML, WARC files) instead of the network (repeatable).",
)
@click.option("--refetch", is_flag=True, help="Fetch again the articles that were fetched already.")
@click.option(
    "--concurrency", type=click.IntRange(1, 256), default=16, show_default=True, help="Requests at once, in all."
)
@click.option(
    "--per-site", type=click.IntRange(1, 32), default=2, show_default=True, help="Requests at once to one site."
)
@click.option(
    "--timeout",
    type=click.FloatRange(0.1),
    default=30.0,
    show_default=True,
    help="Seconds one request may take, to its last byte.",
)
@click.option(
    "--attempts",
    type=click.IntRange(1, 10),
    default=3,
    show_default=True,
    help="Tries per page on 429, 5xx, timeouts and dropped connections.",
)
@click.option(
    "--max-mb",
    type=click.FloatRange(0.01),
    default=10.0,
    show_default=True,
    help="Pages bigger than this are refused (read as they stream in).",
)
@click.option("--user-agent", help="The User-Agent sent (default: the workbench's own, naming it).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@shared_options
def fetch_command(
    dataset, filter_text, sources, refetch, concurrency, per_site, timeout, attempts, max_mb, user_agent, as_json
) -> None:
    """Fetch the claims' articles: robots.txt obeyed, PER_SITE requests at a time to a site,
    retries with backoff (Retry-After honoured), redirects and Wayback addresses followed,
    binary files and oversized pages refused, private and loopback addresses refused on every
    hop (search_fetch_private = true in the config allows them); the main text extracted
    with trafilatura.
    Every result is stored as it comes, failures with their cause; running it again fetches
    only what is missing or failed."""
    from workbench.articles.fetching import FetchRequest, fetch_articles, plan_fetch
    from workbench.articles.web import FetchSettings
    from workbench.cli.cancellable import run_cancellable
    from workbench.config import load_settings

    config = load_settings()
    settings = FetchSettings(
        concurrency=concurrency,
        per_site=per_site,
        timeout=timeout,
        attempts=attempts,
        max_bytes=int(max_mb * 1024 * 1024),
        allow_private=config.search_fetch_private,
    )
    agent = user_agent or config.fetch_user_agent
    if agent:
        settings.user_agent = agent
    request = FetchRequest(dataset, filter_text, refetch, list(sources), settings)
    store = open_store()
    try:
        plan = plan_fetch(store, request)
    finally:
        store.close()
    where = "from " + ", ".join(map(str, sources)) if sources else "from the web"
    if not as_json:
        console.print(
            f"{len(plan.urls):,} article addresses to get {where} ({plan.already:,} fetched already;"
            f" {plan.with_url:,} of {plan.claims:,} claims name one)",
            markup=False,
            soft_wrap=True,
        )
    db_path = current_db_path()  # read here: the work runs on another thread, outside click's context
    summary = _with_progress(
        plan, lambda on_result, cancel: fetch_articles(db_path, plan, on_result, cancel), as_json, run_cancellable
    )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "to_get": len(plan.urls),
                    "already": plan.already,
                    "fetched": summary.fetched,
                    "failed": summary.failed,
                    "causes": dict(summary.causes),
                    "cancelled": summary.cancelled,
                },
                indent=2,
            )
        )
    else:
        _print_summary(summary)
    if summary.cancelled:
        raise SystemExit(130)
    if summary.failed:  # non-zero, as an incomplete run is: a script notices
        raise SystemExit(1)


def _with_progress(plan, work, quiet: bool, run_cancellable):
    if quiet or not plan.urls:
        return run_cancellable(lambda cancel: work(None, cancel), console, "articles-fetch", "cancelling...")
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("fetching", total=len(plan.urls), counts="", rate="")
        started, done = time.monotonic(), {"fetched": 0, "failed": 0}

        def on_result(record) -> None:
            done[record.status] += 1
            rate = (done["fetched"] + done["failed"]) / max(time.monotonic() - started, 1e-6)
            bar.update(
                task, advance=1, counts=f"fetched {done['fetched']} failed {done['failed']}", rate=f"{rate:.1f}/s"
            )

        return run_cancellable(
            lambda cancel: work(on_result, cancel),
            bar.console,
            "articles-fetch",
            "cancelling: pages in flight are dropped, everything finished is kept...",
        )


def _print_summary(summary) -> None:
    line = f"{summary.fetched:,} fetched, {summary.failed:,} failed"
    if summary.causes:
        line += " (" + ", ".join(f"{cause} {count:,}" for cause, count in summary.causes.most_common()) + ")"
    console.print(literal(line), soft_wrap=True)
    if summary.failed:
        console.print(
            "`workbench articles status` lists them; fetching again tries them again (exit status 1: not"
            " every article was got)",
            markup=False,
        )


@articles.command("status")
@click.option("--dataset", "dataset", metavar="NAME", help="The claims of this dataset.")
@click.option("--where", "filter_text", default="", help="Only claims matching this filter.")
@click.option("--failures", type=click.IntRange(0), default=20, show_default=True, help="Failed articles to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@shared_options
def status_command(dataset, filter_text, failures, as_json) -> None:
    """How the claims' articles stand: fetched, failed (by cause), not tried yet."""
    from store import FilterError
    from workbench.render.curation import articles_table

    store = open_store()
    try:
        text = (f'dataset:"{dataset}" ' if dataset else "") + filter_text
        try:
            claim_ids = store.claims.ids(text)
        except FilterError as error:
            raise UserError(f"bad filter: {error}") from None
        counts = store.articles.counts(claim_ids)
        failed = store.articles.failures(claim_ids, failures) if failures else []
    finally:
        store.close()
    if as_json:
        click.echo(
            json.dumps(
                {
                    **{k: v for k, v in counts.__dict__.items()},
                    "failures": [{"claim_id": c, **r.__dict__, "text": None} for c, r in failed],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    console.print(articles_table(counts, failed))


@articles.command("show")
@click.argument("claim_ref")
@shared_options
def show_command(claim_ref: str) -> None:
    """The fetched article of one claim (CLAIM_REF: an id or DATASET:EXTERNAL_ID): its address,
    where it came from, and its main text."""
    store = open_store()
    try:
        claim_id = store.claims.resolve(claim_ref)
        if claim_id is None:
            raise UserError(f"no claim {claim_ref!r} (use the id, or DATASET:EXTERNAL_ID)")
        record = store.articles.for_claim(claim_id)
    finally:
        store.close()
    if record is None:
        raise UserError(f"claim {claim_ref} has no article yet (`workbench articles fetch` gets it)")
    head = literal(f"{record.status}: {record.url}", "bold")
    console.print(head, soft_wrap=True)
    facts = [
        ("final address", record.final_url),
        ("HTTP status", record.http_status),
        ("from", record.source),
        ("fetched at", record.fetched_at),
        ("cause", record.cause),
        ("detail", record.detail),
        ("title", record.title),
        ("page", f"{record.html_bytes:,} bytes, sha256 {record.html_sha256}" if record.html_sha256 else None),
    ]
    for name, value in facts:
        if value not in (None, ""):
            console.print(literal(f"{name}: {value}"), soft_wrap=True)
    if record.text:
        console.print()
        console.print(literal(record.text))
