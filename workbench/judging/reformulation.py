"""Query reformulation in search trajectories (the contamination study's analysis): a judge
model labels each consecutive pair of a claim's queries Specialization, Generalization,
Exploration or Repetition, on the run engine (a run of kind reformulate, naming the search
run as its target); then each label's average count per claim, per subset, with a
bootstrap test of the difference between two subsets (e.g. contaminated or not).

    prepared = prepare_labelling(store, "agent-run", judge="openai:gpt-4.1")
    table = reformulation_table(store, "agent-run", by="flag:contaminated")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from store import Claim, Run, Store
from store.names import no_run
from workbench.choices import DEFAULT_RESAMPLES, DEFAULT_SEED
from workbench.config import load_settings
from workbench.metrics import PairedComparison
from workbench.metrics.explanations import independent_mean_difference
from workbench.parsing import json_objects
from workbench.prompting import (
    PromptError,
    RenderedPrompt,
    TemplatedTask,
    claim_values,
    load_task_template,
    task_messages,
)
from workbench.runs.setup import prepare_task_run
from workbench.runs.types import PreparedRun, RunSetupError, TaskAnswer, TaskRunRequest

LABELS = ("specialization", "generalization", "exploration", "repetition")
TEMPLATE = "reformulation"


@dataclass
class ReformulationTask(TemplatedTask):
    """Label one claim's consecutive query pairs in a search run."""

    target_run_id: int = 0
    target_run_name: str = ""
    kind: str = "reformulate"
    tries: int = 3

    @property
    def source(self) -> str:
        return f"query pairs of run {self.target_run_name}"

    def configuration(self) -> dict[str, Any]:
        return {
            "template": self.template.name,
            "template_hash": self.template.content_hash,
            "target_run": self.target_run_id,
        }

    def render(self, store: Store, claim: Claim) -> RenderedPrompt:
        queries = store.search.queries(self.target_run_id).get(claim.id, [])
        if len(queries) < 2:
            raise PromptError(f"claim {claim.id} has fewer than two searches in run {self.target_run_name}")
        pairs = "\n".join(f"{n}. FROM: {a}\n   TO:   {b}" for n, (a, b) in enumerate(zip(queries, queries[1:]), 1))
        values = {**claim_values(claim), "pairs": pairs, "count": str(len(queries) - 1)}
        values["answer"] = self.template.answer.format_map(values)
        return RenderedPrompt(task_messages(self.template, values), None)

    def parse(self, text: str) -> TaskAnswer:
        return parse_labels(text)


def parse_labels(text: str) -> TaskAnswer:
    """{"labels": [...]}: each a label (or its first letter), in order; else a parse failure."""
    for obj in json_objects(text if isinstance(text, str) else ""):
        labels = {str(k).lower(): v for k, v in obj.items()}.get("labels")
        if not isinstance(labels, list):
            continue
        read = [_label(item) for item in labels]
        if not read or None in read:
            return TaskAnswer("parse_failure", None, f"labels must be among {', '.join(LABELS)}")
        return TaskAnswer("ok", {"labels": read})
    return TaskAnswer("parse_failure", None, "no JSON object with labels")


def _label(item: Any) -> str | None:
    word = str(item).strip().lower() if isinstance(item, str) else ""
    return next((label for label in LABELS if word == label or (len(word) == 1 and label[0] == word)), None)


def prepare_labelling(
    store: Store,
    run_ref: str,
    judge: str,
    base_url: str | None = None,
    params: dict | None = None,
    concurrency: int | None = None,
) -> PreparedRun:
    run = store.runs.get(run_ref)
    if run is None:
        raise RunSetupError(no_run(store.runs, run_ref, listing=False))
    if not run.params.get("search"):
        raise RunSetupError(f"run {run.name!r} is not a search run (`workbench run --search ...` makes one)")
    claims = [c for c, queries in store.search.queries(run.id).items() if len(queries) >= 2]
    if not claims:
        raise RunSetupError(f"run {run.name!r} has no claim with two searches or more: no query pairs to label")
    template = load_task_template(TEMPLATE, "reformulate", load_settings().prompts_dir)
    return prepare_task_run(
        store,
        TaskRunRequest(
            task=ReformulationTask(template, run.id, run.name),
            model=judge,
            claim_ids=claims,
            name=f"reformulations-of-{run.name}",
            base_url=base_url,
            params={"temperature": 0.0, "max_tokens": 300, **(params or {})},
            concurrency=concurrency,
            dataset_id=run.dataset_id,
            target_run_id=run.id,
        ),
    )


@dataclass
class ReformulationTable:
    """Average count of each label per claim, overall and per subset, and the test."""

    run: Run
    labeller: Run | None
    claims: int
    unreadable: int
    overall: dict[str, float]
    subsets: dict[str, dict[str, float]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    tests: dict[str, PairedComparison] = field(default_factory=dict)
    """label -> the second subset's mean minus the first's, with its interval and p."""


def reformulation_table(
    store: Store,
    run_ref: str | Run,
    by: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    cutoff: str | None = None,
) -> ReformulationTable:
    """`run_ref`: a run, or its name or id; `cutoff`: the date a `cutoff` subset splits at."""
    run = run_ref if isinstance(run_ref, Run) else store.runs.get(run_ref)
    labeller = next((r for r in store.runs.list(kind="reformulate") if r.target_run_id == run.id), None)
    counts, unreadable = _counts(store, run, labeller)
    table = ReformulationTable(run, labeller, len(counts), unreadable, _means(counts.values()))
    if by:
        groups = _subsets(store, run, by, counts, cutoff)
        table.sizes = {value: len(rows) for value, rows in groups.items()}
        table.subsets = {value: _means(rows) for value, rows in groups.items()}
        first, second = (list(groups) + [None, None])[:2]
        if first is not None and second is not None:
            for n, label in enumerate(LABELS):
                found = independent_mean_difference(
                    [r[n] for r in groups[first]], [r[n] for r in groups[second]], resamples, seed
                )
                if found is not None:
                    table.tests[label] = found
    return table


def _counts(store: Store, run: Run, labeller: Run | None) -> tuple[dict[int, tuple[int, ...]], int]:
    """claim -> how many pairs took each label (every searching claim; fewer than two
    searches: no pairs); and how many claims' labels could not be read."""
    queries = store.search.queries(run.id)
    searched = set(store.search.searched_claims(run.id))
    labelled = {p.claim_id: p for p in store.runs.predictions(labeller.id)} if labeller else {}
    counts, unreadable = {}, 0
    for claim in sorted(searched):
        pairs = max(len(queries.get(claim, [])) - 1, 0)
        if pairs == 0:
            counts[claim] = (0,) * len(LABELS)
            continue
        answer = labelled.get(claim)
        labels = (answer.parsed or {}).get("labels") if answer and answer.status == "ok" else None
        if not labels or len(labels) != pairs:
            unreadable += 1
            continue
        counts[claim] = tuple(labels.count(label) for label in LABELS)
    return counts, unreadable


def _means(rows) -> dict[str, float]:
    rows = list(rows)
    if not rows:
        return {label: 0.0 for label in LABELS}
    array = np.array(rows, dtype=np.float64)
    return dict(zip(LABELS, array.mean(axis=0).tolist()))


def _subsets(store: Store, run: Run, by: str, counts: dict[int, tuple], cutoff: str | None) -> dict[str, list[tuple]]:
    from workbench.scoring.runs import parse_fields, read_items

    fields = parse_fields([by])
    items = read_items(store, run.id, fields, cutoff)
    column = items.fields[fields[0].name]
    groups: dict[str, list[tuple]] = {}
    for value in column.values:
        members = items.claim_ids[column.items_with(value)].tolist()
        rows = [counts[c] for c in members if c in counts]
        if rows:
            groups[value] = rows
    return groups
