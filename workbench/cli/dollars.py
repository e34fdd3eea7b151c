"""--max-cost's value: US dollars, or `none` to remove the budget a resumed run keeps."""

from __future__ import annotations

import click

from workbench.usage.run_budget import NO_BUDGET


class Dollars(click.ParamType):
    """A number of dollars, or NO_BUDGET (any case)."""

    name = "dollars"

    def convert(self, value, param, ctx):
        if isinstance(value, float) or value == NO_BUDGET:
            return value
        text = str(value).strip()
        if text.lower() == NO_BUDGET:
            return NO_BUDGET
        try:
            return float(text)
        except ValueError:
            self.fail(f"{value!r} is not a number of dollars (or {NO_BUDGET!r} to remove the run's budget)", param, ctx)


DOLLARS = Dollars()
