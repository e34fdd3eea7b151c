"""The bundled demo data: three small datasets written for this project."""

from __future__ import annotations

from pathlib import Path

from store import Store
from workbench.importers import import_file

DEMO_DIR = Path(__file__).parent / "demo_data"
DEMO_FILES = [
    # (file, format, dataset name)
    ("jsfactcheck.jsonl", "jsfactcheck", "demo"),
    ("realfactbench.json", "realfactbench", "demo-realfact"),
    ("averitec.json", "averitec", "demo-averitec"),
]
DEMO_KNOWLEDGE = ("knowledge.jsonl", "demo-realfact")
"""Pages the offline search backend finds for demo-realfact's search runs (some for the
leakage guards to drop or catch)."""
DEMO_TEAM = ("team_checker.jsonl", "demo", "demo-checker", "team_labels.csv")
"""An invented fact-checker's answers to the demo claims (a run), and two invented
annotators' (ana's and ben's) failure categories for its wrong answers: the agreement
panel and `workbench triage agreement demo-checker` have numbers to show."""


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
    return f"run {run.name}; {counts.added} labels added, {counts.unchanged} unchanged"
