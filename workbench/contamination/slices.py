"""Contamination summaries per subset of claims (`contamination summary --by modality`):
S and the share flagged of every model and metric, within each value of a breakdown field
(the fields scores break down by: modality, domain, flag:KIND, cutoff, ...)."""

from __future__ import annotations

from store import ScoreGroup, Store
from workbench.contamination.flagging import ContaminationError, GroupSummary, summarise
from workbench.scoring.fields import FieldError, parse_field


def claims_by(store: Store, field_text: str, cutoff: str | None = None) -> dict[str, set[int]]:
    """Slice value -> the scored claims in it (a list attribute puts a claim in several)."""
    try:
        field = parse_field(field_text)
    except FieldError as error:
        raise ContaminationError(str(error)) from None
    if field.kind == "cutoff" and not cutoff:
        raise ContaminationError("--by cutoff needs the date to split at: --cutoff YYYY-MM-DD")
    if field.kind == "flag" and field.key.endswith("@run"):
        raise ContaminationError(
            f"--by {field_text}: contamination scores belong to no run; name the model (flag:KIND@MODEL)"
        )
    slices: dict[str, set[int]] = {}
    for claim_id, raw in store.contamination.scored_claim_values(field.source).items():
        values = field.values(raw, cutoff)
        for value in values if isinstance(values, tuple) else (values,):
            slices.setdefault(value, set()).add(claim_id)
    return dict(sorted(slices.items()))


def summaries_by(
    store: Store,
    groups: list[ScoreGroup],
    slices: dict[str, set[int]],
    tau: float | None = None,
    within: set[int] | None = None,
) -> dict[str, list[GroupSummary]]:
    """Slice value -> each group's summary over that slice's claims (within `within`)."""
    found = {}
    for value, members in slices.items():
        claims = members if within is None else members & within
        rows = [summary for summary in (summarise(store, g, tau, claims) for g in groups) if summary.claims]
        if rows:
            found[value] = rows
    return found
