"""`--max-cost`: a run stops cleanly before a request that could take its spending past the
budget. The budget covers a run's whole spending, what it spent before a kill or a stop
included, so the same command given again cannot spend more; every answer is kept and
`--resume` with a larger budget goes on.

Each request is reserved at its worst case (prompt tokens counted high, max_tokens
generated, nothing from the provider's cache) while it is out, and settled at what the
provider says it used.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.backends import Completion, CompletionRequest
from workbench.errors import WorkbenchError
from workbench.usage.estimate import prompt_tokens
from workbench.usage.prices import Price, money


class BudgetError(WorkbenchError):
    """A budget that cannot work (refused before any request)."""


@dataclass
class Budget:
    limit: float
    price: Price
    spent: float = 0.0
    """Dollars the runs had spent, then what each answer cost on arrival."""
    reserved: float = 0.0
    reached: bool = False
    stop_reason: str | None = None

    def reserve(self, request: CompletionRequest) -> float | None:
        """Hold the request's worst case; None (and the budget reached) if it could pass the limit."""
        worst = worst_case(self.price, request)
        if self.spent + self.reserved + worst > self.limit:
            if not self.reached:
                self.reached = True
                self.stop_reason = (
                    f"{money(self.spent)} spent of {money(self.limit)}; the next request could cost"
                    f" up to {money(worst)}"
                )
            return None
        self.reserved += worst
        return worst

    def settle(self, reservation: float, completion: Completion | None) -> None:
        """Release a reservation; charge what the answer used (its worst case if not told)."""
        self.reserved -= reservation
        if completion is None:
            return  # no answer: providers do not bill a failed request
        if completion.tokens_in is None or completion.tokens_out is None:
            self.spent += reservation
        else:
            self.spent += self.price.cost(completion.tokens_in, completion.tokens_out, completion.tokens_cached or 0)


def worst_case(price: Price, request: CompletionRequest) -> float:
    return price.worst_case(prompt_tokens(request, upper=True), request.max_tokens)


def open_budget(
    limit: float,
    model: str,
    price: Price | None,
    spent: float | None,
    first_request: CompletionRequest | None,
    price_hint: str,
    kept: bool = False,
) -> Budget:
    """A Budget for runs of `model`, or BudgetError saying why it cannot be one. `kept`: the
    limit is the run's stored budget, so errors name it rather than a flag not given."""
    if limit <= 0:
        raise BudgetError("--max-cost must be more than 0")
    if price is None:
        raise BudgetError(f"--max-cost needs the price of {model}, and it is not in the price table: {price_hint}")
    if price.local:
        raise BudgetError(f"--max-cost is for models billed per token; {model} runs on this machine at no charge")
    if spent is None:
        raise BudgetError(f"the runs' spending so far is unknown, so --max-cost cannot be kept for {model}")
    if spent >= limit:
        if kept:
            raise BudgetError(
                f"the run has already spent {money(spent)}, all of the budget it keeps ({money(limit)}); resume"
                " with a larger --max-cost (or --max-cost none) to go on"
            )
        raise BudgetError(
            f"these runs have already spent {money(spent)}, which reaches --max-cost {money(limit)}; raise it to go on"
        )
    if first_request is not None:
        worst = worst_case(price, first_request)
        if spent + worst > limit:
            raise BudgetError(_too_small(limit, price, spent, first_request, worst, kept))
    return Budget(limit, price, spent)


def _too_small(limit: float, price: Price, spent: float, request: CompletionRequest, worst: float, kept: bool) -> str:
    tokens = prompt_tokens(request, upper=True)
    cost = (
        f"the first claim's could take up to {money(worst)} (up to {tokens:,} prompt tokens and"
        f" {request.max_tokens:,} generated at {price.model}'s price"
    )
    if kept:
        return (
            f"the run's remaining budget, {money(limit - spent)} ({money(spent)} spent of the {money(limit)} it"
            f" keeps), is less than one request can cost: {cost}); resume with a larger --max-cost"
            " (or --max-cost none)"
        )
    return (
        f"--max-cost {money(limit)} is less than one request can cost: {cost}; {money(spent)} spent before);"
        " raise --max-cost or lower --param max_tokens"
    )
