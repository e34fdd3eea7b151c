"""Handing out a run's answers to annotators: `workbench triage assign`.

    result = assign(store, AssignRequest("run:gpt4 wrong", ["ana", "ben"], overlap=0.2, seed=7))

The answers of the run the filter names (its first run, or `run`) on the matching claims
are shuffled with the seed; a share `overlap` of them goes to `per_item` annotators (what
agreement is measured on), the rest to one each, always to whoever has least so far, so
everyone's load is even. Each annotator's queue follows the shuffled order, so the
shared items are not bunched where they could be recognised. Answers someone already
has from an earlier round are left as they are; a round is recorded with its seed, so it
can be made again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from store import FilterError, Round, Run, Store
from store.names import no_run
from workbench.triage import TriageError
from workbench.triage.people import check_annotator


@dataclass
class AssignRequest:
    filter: str
    annotators: list[str]
    overlap: float = 0.0
    """The share of the items labelled by `per_item` people (0 to 1)."""
    per_item: int = 2
    seed: int | None = None
    """None: a seed is drawn, and recorded with the round."""
    blind: bool = True
    """Annotators do not see each other's labels of an item until they have labelled it."""
    run: str | None = None
    """The run whose answers are handed out (default: the first run the filter names)."""
    by: str = "lead"


@dataclass
class AssignResult:
    run: Run
    round: Round | None
    """None when there was nothing new to hand out."""
    matched: int
    """The run's answers on the matching claims."""
    without_answer: int
    """Matching claims the run has no answer for (nothing to triage there)."""
    already: int
    """Matching answers someone had from an earlier round (left as they were)."""
    given: dict[str, int] = field(default_factory=dict)
    shared: int = 0
    """Items handed to more than one annotator this round."""


def plan_assignments(
    items: list[int], annotators: list[str], overlap: float, per_item: int, seed: int
) -> list[tuple[int, str]]:
    """(item, annotator) pairs in queue order: shuffled, `overlap` of the items to
    `per_item` annotators, the others to one, each to the least loaded (ties at random)."""
    rng = random.Random(seed)
    order = list(items)
    rng.shuffle(order)
    shared = set(order[: round(overlap * len(order))]) if len(annotators) > 1 else set()
    load = dict.fromkeys(annotators, 0)
    plan = []
    for item in order:
        wanted = per_item if item in shared else 1
        ties = {name: rng.random() for name in annotators}
        for name in sorted(annotators, key=lambda a: (load[a], ties[a]))[:wanted]:
            load[name] += 1
            plan.append((item, name))
    return plan


def assign(store: Store, request: AssignRequest) -> AssignResult:
    """Check the request, pick the answers, plan and record the round (one transaction)."""
    annotators = [check_annotator(name, "a name in --annotators") for name in request.annotators]
    _check_shape(request, annotators)
    if not request.filter.strip():
        raise TriageError(
            "say which answers to hand out: --where needs a filter that names a run,"
            " e.g. --where 'run:NAME wrong' (a run's wrong answers)"
        )
    run = _run_of(store, request)
    try:
        answers = store.assignments.answers_matching(run.id, request.filter)
        matching_claims = store.claims.count(request.filter)
    except FilterError as error:
        raise TriageError(f"bad filter {request.filter!r}: {error}") from None
    if not answers:
        raise TriageError(
            f"no answer of run {run.name!r} matches {request.filter!r}: nothing was assigned"
            f" ({matching_claims:,} matching claims, none answered by the run)"
        )
    taken = store.assignments.assigned_prediction_ids(run.id)
    fresh = [prediction_id for prediction_id, _ in answers if prediction_id not in taken]
    result = AssignResult(run, None, len(answers), max(matching_claims - len(answers), 0), len(answers) - len(fresh))
    if not fresh:
        return result
    seed = request.seed if request.seed is not None else random.SystemRandom().randrange(2**31)
    plan = plan_assignments(fresh, annotators, request.overlap, request.per_item, seed)
    result.round, result.given = store.assignments.create_round(
        run.id,
        request.filter,
        annotators,
        request.overlap,
        request.per_item,
        seed,
        request.blind,
        check_annotator(request.by),
        plan,
    )
    counts: dict[int, int] = {}
    for item, _ in plan:
        counts[item] = counts.get(item, 0) + 1
    result.shared = sum(1 for n in counts.values() if n > 1)
    return result


def _check_shape(request: AssignRequest, annotators: list[str]) -> None:
    if not annotators:
        raise TriageError("--annotators needs at least one name (e.g. --annotators ana,ben)")
    if len(set(annotators)) != len(annotators):
        raise TriageError("--annotators names someone twice")
    if not 0.0 <= request.overlap <= 1.0:
        raise TriageError(
            f"--overlap is a share from 0 to 1 (0.2: a fifth of the items labelled twice), not {request.overlap:g}"
        )
    if request.overlap > 0 and len(annotators) < 2:
        raise TriageError(
            "an overlap needs two annotators or more: items labelled by one person have no agreement to measure"
        )
    if request.overlap > 0 and not 2 <= request.per_item <= len(annotators):
        raise TriageError(
            f"--per-item is how many people label a shared item: 2 to {len(annotators)} here, not {request.per_item}"
        )


def _run_of(store: Store, request: AssignRequest) -> Run:
    reference = request.run
    if reference is None:
        try:
            named = store.claims.compile(request.filter).run_ids
        except FilterError as error:
            raise TriageError(f"bad filter {request.filter!r}: {error}") from None
        if not named:
            raise TriageError(
                f"{request.filter!r} names no run: say whose answers to hand out, e.g."
                f" --where 'run:NAME wrong {request.filter.strip()}' (or --run NAME)"
            )
        reference = named[0]
    run = store.runs.get(reference)
    if run is None or run.kind != "verdict":
        raise TriageError(no_run(store.runs, reference, fact_checking=True))
    return run
