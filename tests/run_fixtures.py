"""A small invented dataset for the run tests: some claims have pages, some don't."""

from __future__ import annotations

import json
from pathlib import Path

from store import Store
from workbench.importers import import_file

PAGE = (
    "The Lantern Bridge over the river Ashby opened in 1911. " * 150
    + "It is 212 metres long and carries only pedestrians. "
    + "Maintenance closed it twice. " * 30
)
MINI_CLAIMS = [
    {
        "id": "m1",
        "claim": "The Lantern Bridge opened in 1911.",
        "label": "Supported",
        "question": "When did the Lantern Bridge open?",
        "response": "Built quickly. The Lantern Bridge opened in 1911.",
        "reference_time": "2024-01-01",
        "evidence": [
            {
                "kind": "page",
                "url": "https://bridges.example.org/lantern",
                "title": "Lantern Bridge [history]",
                "text": PAGE,
                "passage": "It is 212 metres long",
                "cited": True,
            }
        ],
    },
    {
        "id": "m2",
        "claim": "The Lantern Bridge carries cars.",
        "label": "Refuted",
        "question": "Can you drive over the Lantern Bridge?",
        "response": "Yes: the Lantern Bridge carries cars.",
        "reference_time": "2024-01-01",
        "evidence": [
            {
                "kind": "page",
                "url": "https://bridges.example.org/lantern",
                "title": "Lantern Bridge",
                "text": PAGE,
                "passage": "carries only pedestrians",
                "cited": True,
            }
        ],
    },
    {"id": "m3", "claim": "The [bold]Ashby[/bold] river floods every spring.", "label": "NotEnoughInfo"},
    {"id": "m4", "claim": "Ashby has \x1b[31m four bridges.", "label": "NotEnoughInfo"},
]


def write_mini(folder: Path, claims: list[dict] | None = None, name: str = "mini") -> Path:
    """The dataset as a generic JSONL file."""
    path = folder / f"{name}.jsonl"
    lines = [json.dumps({"_dataset": {"name": name, "label_space": "jsfactcheck"}})]
    lines += [json.dumps(c) for c in (claims or MINI_CLAIMS)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def load_mini(store: Store, folder: Path) -> list[int]:
    """Import the mini dataset; its claim ids in file order."""
    import_file(store, write_mini(folder), "jsonl")
    return store.claims.ids("dataset:mini")


def many_claims(count: int) -> list[dict]:
    """`count` distinct invented claims (for throughput and cache tests)."""
    return [
        {
            "id": f"c{n}",
            "claim": f"Bridge number {n} over the Ashby is {n % 97} metres long.",
            "label": ["Supported", "Refuted", "NotEnoughInfo"][n % 3],
        }
        for n in range(count)
    ]
