"""A run's budget (--max-cost) on the command line: kept with the run, so a resume goes on
under it (what was spent before counts); --max-cost on a resume replaces it, and says so."""

from __future__ import annotations

import dataclasses

from workbench.cli import UserError
from workbench.usage.prices import money


def run_budget(store, runs, given: float | None, prices, as_batch: bool = False):
    """The Budget for these prepared runs (None: no budget) and a line saying which budget
    holds; the budget is stored with each run. BudgetError when it cannot be kept."""
    from workbench.usage.planning import budget_for

    stored = next((p.run.max_cost for p in runs if p.resumed and p.run.max_cost is not None), None)
    limit = given if given is not None else stored
    if limit is None:
        return None, None
    if as_batch:
        raise UserError(
            f"run {runs[0].run.name} keeps a budget (--max-cost {money(limit)}); a batch is sent whole, so it"
            " cannot hold back requests: resume it live, without --batch"
        )
    budget = budget_for(store, runs, limit, prices)
    for prepared in runs:
        if prepared.run.max_cost != limit:
            store.runs.set_max_cost(prepared.run.id, limit)
            prepared.run = dataclasses.replace(prepared.run, max_cost=limit)
    return budget, _budget_line(limit, stored, given, budget.spent, any(p.resumed for p in runs))


def _budget_line(limit: float, stored: float | None, given: float | None, spent: float, resumed: bool) -> str | None:
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
