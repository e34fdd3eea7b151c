"""Time and money as the CLI, the TUI and reports show them: engine settings, time per
claim, tokens per second, costs ("unknown" where a price is not known, never 0)."""

from __future__ import annotations

from workbench.words import counted

IMPORTED = "imported:"  # the model of answers imported from a file (workbench/runs/kinds.py)


def engine_line(engine: dict) -> str:
    """The engine settings a local run records, and which of them can change its answers."""
    threads = f"{engine.get('n_threads')} thread{'s' if engine.get('n_threads') != 1 else ''}"
    if engine.get("n_threads_batch") not in (None, engine.get("n_threads")):
        threads += f" ({engine['n_threads_batch']} for prompts)"
    return (
        f"engine: llama.cpp {engine.get('build', '?')}; GPU layers {engine.get('n_gpu_layers', 0)}; {threads};"
        f" batch {engine.get('n_batch')}; context {engine.get('n_ctx')} (recorded with the run; the build and GPU"
        " layers can change answers, see docs/models.md)"
    )


def duration_text(seconds: float) -> str:
    """4s, 3m 20s, 2h 05m."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


MIN_ANSWERS_FOR_ETA = 3
"""The time left is a guess from the model's own answers: not shown from fewer than this."""


def pace_text(
    answered: int, elapsed_s: float, remaining: int, cached: int = 0, failed: int = 0, show_cached: bool = True
) -> str:
    """'12.0 claims/min · ETA 3m 20s · 4 cached' from the model's answers so far.

    Answers from the cache come at once: they are shown apart, not counted in the rate.
    The time left waits for MIN_ANSWERS_FOR_ETA answers; while every request has failed
    the line says so, not a rate of failures dressed as claims per minute.
    """
    parts = []
    if answered and elapsed_s > 0:
        per_second = answered / elapsed_s
        parts.append(f"{per_second * 60:.1f} claims/min")
        if answered >= MIN_ANSWERS_FOR_ETA:
            parts.append(f"ETA {duration_text(max(remaining, 0) / per_second)}")
    elif failed:
        parts.append(f"no answers yet: {failed:,} request{'s' if failed != 1 else ''} failed")
    if cached and show_cached:
        parts.append(f"{cached:,} cached")
    return " · ".join(parts)


def seconds_text(seconds: float | None) -> str:
    """0.42 s, 12.3 s, 4m 05s; — when there is nothing to show."""
    if seconds is None:
        return "—"
    if seconds < 10:
        return f"{seconds:.2f} s"
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)}m {int(seconds % 60):02d}s"


def time_text(usage) -> str:
    """'2.10 s per claim (p95 4.02 s)'."""
    if usage.seconds_median is None:
        return "no timed answers"
    return f"{seconds_text(usage.seconds_median)} per claim (p95 {seconds_text(usage.seconds_p95)})"


def speed_text(usage) -> str | None:
    """'prompt 182 tok/s, generation 38 tok/s' for a local model, else None."""
    if usage.prompt_per_second is None and usage.generated_per_second is None:
        return None
    parts = []
    if usage.prompt_per_second is not None:
        parts.append(f"prompt {usage.prompt_per_second:,.0f} tok/s")
    if usage.generated_per_second is not None:
        parts.append(f"generation {usage.generated_per_second:,.0f} tok/s")
    return ", ".join(parts)


def cost_text(usage) -> str:
    """'$0.0123 ($0.0005 per claim)', 'unknown (no price for MODEL)', '$0 (local)'; 'not
    recorded (imported)' for answers made elsewhere: no price would tell what they cost."""
    from workbench.usage.prices import money

    if usage.model.startswith(IMPORTED):
        return "not recorded (imported)"
    if usage.price is None:
        return f"unknown (no price for {usage.model}: add it under [prices] in the config)"
    if usage.price.local:
        return "$0 (local)"
    per_claim = f" ({money(usage.cost_per_claim)} per claim)" if usage.answers else ""
    return f"{money(usage.cost)}{per_claim}"


def usage_summary(usage) -> str:
    """One line: time per claim, speed, tokens, cost, and the judges' cost."""
    if usage.model.startswith(IMPORTED) and not usage.judges:
        return "made elsewhere: no time or cost recorded"
    parts = [time_text(usage)]
    speed = speed_text(usage)
    if speed:
        parts.append(speed)
    parts.append(f"cost {cost_text(usage)}")
    for judge in usage.judges:
        parts.append(f"judge run {judge.name}: {cost_text(judge)}")
    if usage.from_cache:
        parts.append(f"{counted(usage.from_cache, 'answer')} from the cache (no time, no cost)")
    return "; ".join(parts)


def usage_dict(usage) -> dict:
    """Every figure, for JSON (costs null when unknown, with price_known false)."""
    price = usage.price
    return {
        "answers": usage.answers,
        "from_cache": usage.from_cache,
        "seconds_per_claim": {"median": _round(usage.seconds_median), "p95": _round(usage.seconds_p95)},
        "seconds_total": round(usage.seconds_total, 3),
        "prompt_tokens_per_second": _round(usage.prompt_per_second, 1),
        "generated_tokens_per_second": _round(usage.generated_per_second, 1),
        "tokens_in": usage.tokens_in,
        "tokens_out": usage.tokens_out,
        "tokens_cached": usage.tokens_cached,
        "price_known": price is not None,
        "cost_usd": _round(usage.cost, 9),
        "cost_per_claim_usd": _round(usage.cost_per_claim, 9),
        "price": None
        if price is None
        else {
            "model": price.model,
            "input": price.input,
            "output": price.output,
            "cached_input": price.cached_input,
            "batch_input": price.batch_input,
            "batch_output": price.batch_output,
            "as_of": price.as_of.isoformat() if price.as_of else None,
            "source": price.source,
            "local": price.local,
        },
        "judges": [{"run": j.name, **{k: v for k, v in usage_dict(j).items() if k != "judges"}} for j in usage.judges],
    }


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def _count(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 10_000 else f"{n:,}"


def estimate_text(estimate) -> str:
    """'estimate for 24 claims: ~5.2k prompt tokens (...), up to 12.3k generated; ~$0.01 (at most
    $0.02) at PRICE; ~3m 20s at this model's recorded speed'."""
    from workbench.usage.prices import money

    parts = [f"estimate for {counted(estimate.claims, 'claim')}: ~{_count(estimate.prompt_tokens)} prompt tokens"]
    if (
        estimate.price is not None
        and estimate.price.local
        and estimate.prompt_tokens_to_evaluate < estimate.prompt_tokens
    ):
        parts[0] += f" (~{_count(estimate.prompt_tokens_to_evaluate)} to evaluate, the rest shared prefixes)"
    typical = (
        f" (typically {_count(estimate.typical_output_tokens)})" if estimate.typical_output_tokens is not None else ""
    )
    parts[0] += f", up to {_count(estimate.max_output_tokens)} generated{typical}"
    price = estimate.price
    if price is None:
        parts.append("cost unknown (no price for this model: add it under [prices] in the config)")
    elif price.local:
        parts.append("no charge per token (local)")
    else:
        typical_cost = f"~{money(estimate.cost_typical)}, " if estimate.cost_typical is not None else ""
        dated = f" of {price.as_of.isoformat()}" if price.as_of else ""
        parts.append(f"cost {typical_cost}at most {money(estimate.cost_max)} at {price.model}'s price{dated}")
    if estimate.seconds is not None:
        parts.append(f"~{seconds_text(estimate.seconds)} at this model's recorded speed")
    elif price is not None and price.local:
        parts.append("time: shown as claims/min and ETA once the first answers are in")
    return "; ".join(parts)
