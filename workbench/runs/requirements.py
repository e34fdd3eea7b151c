"""Checking, before a run, that every selected claim has what the setting shows.

Most needs have a filter term (has:question, has:pages ...) that answers for many claims
in one query; only claims the filters cannot vouch for are loaded and checked exactly.
"""

from __future__ import annotations

from collections import Counter

from store import Store
from workbench.prompting import Setting, Template, describe_need, lacks, needs
from workbench.runs.types import RunSetupError

# Filters that prove a need is met (a claim they match certainly has it).
_SURE_FILTERS = {
    "question": ["has:question"],
    "response": ["has:response"],
    "time": ["has:reftime", "has:date"],
    "reference_time": ["has:reftime"],
    "claim_date": ["has:date"],
    "evidence:reference": ["has:passage"],
    "evidence:full": ["has:pages"],
    "evidence:pages": ["has:pages"],
    "evidence:qa": ["has:qa"],
}
EXAMPLES = 3


def check_claims_have(
    store: Store, claim_ids: list[int], template: Template, setting: Setting, json_answer: bool
) -> None:
    """RunSetupError naming how many selected claims lack something the setting needs."""
    wanted = needs(template, setting, "json" if json_answer else "text")
    if not wanted:
        return
    missing = claims_lacking(store, claim_ids, wanted)
    if not missing:
        return
    counts = Counter(need for lacked in missing.values() for need in lacked)
    reasons = "; ".join(
        f"{n:,} of {len(claim_ids):,} selected claims have no {describe_need(need, article=False)}"
        for need, n in sorted(counts.items())
    )
    examples = ", ".join(str(i) for i in list(missing)[:EXAMPLES])
    hints = sorted({_SURE_FILTERS[need][0] for need in counts if need in _SURE_FILTERS})
    narrow = f" (e.g. {' '.join(hints)})" if hints else ""
    raise RunSetupError(
        f"setting {setting.name} cannot be used: {reasons} (e.g. claim {examples}). "
        f"Choose another setting, or narrow the claims with --where{narrow}."
    )


def claims_lacking(store: Store, claim_ids: list[int], wanted: set[str]) -> dict[int, list[str]]:
    """Claim id -> the needs it does not meet, for the claims that miss any."""
    sure = set(claim_ids)
    for need in wanted:
        filters = _SURE_FILTERS.get(need)
        met = set().union(*(store.claims.matching(claim_ids, f) for f in filters)) if filters else set()
        sure = sure & met
    missing = {}
    for claim_id in claim_ids:
        if claim_id in sure:
            continue
        lacked = lacks(store.claims.get(claim_id), wanted)
        if lacked:
            missing[claim_id] = lacked
    return missing
