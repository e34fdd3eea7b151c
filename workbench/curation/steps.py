"""Running curation steps on a dataset, in their fixed order.

    date -> language -> publisher -> duplicate -> screen

The date, language and publisher steps judge each claim on its own, so they look at every
claim of the dataset; the funnel counts a claim under the first step that removed it. The
duplicate step looks only at the claims those three left in (a group's kept claim must be
one that stays), and is run again with its recorded settings whenever one of them changes.
The screening step (screening.py) asks a model about the claims every other step left in.

    outcomes = curate(store, CurationRequest("cr", window=window(after_cutoff=["gpt-4.1"]),
                                             languages=["en"], dedup="minhash"))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from store import Dataset, Run, Store, step_kind
from workbench.curation import CurationError
from workbench.curation.window import Window

STEPS = ("date", "language", "publisher", "duplicate", "screen")
INDEPENDENT = ("date", "language", "publisher")
"""Steps that judge a claim on its own (a change in one makes the duplicate step run again)."""


@dataclass
class CurationRequest:
    """What `workbench curate DATASET` was asked (None / empty: leave that step as it is)."""

    dataset: str
    window: Window | None = None
    languages: list[str] = field(default_factory=list)
    publishers: Path | None = None
    dedup: str | None = None
    """minhash or embedding."""
    dedup_threshold: float | None = None
    embedding_model: Path | None = None
    clear: list[str] = field(default_factory=list)
    """Steps whose flags to take off first ("all": every step)."""


@dataclass
class StepOutcome:
    step: str
    considered: int
    removed: int
    note: str = ""


def dataset_named(store: Store, name: str) -> Dataset:
    dataset = store.datasets.get(name)
    if dataset is None:
        names = ", ".join(d.name for d in store.datasets.list()) or "none; import one first"
        raise CurationError(f"no dataset {name!r}; datasets: {names}")
    return dataset


def check_steps(names: list[str]) -> list[str]:
    """--clear values as step names (all: every step); CurationError for an unknown one."""
    if "all" in names:
        return list(STEPS)
    unknown = [name for name in names if name not in STEPS]
    if unknown:
        raise CurationError(f"--clear takes {', '.join(STEPS)} or all, not {', '.join(unknown)}")
    return [step for step in STEPS if step in names]


def curate(store: Store, request: CurationRequest) -> list[StepOutcome]:
    """Clear, then run the asked-for steps (not screening) in order; each step's flags and
    record are written in one transaction."""
    dataset = dataset_named(store, request.dataset)
    outcomes: list[StepOutcome] = []
    changed = False
    for step in check_steps(request.clear):
        freed = store.curation.clear_step(dataset.id, step)
        outcomes.append(StepOutcome(step, 0, 0, f"cleared: {freed:,} flags taken off"))
        changed = changed or step in INDEPENDENT
    everyone = store.curation.claims(dataset.id) if _judges_each(request) else []
    if request.window is not None:
        outcomes.append(_date(store, dataset, everyone, request.window))
    if request.languages:
        outcomes.append(_language(store, dataset, everyone, request.languages))
    if request.publishers is not None:
        outcomes.append(_publisher(store, dataset, everyone, request.publishers))
    changed = changed or _judges_each(request)
    recorded = store.curation.steps(dataset.id).get("duplicate")
    if request.dedup or (changed and recorded is not None and "duplicate" not in request.clear):
        outcomes.append(_duplicate(store, dataset, request, recorded.settings if recorded else {}))
    return outcomes


def _judges_each(request: CurationRequest) -> bool:
    return request.window is not None or bool(request.languages) or request.publishers is not None


def _date(store: Store, dataset: Dataset, rows, chosen: Window) -> StepOutcome:
    from workbench.curation.window import outside

    removed = outside(rows, chosen)
    store.curation.record_step(dataset.id, "date", removed, chosen.settings(), len(rows))
    return StepOutcome("date", len(rows), len(removed))


def _language(store: Store, dataset: Dataset, rows, asked: list[str]) -> StepOutcome:
    from workbench.curation.language import languages, other_languages

    wanted = languages(asked)
    removed, unclear = other_languages(rows, wanted)
    store.curation.record_step(dataset.id, "language", removed, {"languages": wanted, "unclear": unclear}, len(rows))
    note = f"{unclear:,} kept whose language could not be told" if unclear else ""
    return StepOutcome("language", len(rows), len(removed), note)


def _publisher(store: Store, dataset: Dataset, rows, path: Path) -> StepOutcome:
    from workbench.curation.publishers import not_allowed, read_allow_list

    allowed = read_allow_list(path)
    removed, unused = not_allowed(rows, allowed)
    settings = {"allow_list": str(Path(path).resolve()), "entries": len(allowed.entries), "unmatched": unused[:50]}
    store.curation.record_step(dataset.id, "publisher", removed, settings, len(rows))
    note = (
        f"allow-list entries no claim matched: {', '.join(unused[:8])}{', ...' if len(unused) > 8 else ''}"
        if unused
        else ""
    )
    return StepOutcome("publisher", len(rows), len(removed), note)


def _duplicate(store: Store, dataset: Dataset, request: CurationRequest, recorded: dict) -> StepOutcome:
    from workbench.curation.duplicates import DEFAULT_THRESHOLDS, find_duplicates

    method = request.dedup or recorded.get("method", "minhash")
    threshold = request.dedup_threshold if request.dedup else recorded.get("threshold")
    threshold = DEFAULT_THRESHOLDS.get(method, 0.8) if threshold is None else threshold
    model = request.embedding_model if request.dedup else recorded.get("model")
    rows = store.curation.claims(dataset.id, [step_kind(step) for step in INDEPENDENT])
    result = find_duplicates(rows, method, threshold, Path(model) if model else None)
    settings = {
        "method": method,
        "threshold": threshold,
        "groups": result.groups,
        **({"model": str(model)} if model else {}),
    }
    store.curation.record_step(dataset.id, "duplicate", result.removed, settings, len(rows), duplicates=result.links)
    again = "" if request.dedup else "run again with its settings after an earlier step changed; "
    return StepOutcome(
        "duplicate",
        len(rows),
        len(result.removed),
        f"{again}{result.groups:,} claim{'s' if result.groups != 1 else ''} reviewed more than once",
    )


def screening_claims(store: Store, dataset: Dataset) -> list[int]:
    """The claims every step before screening left in."""
    kinds = [step_kind(step) for step in STEPS if step != "screen"]
    return [row.id for row in store.curation.claims(dataset.id, kinds)]


def record_screening(store: Store, dataset: Dataset, run: Run, claim_ids: list[int]) -> StepOutcome:
    """The screening run's answers as the screen step's flags."""
    from workbench.curation.screening import screened

    found = screened(store, run, claim_ids)
    settings = {
        "model": run.model,
        "run": run.name,
        "template": run.prompt_name,
        "labels": found.labels,
        "unreadable": found.unreadable,
        "unanswered": found.unanswered,
    }
    store.curation.record_step(dataset.id, "screen", found.removed, settings, len(claim_ids), run_id=run.id)
    kept = [f"{found.unreadable:,} whose answer could not be read"] if found.unreadable else []
    kept += [f"{found.unanswered:,} not answered yet"] if found.unanswered else []
    return StepOutcome("screen", len(claim_ids), len(found.removed), f"kept: {', '.join(kept)}" if kept else "")


__all__ = [
    "CurationRequest",
    "STEPS",
    "StepOutcome",
    "check_steps",
    "curate",
    "dataset_named",
    "record_screening",
    "screening_claims",
]
