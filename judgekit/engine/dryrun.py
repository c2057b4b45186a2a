"""What a run would cost, and a dry run: the calls counted and priced, none made.

The estimate prices each item to ask once, in the order the calls would go out: with the
prompt cache on, each request reads the longest prefix sent before it and writes the
rest of its own (from the model's minimum length on); every answer is taken to be
:data:`EST_OUTPUT_TOKENS` long.
"""

from __future__ import annotations

from judgekit.engine.context import EngineContext
from judgekit.engine.events import EngineEvent
from judgekit.engine.planning import Todo
from judgekit.engine.prompt_cache import PrefixLedger, min_cacheable_tokens
from judgekit.engine.structured import canonical_json
from judgekit.engine.tokens import estimate_tokens
from judgekit.engine.types import Estimate, ItemOutcome, JudgeRequest, NotSent, Skip, Usage

#: output tokens assumed per call by the estimate.
EST_OUTPUT_TOKENS = 400


def estimate(ctx: EngineContext, reqs: list[JudgeRequest], todo: Todo, cached: int) -> Estimate:
    """The cost of the calls to make (``todo``), ``cached`` items needing none."""
    c = ctx.config
    ledger = PrefixLedger(min_cacheable_tokens(c.model_name))
    total = plain = 0.0
    for idxs in todo.values():
        req = reqs[idxs[0]]
        text = req.system + req.prompt + canonical_json(req.schema)
        tokens = estimate_tokens(text) + 50
        output = min(c.max_tokens, EST_OUTPUT_TOKENS)
        usage = Usage(input_tokens=tokens, output_tokens=output)
        plain += ctx.prices.cost(c.provider, c.model_name, usage, batch=c.batch)
        if c.prompt_cache:
            usage = ledger.usage(req, tokens, output)
        total += ctx.prices.cost(c.provider, c.model_name, usage, batch=c.batch)
    return Estimate(calls=len(todo), cached=cached, est_cost_usd=round(total, 6),
                    est_cost_without_cache_usd=round(plain, 6))


def dry_run(ctx: EngineContext, reqs: list[JudgeRequest], todo: Todo,
            outcomes: list[ItemOutcome | None]) -> list[ItemOutcome]:
    """Tell the estimate (an ``estimate`` event); every item to ask ends ``unscored``, not
    sent, beside the cache's outcomes."""
    served = len(reqs) - sum(map(len, todo.values()))
    ctx.event(EngineEvent("estimate", text=str(estimate(ctx, reqs, todo, served))))
    skip = Skip(reason=NotSent.DRY_RUN)
    for idxs in todo.values():
        for i in idxs:
            outcomes[i] = ctx.skipped(reqs[i], "unscored", skip)
    return [o for o in outcomes if o is not None]
