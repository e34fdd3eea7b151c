"""How the ClaimReview demo was written: invented claims about an invented town (Port Ellery,
on the river Ashby), checked by invented agencies on .example addresses, as two Fact Check
Tools API response pages, an allow-list of the agencies, and the saved fact-check pages.

Run once (the files are committed beside this script):
    .venv/bin/python workbench/demo_data/claimreview/write_demo.py
"""

from __future__ import annotations

import html
import json
from pathlib import Path

FOLDER = Path(__file__).parent
AGENCIES = {
    "harbour": ("Harbour Truth", "harbourtruth.example"),
    "valley": ("Valley Facts", "valleyfacts.example"),
    "northwind": ("Northwind Verify", "northwind-verify.example"),
    "rumour": ("Rumour Mill Weekly", "rumourmill.example"),
    "sur": ("Verifica Sur", "verificasur.example"),
}
# (claim, claimant, claim day, [(agency, slug, review day, rating, language)], article paragraphs)
CLAIMS = [
    (
        "The new Lantern Bridge in Port Ellery cost 90 million crowns.",
        "A city councillor",
        "2025-09-29",
        [
            ("harbour", "lantern-bridge-cost", "2025-10-02T08:30:00Z", "False", "en"),
            ("valley", "bridge-90-million", "2025-10-04T21:15:00-04:00", "Mostly False", "en"),
        ],
        [
            "The council's published accounts put the Lantern Bridge at 41 million crowns, including the approach"
            " roads and the design competition.",
            "The 90 million figure adds the cost of the older Mill Street bridge, repaired in the same budget year,"
            " and counts the repair twice.",
            "The councillor's office told us the number came from a slide shown at a residents' meeting; the slide"
            " has since been corrected.",
        ],
    ),
    (
        "Port Ellery schools will close every Friday from January.",
        "Posts on a local forum",
        "2025-11-10",
        [("northwind", "schools-friday-closure", "2025-11-12", "Pants on Fire!", "en")],
        [
            "No school in Port Ellery plans to close on Fridays. The education board's calendar for the new year"
            " lists five teaching days a week in every school.",
            "The rumour began with a survey that asked parents whether they would like a shorter Friday for the"
            " youngest pupils. The board says the survey decided nothing.",
            "The board's chair called the forum posts inventions and pointed parents to the published calendar.",
        ],
    ),
    (
        "Tap water in Port Ellery's old town contains lead above the legal limit.",
        "A residents' group",
        "2025-10-14",
        [("valley", "old-town-lead", "2025-10-20", "Half True", "en")],
        [
            "Tests by the water company found lead above the legal limit in 6 of the 48 old-town homes sampled,"
            " all of them houses with their original lead pipes.",
            "Water leaving the treatment works and the mains under the old town tested well below the limit.",
            "The company is replacing the remaining lead connections and offers free tests to old-town homes.",
        ],
    ),
    (
        "A viral video shows the Ashby river flooding the market square last week.",
        "Social media users",
        "2025-10-31",
        [("harbour", "market-square-flood-video", "2025-11-03", "Missing context", "en")],
        [
            "The video is real but was filmed during the spring flood of 2021, not last week. The shops in the"
            " background changed their signs in 2023.",
            "This autumn the river stayed below the flood wall; the market square was dry on every day of the market.",
            "The regional flood service keeps daily river levels, which show no flooding in the town this month.",
        ],
    ),
    (
        "Doctored photo shows the mayor on a yacht in the marina.",
        "An anonymous account",
        "2025-11-28",
        [("northwind", "mayor-yacht-photo", "2025-12-01", "Altered photo", "en")],
        [
            "The picture combines a 2019 photograph of a charter yacht with a cut-out of the mayor taken from a"
            " council press photo.",
            "The light falls from opposite sides on the mayor and on the yacht, and the original photographer"
            " confirmed the yacht picture had no people on deck.",
            "The mayor's office said the mayor owns no boat; the marina's register lists none in the mayor's name.",
        ],
    ),
    (
        "The regional train line will be free for pensioners from March.",
        "A radio host",
        "2024-03-01",
        [("harbour", "train-free-pensioners", "2024-03-14", "True", "en")],
        [
            "The regional transport authority approved free travel for residents over 65 on the Ashby valley line,"
            " starting on the first of March.",
            "Pensioners need the regional travel card; the authority's decision and the timetable notice are"
            " published on its website.",
            "The scheme runs for two years, after which the authority will review its cost.",
        ],
    ),
    (
        "El puente Lantern costó 90 millones de coronas.",
        "Un concejal",
        "2025-09-30",
        [("sur", "puente-lantern-coste", "2025-10-05", "Falso", "es")],
        [
            "Las cuentas publicadas por el ayuntamiento sitúan el coste del puente Lantern en 41 millones de coronas.",
            "La cifra de 90 millones suma la reparación del puente de Mill Street y la cuenta dos veces.",
        ],
    ),
    (
        "Port Ellery's council spent 2 million crowns on new street lights.",
        "The council",
        "2025-10-01",
        [("rumour", "street-lights-spending", "2025-10-08", "True", "en")],
        [
            "The council's spending report lists 2.1 million crowns for replacing street lights with LED lamps in"
            " the harbour district and the old town.",
            "The work was finished in September, and the council expects lower electricity bills next year.",
        ],
    ),
    (
        "The harbour ferry carried 1.2 million passengers in 2024.",
        "The ferry company",
        "2025-10-10",
        [("valley", "ferry-passengers-2024", "2025-10-15", "Mostly True", "en")],
        [
            "The ferry company's annual report counts 1.14 million passenger journeys in 2024, a little below the"
            " figure in its advertising.",
            "The company rounds up and counts return tickets as two journeys, as most ferry operators do.",
            "Passenger numbers rose for the third year in a row after the new timetable.",
        ],
    ),
    (
        "Port Ellery hospital has closed its maternity ward.",
        "A petition",
        "2025-11-15",
        [("northwind", "maternity-ward-closure", "2025-11-20", "Four Pinocchios", "en")],
        [
            "The maternity ward of Port Ellery hospital is open and delivered 312 babies between January and"
            " October, the health board says.",
            "The petition misread a plan to move the ward to a new wing of the same hospital in 2027.",
            "The health board published the building plan and the ward's opening hours after the petition spread.",
        ],
    ),
    (
        "Says the council voted to",
        "A local newsletter",
        "2025-12-05",
        [("harbour", "council-vote-newsletter", "2025-12-10", "Unproven", "en")],
        [
            "A newsletter quoted a council vote without saying what the vote was about. The council's minutes for"
            " the week show votes on parking, the library and a tree survey.",
            "We asked the newsletter which vote it meant and have had no answer.",
        ],
    ),
    (
        "The Ashby river reached its highest level since 1911 in October.",
        "The flood service",
        "2025-10-27",
        [("harbour", "ashby-river-record", "2025-10-30", "Correct", "en")],
        [
            "The regional flood service measured the Ashby at 4.81 metres at the town gauge on 24 October, the"
            " highest reading since the great flood of 1911.",
            "The flood wall built in 2015 kept the water out of the town centre.",
        ],
    ),
    (
        "Fishing quotas in the bay were cut by half this year.",
        "A fishing association",
        "2025-11-01",
        [("valley", "bay-fishing-quotas", "2025-11-05", "Misleading", "en")],
        [
            "The quota for one species, the bay cod, was cut by half; the quotas for the other species in the bay"
            " stayed the same or rose.",
            "Overall the allowed catch in the bay fell by 12 percent, the fisheries agency says.",
        ],
    ),
    (
        "The old lighthouse will be turned into a hotel.",
        "A property blog",
        "2024-04-20",
        [("northwind", "lighthouse-hotel", "2024-05-02", "Unproven", "en")],
        [
            "The lighthouse trust has received one proposal for a small hotel but has not decided on it.",
            "The building is protected, and any change of use would need the heritage office's approval.",
        ],
    ),
]
NOT_SAVED = {"bay-fishing-quotas"}
"""A review whose page the demo leaves unsaved: the fetch records it as "not saved"."""


def review_url(agency: str, slug: str) -> str:
    return f"https://{AGENCIES[agency][1]}/fact-checks/{slug}"


def api_pages() -> list[dict]:
    claims = []
    for claim, claimant, day, reviews, _ in CLAIMS:
        claims.append(
            {
                "text": claim,
                "claimant": claimant,
                "claimDate": f"{day}T00:00:00Z",
                "claimReview": [
                    {
                        "publisher": {"name": AGENCIES[agency][0], "site": AGENCIES[agency][1]},
                        "url": review_url(agency, slug),
                        "title": f"Fact check: {claim}",
                        "reviewDate": review_day,
                        "textualRating": rating,
                        "languageCode": language,
                    }
                    for agency, slug, review_day, rating, language in reviews
                ],
            }
        )
    return [{"claims": claims[:7], "nextPageToken": "demo-page-2"}, {"claims": claims[7:]}]


def page_html(
    claim: str, agency: str, slug: str, review_day: str, rating: str, language: str, paragraphs: list[str]
) -> str:
    name, site = AGENCIES[agency]
    url = review_url(agency, slug)
    markup = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": url,
        "claimReviewed": claim,
        "author": {"@type": "Organization", "name": name, "url": f"https://{site}"},
        "datePublished": review_day[:10],
        "reviewRating": {"@type": "Rating", "alternateName": rating},
    }
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html>
<html lang="{language}"><head><meta charset="utf-8">
<title>{html.escape(f"Fact check: {claim}")} | {html.escape(name)}</title>
<link rel="canonical" href="{url}">
<script type="application/ld+json">{json.dumps(markup, ensure_ascii=False)}</script>
</head><body>
<header><a href="/">{html.escape(name)}</a> <nav><a href="/fact-checks">Fact checks</a> <a href="/about">About us</a>
<a href="/donate">Support our work</a></nav></header>
<main><article>
<h1>{html.escape(claim)}</h1>
<p class="rating">Our rating: <strong>{html.escape(rating)}</strong> (published {review_day[:10]})</p>
{body}
</article></main>
<footer><p>{html.escape(name)} is an invented fact-checking agency of the workbench's demo.</p>
<p>Sign up for our newsletter.</p></footer>
</body></html>
"""


def main() -> None:
    (FOLDER / "api").mkdir(exist_ok=True)
    for number, page in enumerate(api_pages(), start=1):
        (FOLDER / "api" / f"page-{number:03d}.json").write_text(
            json.dumps(page, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    pages = FOLDER / "pages"
    pages.mkdir(exist_ok=True)
    for claim, _, _, reviews, paragraphs in CLAIMS:
        for agency, slug, review_day, rating, language in reviews:
            if slug not in NOT_SAVED:
                (pages / f"{slug}.html").write_text(
                    page_html(claim, agency, slug, review_day, rating, language, paragraphs), encoding="utf-8"
                )
    allowed = [
        "# The demo's allow-list of fact-checkers (invented; bring your own, e.g. the IFCN signatories).",
        *(f"{name}" for key, (name, _) in AGENCIES.items() if key != "rumour"),
        "",
    ]
    (FOLDER / "publishers.txt").write_text("\n".join(allowed), encoding="utf-8")


if __name__ == "__main__":
    main()
