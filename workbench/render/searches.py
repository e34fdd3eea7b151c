"""How a search run searched, drawn for the CLI, the TUI and reports: searches per claim,
the domains shown, what the leakage guards dropped, search-leak claims, and the query
reformulation table (each label's mean count per claim, per subset, with the test).
Rich is imported by the functions that draw, not by the module (reports read the numbers
without drawing them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Group
    from rich.text import Text

    from workbench.judging.reformulation import ReformulationTable
    from workbench.reports import RunReport, SearchSummary
    from workbench.search.stats import SearchStats


def count(n: int, noun: str) -> str:
    plural = noun + ("es" if noun.endswith("ch") else "s")
    return f"{n:,} {noun if n == 1 else plural}"


def stats_line(stats: SearchStats) -> str:
    return (
        f"{count(stats.claims, 'claim')}, {count(stats.searches, 'search')}"
        f" ({stats.searches_per_claim:.2f} per claim), {count(stats.steps, 'step')};"
        f" {count(stats.leaks, 'claim')} flagged search-leak"
    )


def image_line(stats: SearchStats) -> str:
    """'3 image searches (1.50 per claim), 7 image results shown, 2 dropped; 2 images looked
    at; image evidence for 1 claim'."""
    return (
        f"{count(stats.image_searches, 'image search')} ({stats.image_searches_per_claim:.2f} per claim),"
        f" {stats.image_results_shown:,} image results shown, {stats.image_results_dropped:,} dropped;"
        f" {count(stats.images_viewed, 'image')} looked at; image evidence for"
        f" {count(stats.image_evidence_claims, 'claim')}"
    )


def stats_view(stats: SearchStats) -> Group:
    """The stats line (and the image line), what was dropped and why, the domains shown,
    and the per-claim numbers per subset (`workbench search-stats`, the TUI, `workbench metrics`)."""
    from rich.console import Group

    from workbench.render.display import literal

    parts: list = [literal(stats_line(stats))]
    if stats.searched_images:
        parts.append(literal(image_line(stats)))
    if stats.subsets:
        parts.append(subset_grid(stats))
    for reason, n in sorted(stats.dropped.items(), key=lambda item: -item[1]):
        parts.append(literal(f"  dropped {n:,}: {reason}"))
    for domain, n in stats.domains:
        line = literal(f"  {n:>5,}  ")
        line.append_text(literal(domain))
        parts.append(line)
    return Group(*parts)


def subset_grid(stats: SearchStats):
    """Searches and image searches per claim, and image-evidence claims, per subset (the
    listing layout: subset names wrap at words, figures never cut, the image columns give
    way first on a narrow screen)."""
    from workbench.render.display import literal
    from workbench.render.listing import Column, Listing

    headers = ("claims", "searches/claim", "image searches/claim", "image evidence")
    grid = Listing(
        Column(stats.by or "", "label", 100), *(Column(h, "number", 90 - n, "right") for n, h in enumerate(headers))
    )
    for value, subset in stats.subsets.items():  # subset names are data: literal
        grid.add_row(
            literal(value),
            f"{subset.claims:,}",
            f"{subset.searches_per_claim:.2f}",
            f"{subset.image_searches_per_claim:.2f}",
            f"{subset.image_evidence_claims:,}",
        )
    return grid


def reformulation_grid(table: ReformulationTable):
    """Each label's mean count per claim: all claims, each subset, the second minus the first
    (the listing layout: labels whole, a subset's header wraps at words, the test's parts
    each kept whole)."""
    from rich.text import Text

    from workbench.render.display import literal
    from workbench.render.listing import Column, Listing, pieces

    grid = Listing(
        Column("label", "name"),
        Column("all", "number", priority=9, justify="right"),
        *(  # subset names are data (flag kinds, field values): the listing's headers are literal
            Column(f"{value} ({table.sizes[value]:,})", "number", priority=8, justify="right")
            for value in table.subsets
        ),
        *([Column("second − first [95% CI], p", "label", priority=9)] if table.tests else []),
    )
    for label in table.overall:
        test = table.tests.get(label)
        row = [literal(label), f"{table.overall[label]:.2f}", *(f"{m[label]:.2f}" for m in table.subsets.values())]
        if test:
            parts = (f"{test.delta:+.2f}", f"[{test.low:+.2f}, {test.high:+.2f}],", f"p = {test.p_value:.3g}")
            row.append(pieces(*map(Text, parts)))
        elif table.tests:
            row.append("")
        grid.add_row(*row)
    return grid


def reformulation_caption(table: ReformulationTable) -> Text:
    from workbench.render.display import literal

    labeller = table.labeller.name if table.labeller else "nobody yet"
    text = literal(f"query reformulations per claim ({count(table.claims, 'claim')}, labelled by {labeller}")
    text.append(f"; {table.unreadable:,} unreadable)" if table.unreadable else ")")
    return text


def search_view(summary: SearchSummary) -> Group:
    """For `workbench metrics`: the stats, then the reformulation table when labelled."""
    from rich.console import Group
    from rich.text import Text

    parts: list = [Text("search", style="bold"), stats_view(summary.stats)]
    if summary.reformulations is not None:
        parts += [reformulation_caption(summary.reformulations), reformulation_grid(summary.reformulations)]
    return Group(*parts)


def reformulation_dict(table: ReformulationTable | None) -> dict | None:
    if table is None:
        return None
    return {
        "labelled_by": table.labeller.name if table.labeller else None,
        "claims": table.claims,
        "unreadable": table.unreadable,
        "overall": table.overall,
        "subsets": {v: {"claims": table.sizes[v], **m} for v, m in table.subsets.items()},
        "tests": {
            label: {"delta": t.delta, "low": t.low, "high": t.high, "p_value": t.p_value}
            for label, t in table.tests.items()
        },
    }


def stats_dict(stats: SearchStats) -> dict:
    found = {
        "claims": stats.claims,
        "searches": stats.searches,
        "steps": stats.steps,
        "searches_per_claim": stats.searches_per_claim,
        "dropped": stats.dropped,
        "domains": dict(stats.domains),
        "leaks": stats.leaks,
        "image_searches": stats.image_searches,
        "image_searches_per_claim": stats.image_searches_per_claim,
        "image_results_shown": stats.image_results_shown,
        "image_results_dropped": stats.image_results_dropped,
        "images_viewed": stats.images_viewed,
        "image_result_claims": stats.image_result_claims,
        "image_evidence_claims": stats.image_evidence_claims,
    }
    if stats.by:
        found["by"] = {"field": stats.by, "subsets": {v: dict(s.__dict__) for v, s in stats.subsets.items()}}
    return found


def search_dict(summary: SearchSummary | None) -> dict | None:
    if summary is None:
        return None
    return {**stats_dict(summary.stats), "reformulations": reformulation_dict(summary.reformulations)}


def markdown_search(reports: Sequence[RunReport], md_text, md_table) -> list[str]:
    """The report's search section: one row per search run, then each labelled run's
    reformulation table."""
    searched = [r for r in reports if r.search is not None]
    if not searched:
        return []
    rows = [
        [
            md_text(r.run.name),
            str(s.stats.claims),
            f"{s.stats.searches_per_claim:.2f}",
            f"{s.stats.image_searches_per_claim:.2f}",
            str(s.stats.image_evidence_claims),
            str(sum(s.stats.dropped.values())),
            str(s.stats.leaks),
            md_text(", ".join(domain for domain, _ in s.stats.domains[:5])),
        ]
        for r in searched
        for s in [r.search]
    ]
    lines = ["", "### Search", ""] + md_table(
        [
            "Run",
            "Claims",
            "Searches per claim",
            "Image searches per claim",
            "Image-evidence claims",
            "Results dropped",
            "search-leak claims",
            "Top domains",
        ],
        rows,
    )
    for report in searched:
        stats = report.search.stats
        if stats.subsets:
            lines += ["", f"Searching by {md_text(stats.by)}, {md_text(report.run.name)}:", ""] + md_table(
                [
                    md_text(stats.by),
                    "Claims",
                    "Searches per claim",
                    "Image searches per claim",
                    "Image-evidence claims",
                ],
                [
                    [
                        md_text(v),
                        str(x.claims),
                        f"{x.searches_per_claim:.2f}",
                        f"{x.image_searches_per_claim:.2f}",
                        str(x.image_evidence_claims),
                    ]
                    for v, x in stats.subsets.items()
                ],
            )
    for report in searched:
        table = report.search.reformulations
        if table is None:
            continue
        header = ["Label", "All", *(f"{md_text(v)} ({table.sizes[v]})" for v in table.subsets)]
        header += ["Second − first [95% CI], p"] if table.tests else []
        body = []
        for label in table.overall:
            test = table.tests.get(label)
            body.append(
                [
                    label,
                    f"{table.overall[label]:.2f}",
                    *(f"{m[label]:.2f}" for m in table.subsets.values()),
                    *(
                        [
                            f"{test.delta:+.2f} [{test.low:+.2f}, {test.high:+.2f}], p = {test.p_value:.3g}"
                            if test
                            else ""
                        ]
                        if table.tests
                        else []
                    ),
                ]
            )
        lines += [
            "",
            f"Query reformulations per claim, {md_text(report.run.name)} (labelled by"
            f" {md_text(table.labeller.name)}, {table.claims} claims):",
            "",
        ] + md_table(header, body)
    return lines
