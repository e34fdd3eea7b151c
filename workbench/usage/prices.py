"""The price table: ours (prices.toml, dated) under the user's [prices] from the config.

A price is US dollars per million tokens. Local GGUF models cost nothing per token (their
cost is time, which runs record). A model found in neither table has an unknown price,
and everything computed from it says so instead of showing 0.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.config import ModelPrice, Settings

PER = 1_000_000
_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


@dataclass(frozen=True)
class Price:
    """What one model's tokens cost (USD per million), and where the figure comes from."""

    model: str
    input: float
    output: float
    cached_input: float | None = None
    batch_input: float | None = None
    batch_output: float | None = None
    as_of: datetime.date | None = None
    source: str = "built-in table"
    local: bool = False

    def cost(self, tokens_in: int, tokens_out: int, tokens_cached: int = 0, batched: bool = False) -> float:
        """Dollars for one answer's tokens (a missing cached or batch price counts at the
        normal price: an upper bound)."""
        cached = min(tokens_cached or 0, tokens_in)
        input_price = self.batch_input if batched and self.batch_input is not None else self.input
        output_price = self.batch_output if batched and self.batch_output is not None else self.output
        cached_price = self.cached_input if self.cached_input is not None else input_price
        return ((tokens_in - cached) * input_price + cached * cached_price + tokens_out * output_price) / PER

    def worst_case(self, tokens_in: int, tokens_out: int) -> float:
        """The most a request of this size can cost (nothing cached, live prices)."""
        return (tokens_in * self.input + tokens_out * self.output) / PER


LOCAL = Price("gguf", 0.0, 0.0, source="a local model: no charge per token", local=True)


class PriceTable:
    """Prices by model spec; `for_model` finds a dated snapshot's model too. Given a function,
    the table is read when a model first needs a price: listing local and imported runs reads
    neither our table nor the config's [prices]."""

    def __init__(self, prices: dict[str, Price] | Callable[[], dict[str, Price]]):
        self._given = prices

    @cached_property
    def prices(self) -> dict[str, Price]:
        return self._given() if callable(self._given) else self._given

    def for_model(self, model: str) -> Price | None:
        """The price of `model` (a spec as runs store it): LOCAL for gguf:, None for answers
        imported from a file (made elsewhere, at a cost not known here) and when unknown."""
        if model.startswith("gguf:"):
            return LOCAL
        if model.startswith("imported:"):
            return None
        if model in self.prices:
            return self.prices[model]
        scheme, _, name = model.partition(":")
        base = _SNAPSHOT.sub("", name)
        return self.prices.get(f"{scheme}:{base}")


def price_table(settings: Settings | None = None) -> PriceTable:
    """Our table with the config's [prices] over it (both read when a price is first needed)."""
    return PriceTable(lambda: _our_prices_and_the_configs(settings))


def _our_prices_and_the_configs(settings: Settings | None) -> dict[str, Price]:
    from workbench.config import config_path, setting

    configured = settings.prices if settings is not None else setting("prices")
    prices = built_in_prices()
    for model, entry in configured.items():
        prices[model] = _price(model, entry, f"config {config_path()}")
    return prices


def built_in_prices(text: str | None = None, name: str = "workbench/usage/prices.toml") -> dict[str, Price]:
    """The table shipped with the workbench (ConfigError naming the file and key if broken)."""
    import tomllib

    from workbench.config import ConfigError

    if text is None:
        text = Path(__file__).with_name("prices.toml").read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{name}: not valid TOML: {error}") from None
    as_of = data.get("as_of")
    prices = {}
    for model, entry in (data.get("models") or {}).items():
        prices[model] = _price(model, _built_in_entry(entry, as_of, f'{name}: models."{model}"'), "built-in table")
    return prices


def _built_in_entry(entry: dict, as_of, where: str) -> ModelPrice:
    """One entry of our table, checked as ModelPrice would check it but without pydantic
    (whose import would double the time of `workbench runs`)."""
    import dataclasses

    from workbench.config import ConfigError, ModelPrice

    known = {f.name for f in dataclasses.fields(ModelPrice)}
    for key, value in entry.items():
        if key not in known:
            raise ConfigError(f"{where}: {key}: not a setting here (a typo?)")
        if key != "as_of" and (type(value) not in (int, float) or value < 0):
            raise ConfigError(f"{where}: {key}: a price is a number of dollars, 0 or more")
    for key in ("input", "output"):
        if key not in entry:
            raise ConfigError(f"{where}: {key}: Field required")
    values = {key: float(value) for key, value in entry.items() if key != "as_of"}
    return ModelPrice(as_of=entry.get("as_of", as_of), **values)


def _price(model: str, entry: ModelPrice, source: str) -> Price:
    return Price(
        model, entry.input, entry.output, entry.cached_input, entry.batch_input, entry.batch_output, entry.as_of, source
    )


def money(amount: float | None) -> str:
    """$0.0123, $1.23, $1,234; unknown when the price is not known."""
    if amount is None:
        return "unknown"
    if amount == 0:
        return "$0"
    if amount < 0.01:
        return f"${amount:.4f}"
    if amount < 100:
        return f"${amount:.2f}"
    return f"${amount:,.0f}"
