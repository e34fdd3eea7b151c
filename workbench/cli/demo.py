"""The demo loader behind `workbench demo` (and the tests' and benchmarks' demo databases): small
datasets written for this project, and a ClaimReview benchmark built from invented fact-checks
(imported, curated, its articles read offline)."""

from __future__ import annotations

from pathlib import Path

from store import Store
from workbench.importers import import_file

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo_data"
"""The demo's files stay in workbench/demo_data/ (the package data pyproject.toml lists)."""
DEMO_FILES = [
    # (file, format, dataset name)
    ("jsfactcheck.jsonl", "jsfactcheck", "demo"),
    ("realfactbench.json", "realfactbench", "demo-realfact"),
    ("averitec.json", "averitec", "demo-averitec"),
    ("jsfactcheck_ja.jsonl", "jsfactcheck", "demo-ja"),
]
DEMO_KNOWLEDGE = ("knowledge.jsonl", "demo-realfact")
"""Pages the offline search backend finds for demo-realfact's search runs (some for the
leakage guards to drop or catch)."""
DEMO_TEAM = ("team_checker.jsonl", "demo", "demo-checker", "team_labels.csv")
"""An invented fact-checker's answers to the demo claims (a run), and two invented
annotators' (ana's and ben's) failure categories for its wrong answers: the agreement
panel and `workbench triage agreement demo-checker` have numbers to show."""
DEMO_JAPANESE_RUN = ("team_checker_ja.jsonl", "demo-ja", "demo-checker-ja")
"""demo-ja is an invented JSFactCheckBench-shaped Japanese dataset (five made-up stories, four
claims each, the quoted passages often written in other width forms than their pages); this
invented checker answered it in Japanese (支持 / 反駁 / 情報不足, as jsfactcheck-ja asks)."""


def load_demo(store: Store) -> dict[str, str]:
    """Import (or refresh) every demo dataset; returns a line of counts per dataset."""
    report = {}
    for file_name, format, name in DEMO_FILES:
        dataset, counts = import_file(store, DEMO_DIR / file_name, format, name)
        report[name] = f"{counts.added} added, {counts.updated} updated, {counts.unchanged} unchanged"
    from workbench.search.knowledge import import_knowledge

    file_name, name = DEMO_KNOWLEDGE
    added, _ = import_knowledge(store, store.datasets.get(name).id, DEMO_DIR / file_name)
    report[name] += f"; {added} search documents added"
    return report


def load_demo_team(store: Store) -> str:
    """The demo fact-checker's run (once) and the two annotators' labels (idempotent)."""
    from workbench.importers.predictions import PredictionRequest, import_predictions
    from workbench.triage.labels_file import import_labels_file

    answers, dataset, run_name, labels = DEMO_TEAM
    run = store.runs.get(run_name)
    if run is None:
        run = import_predictions(store, PredictionRequest(DEMO_DIR / answers, dataset, run_name=run_name)).run
    counts = import_labels_file(store, DEMO_DIR / labels, run_name, by="demo").counts
    answers, dataset, run_name = DEMO_JAPANESE_RUN
    if store.runs.get(run_name) is None:
        import_predictions(store, PredictionRequest(DEMO_DIR / answers, dataset, run_name=run_name))
    return f"runs {run.name}, {run_name}; {counts.added} labels added, {counts.unchanged} unchanged"


CLAIMREVIEW_DIR = DEMO_DIR / "claimreview"
CLAIMREVIEW_DATASET = "demo-claimreview"
CLAIMREVIEW_CUTOFF = "gpt-4.1"
"""The demo's post-cutoff window starts after this model's knowledge cutoff (2024-06)."""


def load_claimreview_demo(store: Store) -> str:
    """A post-cutoff benchmark from the demo's Fact Check Tools API pages, as a user builds one:
    imported, curated (after a model's cutoff, English, the allow-listed agencies, duplicates
    kept once), and each claim's fact-check article read from the saved pages (no network).
    The LLM screening is left to the user: `workbench curate demo-claimreview --screen MODEL`."""
    from workbench.articles.fetching import FetchRequest, plan_fetch, read_saved_articles
    from workbench.curation.steps import CurationRequest, curate
    from workbench.curation.window import window

    _, counts = import_file(store, CLAIMREVIEW_DIR / "api", "auto", CLAIMREVIEW_DATASET)
    curate(
        store,
        CurationRequest(
            CLAIMREVIEW_DATASET,
            window=window(after_cutoff=[CLAIMREVIEW_CUTOFF]),
            languages=["en"],
            publishers=CLAIMREVIEW_DIR / "publishers.txt",
            dedup="minhash",
        ),
    )
    dataset = store.datasets.get(CLAIMREVIEW_DATASET)
    kept = store.curation.kept_count(dataset.id)
    plan = plan_fetch(store, FetchRequest(CLAIMREVIEW_DATASET, sources=[CLAIMREVIEW_DIR / "pages"]))
    fetched = read_saved_articles(store, plan)
    total = store.articles.counts(store.claims.ids(f"dataset:{CLAIMREVIEW_DATASET}"))
    return (
        f"{counts.added} added, {counts.updated} updated, {counts.unchanged} unchanged; curated: {kept} of"
        f" {dataset.claim_count} kept; articles: {total.fetched} read from saved pages"
        f"{f', {total.failed} not saved' if total.failed else ''} ({fetched.fetched} new)"
    )
