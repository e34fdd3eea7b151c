"""A run's budget (--max-cost), kept with the run so a resume goes on under it (what was
spent before counts), whether the command line or the TUI resumes it. --max-cost on a
resume replaces it; `--max-cost none` removes it."""

from __future__ import annotations

import dataclasses

NO_BUDGET = "none"
"""The --max-cost value that removes a run's stored budget (a new run simply has none)."""


def keep_budget(store, runs, given: float | str | None, prices, as_batch: bool = False):
    """The Budget for these prepared runs (None: no budget) and a line saying which budget
    holds (None for a new run); the budget is stored with each run. `given`: the dollars the
    user gave, NO_BUDGET, or None for the one a resumed run keeps. BudgetError when it
    cannot be kept."""
    from workbench.usage.budget import BudgetError
    from workbench.usage.planning import budget_for
    from workbench.usage.prices import money

    stored = next((p.run.max_cost for p in runs if p.resumed and p.run.max_cost is not None), None)
    if given == NO_BUDGET:
        _store_limit(store, runs, None)
        return None, (f"budget: the run's --max-cost {money(stored)} removed; no limit now" if stored else None)
    limit = given if given is not None else stored
    if limit is None:
        return None, None
    if as_batch:
        raise BudgetError(
            f"run {runs[0].run.name} keeps a budget (--max-cost {money(limit)}); a batch is sent whole, so it"
            f" cannot hold back requests: resume it live, without --batch (or with --max-cost {NO_BUDGET})"
        )
    budget = budget_for(store, runs, limit, prices, kept=given is None)
    _store_limit(store, runs, limit)
    return budget, _budget_line(limit, stored, given, budget.spent, any(p.resumed for p in runs))


def _store_limit(store, runs, limit: float | None) -> None:
    for prepared in runs:
        if prepared.run.max_cost != limit:
            store.runs.set_max_cost(prepared.run.id, limit)
            prepared.run = dataclasses.replace(prepared.run, max_cost=limit)


def _budget_line(limit: float, stored: float | None, given: float | None, spent: float, resumed: bool) -> str | None:
    from workbench.usage.prices import money

    if not resumed:
        return None
    spent_text = f"{money(spent)} spent so far"
    if given is None:
        return f"budget: the run's --max-cost {money(limit)} still holds ({spent_text}); --max-cost changes it"
    if stored is not None and stored != given:
        return f"budget: --max-cost {money(given)} replaces the run's {money(stored)} ({spent_text})"
    return f"budget: --max-cost {money(limit)} ({spent_text})"


def resume_words(name: str, budget) -> list[str]:
    """The words of `run --resume NAME`, with the budget the run keeps (so the hint shows it)."""
    words = ["run", "--resume", name]
    return words + ["--max-cost", f"{budget.limit:g}"] if budget is not None else words
