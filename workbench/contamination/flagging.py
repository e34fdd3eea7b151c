"""Pipeline flags from stored scores, their intersection, and benchmark-level summaries.

A claim is flagged "contaminated" for a model and metric when its score s >= tau. The
flags sit beside people's manual ones (source "pipeline", with model, metric, score and
threshold), so `-flagged:contaminated` and `--exclude-flag contaminated` leave them out
of any metric (`contaminated@MODEL` or `@run`: only one model's, see store.flag_specs).
Writing the flags of one model and metric replaces that set only.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from store import Flag, FlagChange, Store
from store.contamination import ScoreGroup
from workbench.choices import CONTAMINATION_COMMAND
from workbench.contamination.probes import probe_metric, split_probe
from workbench.contamination.similarity import default_tau
from workbench.errors import WorkbenchError

CONTAMINATED = "contaminated"
JOIN = "&"


class ContaminationError(WorkbenchError, ValueError):
    """A request the stored contamination data cannot answer; the message says why."""


def pick_group(
    store: Store, target: str | None, metric: str | None, extractor: str | None = None, image: bool | None = None
) -> ScoreGroup:
    """The (target, extractor, metric) with scores that matches (the newest extractor when
    only that differs); a clear error when none, or several models or metrics, match.
    `image` True or False keeps only that probe's scores (METRIC+image or METRIC)."""
    if image is not None and metric is not None:
        metric = probe_metric(metric, image)
    groups = [
        g
        for g in store.contamination.score_groups(target, metric)
        if (extractor is None or g.extractor_model == extractor)
        and (image is None or split_probe(g.metric)[1] == image)
    ]
    if not groups:
        wanted = " ".join(f"{k} {v}" for k, v in (("model", target), ("metric", metric), ("extractor", extractor)) if v)
        raise ContaminationError(
            f"no contamination scores{' for ' + wanted if wanted else ''}; run"
            f" `{CONTAMINATION_COMMAND}` first (`workbench contamination summary` lists"
            " what is stored)"
        )
    if len({(g.target_model, g.metric) for g in groups}) > 1:
        listing = "; ".join(f"--model {g.target_model} --metric {g.metric}" for g in groups[:6])
        raise ContaminationError(f"scores exist for several models or metrics; pick one: {listing}")
    return groups[0]  # several extractors for one model and metric: the newest scores


def flags_at(store: Store, group: ScoreGroup, tau: float) -> list[Flag]:
    """The pipeline flags a threshold gives: every scorable claim with s >= tau."""
    scores = store.contamination.score_values(group.target_model, group.metric, group.extractor_model)
    note = f"s >= tau; evidence extracted by {group.extractor_model}"
    return [
        Flag(
            claim_id=claim_id,
            kind=CONTAMINATED,
            source="pipeline",
            model=group.target_model,
            metric=group.metric,
            score=score,
            threshold=tau,
            note=note,
        )
        for claim_id, score in sorted(scores.items())
        if score >= tau
    ]


def write_flags(store: Store, group: ScoreGroup, tau: float) -> FlagChange:
    """Replace the pipeline's flags for this model and metric with those at `tau`."""
    return store.annotations.set_pipeline_flags(
        flags_at(store, group, tau), CONTAMINATED, group.target_model, group.metric
    )


def current_tau(store: Store, target: str, metric: str) -> float:
    """The threshold of the stored flags for a model and metric, else the default."""
    stored = store.contamination.pipeline_threshold(CONTAMINATED, target, metric)
    return default_tau(metric) if stored is None else stored


def combined_names(models: list[str], metrics: list[str]) -> tuple[str, str]:
    """The model and metric fields of a combined flag: "A&B", "meteor&embedding"."""
    return JOIN.join(dict.fromkeys(models)), JOIN.join(dict.fromkeys(metrics))


def combine_flags(store: Store, models: list[str], metrics: list[str]) -> tuple[FlagChange, list[Flag]]:
    """Flag the claims every chosen model and metric flagged (their intersection).

    Each combined flag's score is the lowest of its parts; its threshold is left empty.
    """
    models, metrics = list(dict.fromkeys(models)), list(dict.fromkeys(metrics))
    if len(models) * len(metrics) < 2:
        raise ContaminationError(
            "combine needs two or more models or metrics (--model A --model B, or --metric meteor --metric embedding)"
        )
    parts = [_part(store, model, metric) for model, metric in product(models, metrics)]
    common = set.intersection(*(set(part) for part in parts))
    model_name, metric_name = combined_names(models, metrics)
    note = "flagged by every one of: " + ", ".join(f"{m} / {x}" for m, x in product(models, metrics))
    flags = [
        Flag(
            claim_id=claim_id,
            kind=CONTAMINATED,
            source="pipeline",
            model=model_name,
            metric=metric_name,
            score=min(part[claim_id] for part in parts),
            note=note,
        )
        for claim_id in sorted(common)
    ]
    change = store.annotations.set_pipeline_flags(flags, CONTAMINATED, model_name, metric_name)
    return change, flags


def _part(store: Store, model: str, metric: str) -> dict[int, float]:
    """claim id -> score of the pipeline flags of one model and metric."""
    if not store.contamination.score_groups(model, metric):
        raise ContaminationError(
            f"no contamination scores for model {model} and metric {metric}; run"
            f" `workbench contamination run --model {model} --metric {metric} --dataset DATASET`"
            " for it first"
        )
    scores = store.contamination.pipeline_flag_scores(CONTAMINATED, model, metric)
    return {claim_id: score if score is not None else 0.0 for claim_id, score in scores.items()}


@dataclass
class GroupSummary:
    """Benchmark-level numbers for one target model, extractor and metric."""

    target_model: str
    extractor_model: str
    metric: str
    claims: int
    scorable: int
    mean_score: float | None
    """S: the mean of s over scorable claims."""
    tau: float
    flagged: int
    """Claims the stored pipeline flags mark contaminated for this model and metric."""
    would_flag: int
    """Scorable claims with s >= tau (equals flagged unless the scores changed since)."""

    @property
    def share_flagged(self) -> float | None:
        return self.would_flag / self.scorable if self.scorable else None

    def to_dict(self) -> dict:
        return {**self.__dict__, "share_flagged": self.share_flagged}


def summarise(
    store: Store, group: ScoreGroup, tau: float | None = None, claim_ids: set[int] | None = None
) -> GroupSummary:
    """S, the share flagged at tau (default: the stored flags' tau) and the flag count,
    over all the group's claims or only `claim_ids`."""
    tau = current_tau(store, group.target_model, group.metric) if tau is None else tau
    scores = store.contamination.score_values(
        group.target_model, group.metric, group.extractor_model, include_unscorable=True
    )
    flagged = store.annotations.flagged_claim_ids(CONTAMINATED, group.target_model, group.metric, "pipeline")
    if claim_ids is not None:
        scores = {c: s for c, s in scores.items() if c in claim_ids}
        flagged &= claim_ids
    scorable = [s for s in scores.values() if s is not None]
    mean = sum(scorable) / len(scorable) if scorable else None
    return GroupSummary(
        group.target_model,
        group.extractor_model,
        group.metric,
        len(scores),
        len(scorable),
        mean,
        tau,
        len(flagged),
        sum(s >= tau for s in scorable),
    )


def combined_flag_sets(store: Store, claim_ids: set[int] | None = None) -> list[tuple[str, str, int]]:
    """(model, metric, claims) of every combined (intersection) flag set, counting only
    `claim_ids` when given (a set with none of them is left out)."""
    rows = store.contamination.combined_flag_rows(CONTAMINATED, JOIN)
    counts: dict[tuple[str, str], int] = {}
    for model, metric, claim_id in rows:
        if claim_ids is None or claim_id in claim_ids:
            counts[(model, metric)] = counts.get((model, metric), 0) + 1
    return [(model, metric, count) for (model, metric), count in counts.items()]
