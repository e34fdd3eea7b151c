"""The benchmark fixture files and helpers the importer tests share."""

from __future__ import annotations

from tests.conftest import REPO
from workbench.importers import ImportRequest, run_import

FIXTURES = REPO / "tests" / "fixtures" / "benchmarks"


def imported(store, name: str, **request):
    report = run_import(store, ImportRequest(FIXTURES / name, **request))
    claims = {
        store.claims.get(i).external_id: store.claims.get(i)
        for i in store.claims.ids(f'dataset:"{report.dataset.name}"')
    }
    return report, claims


def kinds(report) -> dict[str, int]:
    found: dict[str, int] = {}
    for warning in report.warnings.items:
        found[warning.kind] = found.get(warning.kind, 0) + 1
    return found
