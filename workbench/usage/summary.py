"""What a run cost: the time per claim (median and 95th percentile, FEVER-8's budget is per
claim), a local model's prompt and generation speed, the tokens and the money, and the
same for the judge runs that scored it.

Answers served from the response cache cost this run nothing and took no time: they are
counted apart and left out of every figure (their tokens were paid by an earlier run).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from store import Run, Store
from workbench.usage.prices import Price, PriceTable, price_table


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
    ordered = sorted(values)
    return percentile_of(len(ordered), share, lambda i: ordered[i])


def percentile_positions(count: int, share: float) -> list[int]:
    """The 0-based positions in ascending order that the percentile is interpolated between."""
    if not count:
        return []
    at = (count - 1) * share
    return sorted({math.floor(at), math.ceil(at)})


def percentile_of(count: int, share: float, value_at) -> float | None:
    """The percentile of `count` sorted values, `value_at(i)` giving the i-th."""
    if not count:
        return None
    at = (count - 1) * share
    low, high = math.floor(at), math.ceil(at)
    return value_at(low) + (value_at(high) - value_at(low)) * (at - low)


def summarise(run: Run, spending: dict, latency_at, price: Price | None) -> RunUsage:
    """A run's usage from its summed answers (RunStore.spending); `latency_at(positions)`
    gives the model's seconds at those places in ascending order (RunStore.latencies_at)."""
    usage = RunUsage(
        run.id,
        run.name,
        run.model,
        answers=spending["answers"],
        from_cache=spending["from_cache"],
        seconds_total=spending["seconds_total"],
        price=price,
    )
    timed = spending["timed"]
    positions = sorted(set(percentile_positions(timed, 0.5) + percentile_positions(timed, 0.95)))
    values = latency_at(positions)
    usage.seconds_median = percentile_of(timed, 0.5, values.__getitem__)
    usage.seconds_p95 = percentile_of(timed, 0.95, values.__getitem__)
    prompt_tokens, prompt_ms = spending["prompt_eval"]
    generated, generated_ms = spending["eval"]
    usage.prompt_per_second = prompt_tokens / prompt_ms * 1000 if prompt_ms else None
    usage.generated_per_second = generated / generated_ms * 1000 if generated_ms else None
    cost = 0.0
    for batched, (tokens_in, tokens_out, tokens_cached) in spending["tokens"].items():
        usage.tokens_in += tokens_in
        usage.tokens_out += tokens_out
        usage.tokens_cached += tokens_cached
        if price is not None:
            cost += price.cost(tokens_in, tokens_out, tokens_cached, batched)
    usage.cost = cost if price is not None else None
    return usage


def run_usage(store: Store, run: Run, prices: PriceTable | None = None, judges: bool = True) -> RunUsage:
    """A run's time and money, with its judge runs' (`judges`)."""
    prices = prices or price_table()
    spending = store.usage.spending(run.id)
    usage = summarise(
        run, spending, lambda at: store.usage.latencies_at(run.id, at, spending["timed"]), prices.for_model(run.model)
    )
    if judges:
        usage.judges = [run_usage(store, judge, prices, judges=False) for judge in store.runs.judge_runs(run.id)]
    return usage
