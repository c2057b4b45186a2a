"""Dollar cost of tokens, from the price table ``prices.json`` next to this module.

Example:
    >>> from judgekit.engine.types import Usage
    >>> table = PriceTable.load()
    >>> round(table.cost("anthropic", "claude-sonnet-4-5", Usage(input_tokens=1_000_000)), 2)
    3.0
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from judgekit.engine.redact import redact
from judgekit.engine.types import Usage

PRICES_FILE = Path(__file__).with_name("prices.json")


class Price(BaseModel):
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


class PriceTable:
    """Prices per provider and model; the longest model-id prefix in the table wins."""

    def __init__(self, prices: dict[str, dict[str, Price]]) -> None:
        self._prices = prices
        self._warned: set[str] = set()

    @classmethod
    def load(cls, path: Path = PRICES_FILE) -> PriceTable:
        return _load(str(path))

    def price(self, provider: str, model: str) -> Price | None:
        table = self._prices.get(provider, {})
        best = max((name for name in table if model.startswith(name)), key=len, default=None)
        return table[best] if best else None

    def known(self, provider: str, model: str) -> bool:
        return self.price(provider, model) is not None

    def cost(self, provider: str, model: str, usage: Usage, *, batch: bool = False) -> float:
        """Cost of ``usage``; 0 (and one warning on stderr) for a model not in the table."""
        price = self.price(provider, model)
        if price is None:
            self.warn_unknown(provider, model)
            return 0.0
        dollars = (
            usage.input_tokens * price.input
            + usage.output_tokens * price.output
            + usage.cache_read_tokens * price.cache_read
            + usage.cache_write_tokens * price.cache_write
        ) / 1_000_000
        return dollars / 2 if batch else dollars

    def warn_unknown(self, provider: str, model: str) -> None:
        name = f"{provider}:{model}"
        if name not in self._warned:
            self._warned.add(name)
            print(f"judgekit: warning: no price known for {redact(name)}; its cost counts as $0",
                  file=sys.stderr)


@lru_cache(maxsize=4)
def _load(path: str) -> PriceTable:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    prices = {
        provider: {name: Price(**entry) for name, entry in models.items()}
        for provider, models in raw.items()
        if not provider.startswith("_")
    }
    return PriceTable(prices)
