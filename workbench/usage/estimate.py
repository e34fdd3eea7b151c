"""What a run will take before it starts: prompt tokens counted from the prompts themselves
(a sample of up to SAMPLE pending claims, scaled up), generated tokens from max_tokens (and
from what this model and template wrote before), money from the price table, and for a
local model the time at the speed its earlier answers were measured at."""

from __future__ import annotations

import math
from dataclasses import dataclass

from store import Claim, Store
from workbench.backends import CompletionRequest
from workbench.runs.ordering import prompt_key, shared_prefix_share
from workbench.usage.prices import Price

SAMPLE = 200
CHARS_PER_TOKEN = 4.0
"""English text runs about four characters to a token; estimates say "~"."""
MESSAGE_TOKENS = 4
"""The chat template's own tokens around each message."""


def prompt_tokens(request: CompletionRequest, upper: bool = False) -> int:
    """A request's prompt tokens, estimated from its text; `upper`: a bound safe for budgets
    (three ASCII characters a token, every other character a token of its own)."""
    text = prompt_key(request)
    if request.json_schema is not None:
        text += str(request.json_schema)
    if upper:
        ascii_chars = sum(1 for c in text if c < "\x80")
        return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars) + MESSAGE_TOKENS * len(request.messages)
    return math.ceil(len(text) / CHARS_PER_TOKEN) + MESSAGE_TOKENS * len(request.messages)


@dataclass(frozen=True)
class History:
    """What earlier answers of the same model (and template) say."""

    answers: int = 0
    mean_tokens_out: float | None = None
    prompt_per_second: float | None = None
    generated_per_second: float | None = None
    mean_seconds: float | None = None


@dataclass(frozen=True)
class Estimate:
    claims: int
    prompt_tokens: int
    prompt_tokens_to_evaluate: int
    """After prefixes shared between consecutive prompts (what a local model evaluates)."""
    max_output_tokens: int
    typical_output_tokens: int | None
    price: Price | None
    cost_typical: float | None
    cost_max: float | None
    seconds: float | None
    """A local model's time at its recorded speed; an API model's from its mean latency."""
    concurrency: int = 1


def estimate(
    requests: list[CompletionRequest], pending: int, price: Price | None, history: History, concurrency: int = 1
) -> Estimate:
    """An estimate for `pending` claims from the requests of a sample of them."""
    if not requests or not pending:
        return Estimate(pending, 0, 0, 0, None, price, 0.0 if price else None, 0.0 if price else None, 0.0)
    scale = pending / len(requests)
    tokens = sum(prompt_tokens(r) for r in requests) * scale
    to_evaluate = tokens * (1 - shared_prefix_share(sorted(prompt_key(r) for r in requests)))
    max_out = sum(r.max_tokens for r in requests) * scale
    typical_out = None
    if history.mean_tokens_out is not None:
        typical_out = min(history.mean_tokens_out * pending, max_out)
    cost_max = price.worst_case(round(tokens), round(max_out)) if price else None
    cost_typical = price.worst_case(round(tokens), round(typical_out)) if price and typical_out is not None else None
    seconds = None
    if history.prompt_per_second and history.generated_per_second:
        out = typical_out if typical_out is not None else max_out
        seconds = to_evaluate / history.prompt_per_second + out / history.generated_per_second
    elif history.mean_seconds is not None:
        seconds = history.mean_seconds * pending / max(concurrency, 1)
    return Estimate(
        pending,
        round(tokens),
        round(to_evaluate),
        round(max_out),
        None if typical_out is None else round(typical_out),
        price,
        cost_typical,
        cost_max,
        seconds,
        concurrency,
    )


def history_of(store: Store, model: str, prompt_name: str | None) -> History:
    """What earlier answers by `model` (with this template, for their length) recorded."""
    facts = store.usage.model_history(model, prompt_name)
    if not facts["answers"]:
        return History()
    return History(
        facts["answers"],
        facts["mean_tokens_out"],
        facts["prompt_per_second"],
        facts["generated_per_second"],
        facts["mean_seconds"],
    )


def sample_claims(store: Store, claim_ids: list[int]) -> list[Claim]:
    """Up to SAMPLE claims spread over the list (so a long run's estimate stays quick)."""
    if len(claim_ids) <= SAMPLE:
        return store.runs.claims(claim_ids)
    step = len(claim_ids) / SAMPLE
    return store.runs.claims([claim_ids[int(i * step)] for i in range(SAMPLE)])
