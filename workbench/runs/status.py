"""What the run engine says about a run's state: a run waiting on a provider's batch API,
and how to settle a batch submit whose reply was lost."""

from __future__ import annotations

from store import RunBatch


def waiting_message(run_name: str, waiting: list[RunBatch]) -> str:
    """What to do about a run whose requests are out at a provider's batch API."""
    confirmed = [row for row in waiting if row.batch_id]
    if confirmed:
        ids = ", ".join(f"{row.provider} {row.batch_id}" for row in confirmed)
        return (
            f"run {run_name} waits on batch {ids}; `workbench batch collect {run_name}` reads its answers"
            f" (`workbench batch cancel {run_name}` stops it)"
        )
    return (
        f"run {run_name} has a batch submit that never completed (started {waiting[0].submitted_at});"
        f" {unconfirmed_advice(waiting[0].provider, run_name)}"
    )


def unconfirmed_advice(provider: str, run_name: str) -> str:
    """How to settle a submit whose reply was lost (OpenAI can be asked; Anthropic cannot)."""
    if provider == "openai":
        return (
            f"`workbench batch collect {run_name}` asks the provider whether it made the batch, and"
            " collects it or frees the claims"
        )
    return (
        f"{provider} cannot be asked whether it made the batch: look in its console, then"
        f" `workbench batch forget {run_name}` frees the claims"
    )
