"""The repair loop of one item: ask, check the answer, re-ask in the same conversation.

An answer is checked against the request's schema, then its ``check`` (problems make the
engine re-ask, at most ``max_tries`` answers in all, then the item is ``unscored``) and its
``soft_check`` (re-asked once; problems that persist are kept beside a valid verdict). A
re-ask that would no longer fit the judge model's window asks the question afresh
instead. What ends an item early (the server refusing every structured-output mode, the
provider refusing the call, the cost cap, a stopped engine, another process answering the
item) becomes its outcome here.
"""

from __future__ import annotations

from typing import Any

from judgekit.engine.cache import CachedVerdict
from judgekit.engine.calling import Answered, Busy, Caller, Declined, ItemState, Restart
from judgekit.engine.context import EngineContext, Session
from judgekit.engine.planning import Planner
from judgekit.engine.providers import Completion
from judgekit.engine.redact import redact, redact_data
from judgekit.engine.retry import ProviderRefused
from judgekit.engine.server import ModeRefused
from judgekit.engine.structured import cap_fields, schema_problems
from judgekit.engine.types import Failed, ItemOutcome, JudgeRequest, NotSent, Skip

Messages = list[dict[str, Any]]
#: what a batch gave an item: its answer, the reason it failed, or the skip that kept it out.
BatchAnswer = Completion | str | Skip


class Conversation:
    """Asks the items of one run until each has a valid verdict or cannot get one."""

    def __init__(self, ctx: EngineContext, planner: Planner, session: Session) -> None:
        self.ctx, self.session = ctx, session
        self.caller = Caller(ctx, planner, session)

    async def converse(self, req: JudgeRequest, h: str, first: BatchAnswer | None,
                       st: ItemState) -> ItemOutcome:
        """The outcome of ``req`` (cache key ``h``); ``first`` is its batch answer, if any."""
        if isinstance(first, (str, Skip)):
            return self._batch_failure(req, h, first)
        batch_answer = first
        messages = self.fresh(req, st)
        soft_asked = False
        while True:
            if batch_answer is not None:
                comp, batch_answer = batch_answer, None
                self.ctx.spending.release_batch(h)
                cost = self.ctx.spending.price(comp.usage, batch=True)
                self.ctx.spending.record(cost, comp.usage, batch=True)
            else:
                got = await self._ask(req, h, messages, st)
                if isinstance(got, ItemOutcome):
                    return got
                if isinstance(got, list):
                    messages = got
                    continue
                comp, cost = got, got.extra["cost_usd"]
            st.tries += 1
            st.usage, st.cost = st.usage + comp.usage, st.cost + cost
            problems, soft = _problems(req, comp)
            if not problems and soft and not soft_asked and st.tries < self.ctx.config.max_tries:
                soft_asked = True
                messages = await self._reask(req, messages, comp, soft, st)
                continue
            if not problems:
                return self._valid(req, h, comp, soft, st)
            if st.tries >= self.ctx.config.max_tries:
                return self._unscored(req, h, problems, st)
            messages = await self._reask(req, messages, comp, problems, st)

    def fresh(self, req: JudgeRequest, st: ItemState) -> Messages:
        """The opening turns of ``req`` in the mode in use now."""
        st.mode = self.ctx.server.ladder.current
        return self.session.provider.start(req, st.mode)

    async def _ask(self, req: JudgeRequest, h: str, messages: Messages,
                   st: ItemState) -> Completion | ItemOutcome | Messages:
        """One answer; or the outcome that ends the item; or the turns to ask with next
        (the mode changed, or another process gave the item up)."""
        def on_retry(_: BaseException) -> None:
            st.retries += 1

        try:
            return await self.caller.retrying(
                self.caller.call_once(req, h, messages, st), on_retry)
        except Restart:
            return self.fresh(req, st)
        except ModeRefused as refused:
            return self._step_down(req, refused, st)
        except Answered as answered:
            return answered.outcome
        except Busy:
            done = await self.caller.await_other(req, h)
            if done is not None:
                return done
            st.claimed = True
            return messages
        except Declined as declined:
            return self._declined(req, declined.reason, st)
        except ProviderRefused as exc:
            self.ctx.stop_after(exc)
            kind = Failed.UNAVAILABLE if exc.transient else Failed.REFUSED
            return self.ctx.outcome(req, "error", reason=str(exc), failure=kind)

    def _step_down(self, req: JudgeRequest, refused: ModeRefused,
                   st: ItemState) -> ItemOutcome | Messages:
        ladder = self.ctx.server.ladder
        if ladder.step_down(refused.mode, str(refused)):  # type: ignore[arg-type]
            if ladder.current != refused.mode:
                self.ctx.note(f"the judge server refused structured output "
                              f"{refused.mode!r}; asking with {ladder.current!r}")
            return self.fresh(req, st)
        return self.ctx.outcome(req, "error", reason=f"the server refused every "
                                f"structured-output mode; last: {refused}"[:400],
                                failure=Failed.NO_STRUCTURED_OUTPUT)

    def _declined(self, req: JudgeRequest, reason: NotSent, st: ItemState) -> ItemOutcome:
        if reason is NotSent.STOPPED:
            return self.ctx.skipped(req, "error", self.ctx.stop_skip(st.tries))
        if reason is NotSent.DEADLINE:
            self.ctx.server.run.count_skip(reason)
        return self.ctx.skipped(req, "unscored", Skip(reason=reason, answers=st.tries))

    def _batch_failure(self, req: JudgeRequest, h: str, first: str | Skip) -> ItemOutcome:
        """The outcome of an item its batch did not answer."""
        if isinstance(first, Skip):
            return self.ctx.skipped(req, "unscored", first)
        self.ctx.spending.release_batch(h)
        return self.ctx.outcome(req, "error", reason=redact(first)[:400],
                                failure=Failed.BATCH_FAILED)

    async def _reask(self, req: JudgeRequest, messages: Messages, comp: Completion,
                     problems: list[str], st: ItemState) -> Messages:
        """The conversation that re-asks after ``problems``; when it would no longer fit
        the judge model's window, the question is asked afresh instead."""
        grown = messages + self.session.provider.follow_up(req, comp, problems)
        if await self._fits(grown):
            return grown
        return self.fresh(req, st)

    async def _fits(self, messages: Messages) -> bool:
        """Whether a conversation (the repair loop's, grown by answers and re-asks) still
        fits the judge model's window."""
        server = self.ctx.server
        budget = server.window.prompt_budget
        if budget is None:
            return True
        text = "\n".join(_content_text(m.get("content")) + str(m.get("tool_calls") or "")
                         for m in messages)
        return await server.count(text) <= budget

    def _valid(self, req: JudgeRequest, h: str, comp: Completion, soft: list[str],
               st: ItemState) -> ItemOutcome:
        verdict = redact_data(comp.verdict or {})  # a server may echo the key it received
        soft = [redact(s) for s in soft]
        self.ctx.server.run.fields_truncated += cap_fields(verdict)
        cache = self.session.cache
        if cache is not None:
            cache.put(h, CachedVerdict(verdict=verdict, tries=st.tries,
                                       model=self.ctx.config.model, usage=st.usage,
                                       cost_usd=st.cost, soft_failures=soft))
        return self.ctx.outcome(req, "valid", verdict=verdict, soft_failures=soft)

    def _unscored(self, req: JudgeRequest, h: str, problems: list[str],
                  st: ItemState) -> ItemOutcome:
        reason = redact(f"no valid verdict after {st.tries} tries: "
                        + "; ".join(problems[:3]))[:400]
        cache = self.session.cache
        if cache is not None:  # finished: a re-run does not ask again
            cache.put(h, CachedVerdict(state="unscored", reason=reason, tries=st.tries,
                                       model=self.ctx.config.model, usage=st.usage,
                                       cost_usd=st.cost))
        return self.ctx.outcome(req, "unscored", reason=reason,
                                failure=Failed.NO_VALID_VERDICT)


def _problems(req: JudgeRequest, comp: Completion) -> tuple[list[str], list[str]]:
    """The answer's problems (schema, then ``check``), and its soft ones."""
    if comp.verdict is None:
        return [comp.parse_problem or "no verdict found"], []
    problems = schema_problems(comp.verdict, req.schema)
    if not problems and req.check is not None:
        problems = list(req.check(comp.verdict))
    soft = list(req.soft_check(comp.verdict)) if not problems and req.soft_check else []
    return problems, soft


def _content_text(content: Any) -> str:
    """The text of a message's content: a string, or the API's list of blocks."""
    if isinstance(content, list):
        return "".join(b.get("text") or str(b.get("content") or b.get("input") or "")
                       if isinstance(b, dict) else str(b) for b in content)
    return str(content or "")
