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
