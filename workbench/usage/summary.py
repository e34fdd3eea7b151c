"""What a run cost: the time per claim (median and 95th percentile, FEVER-8's budget is per
claim), a local model's prompt and generation speed, the tokens and the money, and the
same for the judge runs that scored it.

Answers served from the response cache cost this run nothing and took no time: they are
counted apart and left out of every figure (their tokens were paid by an earlier run).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from store import Run, Store
from workbench.usage.prices import Price, PriceTable, price_table

ANSWERED = ("ok", "abstain", "parse_failure")


@dataclass
class RunUsage:
    run_id: int
    name: str
    model: str
    answers: int = 0
    """Answers the model gave this run (errors and cached answers not counted)."""
    from_cache: int = 0
    seconds_median: float | None = None
    seconds_p95: float | None = None
    seconds_total: float = 0.0
    prompt_per_second: float | None = None
    """Prompt tokens evaluated per second (local models, llama.cpp's timings)."""
    generated_per_second: float | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    price: Price | None = None
    cost: float | None = None
    """Dollars, None when the model's price is unknown."""
    judges: list[RunUsage] = field(default_factory=list)

    @property
    def cost_per_claim(self) -> float | None:
        return None if self.cost is None or not self.answers else self.cost / self.answers

    @property
    def judged_cost(self) -> float | None:
        """The judge runs' cost together (None if any of their prices is unknown)."""
        costs = [judge.cost for judge in self.judges]
        return None if any(c is None for c in costs) else sum(costs)


def percentile(values: list[float], share: float) -> float | None:
    """The `share` (0..1) percentile, linearly interpolated (numpy's default); None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    at = (len(ordered) - 1) * share
    low, high = math.floor(at), math.ceil(at)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def summarise(run: Run, rows: list[tuple], price: Price | None) -> RunUsage:
    """A run's usage from its answers' rows (RunStore.spending)."""
    usage = RunUsage(run.id, run.name, run.model, price=price)
    seconds, prompt_tokens, prompt_ms, generated, generated_ms = [], 0, 0.0, 0, 0.0
    cost = 0.0
    for status, cached, latency, t_in, t_out, t_cached, batched, p_tokens, p_ms, e_tokens, e_ms in rows:
        if status not in ANSWERED:
            continue
        if cached:
            usage.from_cache += 1
            continue
        usage.answers += 1
        if latency is not None:
            seconds.append(latency)
        usage.tokens_in += t_in or 0
        usage.tokens_out += t_out or 0
        usage.tokens_cached += t_cached or 0
        if p_ms:
            prompt_tokens, prompt_ms = prompt_tokens + (p_tokens or 0), prompt_ms + p_ms
        if e_ms:
            generated, generated_ms = generated + (e_tokens or 0), generated_ms + e_ms
        if price is not None:
            cost += price.cost(t_in or 0, t_out or 0, t_cached or 0, bool(batched))
    usage.seconds_median, usage.seconds_p95 = percentile(seconds, 0.5), percentile(seconds, 0.95)
    usage.seconds_total = sum(seconds)
    usage.prompt_per_second = prompt_tokens / prompt_ms * 1000 if prompt_ms else None
    usage.generated_per_second = generated / generated_ms * 1000 if generated_ms else None
    usage.cost = cost if price is not None else None
    return usage


def run_usage(store: Store, run: Run, prices: PriceTable | None = None, judges: bool = True) -> RunUsage:
    """A run's time and money, with its judge runs' (`judges`)."""
    prices = prices or price_table()
    usage = summarise(run, store.runs.spending(run.id), prices.for_model(run.model))
    if judges:
        usage.judges = [run_usage(store, judge, prices, judges=False) for judge in store.runs.judge_runs(run.id)]
    return usage


def with_usage(store: Store, reports: Sequence) -> list:
    """Scoring reports (scoring.runs.RunReport) with each run's time and money attached."""
    prices = price_table()
    return [replace(report, usage=run_usage(store, report.full.run, prices)) for report in reports]
