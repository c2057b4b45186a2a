"""The judge-model flags of ``judge`` and ``audit``, the config they make, and the terminal
display of the engine's progress.

Every number and URL is checked here, before any work: a bad value ends with one line
and exit code 2 (a :class:`judgekit.errors.ConfigError`), never a usage block.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_engine_arguments(parser)
    >>> args = parser.parse_args(["--judge", "anthropic:claude-sonnet-4-6", "--concurrency", "8"])
    >>> config_from_args(args).concurrency
    8
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from judgekit.cli._flags import flags
from judgekit.cli._progress import TerminalProgress
from judgekit.engine.events import EngineEvent
from judgekit.engine import config as engine_config
from judgekit.engine.config import EngineConfig, check_base_url, judge_configs
from judgekit.engine.modes import CHOICES
from judgekit.engine.registry import BUILTINS, default_judges
from judgekit.errors import ConfigError, render_options

__all__ = ["HOW_TO_ENABLE", "TerminalProgress", "add_engine_arguments", "config_from_args",
           "configs_from_args"]

#: The line printed when judging is skipped for want of a model, with the flag spelled.
HOW_TO_ENABLE = render_options(engine_config.HOW_TO_ENABLE, {"judge": "--judge"}.get)


def _judge_help() -> str:
    """PROVIDER:MODEL and the providers (judgekit's own), then the default models."""
    hosted = ", ".join(s.name for s in BUILTINS if not s.local)
    local = ", ".join(s.name for s in BUILTINS if s.local)
    defaults = ", else ".join(f"{s.default_model} if {s.key_var} is set"
                              for s in default_judges(BUILTINS))
    return (f"PROVIDER:MODEL: {hosted}, or a self-hosted server: {local} (no key needed); "
            f"without it: {defaults}")


def add_engine_arguments(parser: argparse.ArgumentParser, *, jury: bool = False) -> None:
    """Add the judge flags shared by every model-calling sub-command; ``jury``: ``--judge``
    may be repeated (several judges, see :func:`configs_from_args`)."""
    g = parser.add_argument_group("judge model")
    if jury:
        g.add_argument("--judge", metavar="MODEL[@URL]", action="append",
                       help=f"{_judge_help()}; @URL gives this judge its own server. Repeat "
                            "for a jury: each judge judges every pair, the majority decides")
    else:
        g.add_argument("--judge", metavar="MODEL", help=_judge_help())
    _add_call_arguments(g)
    _add_cost_arguments(g)


def _add_call_arguments(g: argparse._ArgumentGroup) -> None:
    """Where the judge is and how it is asked."""
    c = engine_config
    g.add_argument("--base-url", metavar="URL",
                   help="API base URL, http(s)://... (OpenAI-compatible servers too); with "
                        "several --judge, the URL of those given without @URL")
    g.add_argument("--concurrency", metavar="N",
                   help=f"calls in flight at most (default {c.HOSTED_CONCURRENCY} for a hosted "
                        "API, the slots a self-hosted server reports, else 1; shrinks when "
                        "rate-limited)")
    g.add_argument("--structured-output", metavar="MODE", choices=CHOICES,
                   default=c.STRUCTURED_OUTPUT,
                   help="how verdicts are asked of OpenAI-compatible servers: auto (the "
                        "strongest mode the server accepts), json_schema, json_object, or "
                        "prompt (the schema in the prompt)")
    g.add_argument("--judge-context", metavar="TOKENS",
                   help="the judge model's context window (default: asked of a self-hosted "
                        "server, else known for hosted models); prompts are fitted to it")
    g.add_argument("--cache", metavar="PATH", type=Path,
                   help=f"verdict cache file (default ${c.CACHE_ENV} or "
                        f"{c.DEFAULT_CACHE_PATH}); processes sharing one never "
                        "pay twice for an item")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the verdict cache")
    g.add_argument("--retry-unscored", action=argparse.BooleanOptionalAction, default=True,
                   help="ask again for items the verdict cache holds as unscored (no valid "
                        "verdict; the default); --no-retry-unscored serves them from the "
                        "cache, unscored, with no call")
    g.add_argument("--no-prompt-cache", action="store_true",
                   help="do not mark prompts for the provider's prompt cache (Anthropic's "
                        "cache_control), nor send the first request of each pair or audited "
                        "result ahead of the others")


def _add_cost_arguments(g: argparse._ArgumentGroup) -> None:
    """What a run may spend, and how hard it tries."""
    c = engine_config
    g.add_argument("--dry-run", action="store_true", help="print calls and estimated cost; call nothing")
    g.add_argument("--max-cost", metavar="USD",
                   help="cost cap: a call is sent only if the spend so far plus its worst-case "
                        "cost fits under it; items left out are counted and named")
    g.add_argument("--batch", action="store_true", help="use the provider's batch API (half price, slow)")
    g.add_argument("--max-tries", metavar="N", default=str(c.MAX_TRIES),
                   help=f"answers asked per item before it is unscored (default {c.MAX_TRIES})")
    g.add_argument("--timeout", metavar="S",
                   help=f"seconds one request may take, its answer read whole, before it is "
                        f"abandoned; a call with its retries and waits ends within "
                        f"(max-retries + 1) x this plus the backoff between them (default "
                        f"{c.HOSTED_TIMEOUT_S:g} for a hosted API, tried "
                        f"{c.HOSTED_TIMEOUT_RETRIES} more times at most; "
                        f"{c.LOCAL_TIMEOUT_S:g} for a self-hosted server, never re-sent while "
                        "it may still be working on it)")
    g.add_argument("--max-retries", metavar="N", default=str(c.RETRY_ATTEMPTS - 1),
                   help="retries of a call after transient failures (429, 5xx, dropped "
                        f"connections; default {c.RETRY_ATTEMPTS - 1}); a retry-after is "
                        f"honoured up to {c.RETRY_AFTER_MAX_S:g} s")
    g.add_argument("--deadline", metavar="S",
                   help="seconds the whole run's calls may take: no call starts after it, "
                        "a call in flight is cut at it, and items left are counted as not "
                        "sent (deadline)")


def _number(args: argparse.Namespace, name: str, kind: type, low: float, *,
            strict: bool = False) -> Any:
    raw = getattr(args, name.lstrip("-").replace("-", "_"), None)
    if raw is None:
        return None
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} {raw!r}: expected a number") from None
    if value < low or (strict and value <= low) or value != value:
        bound = f"greater than {low:g}" if strict else f"at least {low:g}"
        raise ConfigError(f"{name} {raw}: must be {bound}")
    return value


def configs_from_args(args: argparse.Namespace) -> list[EngineConfig] | None:
    """One engine config per ``--judge`` (a jury when there are several), or ``None`` when
    no ``--judge`` is given and no provider key is in the environment (the caller then
    skips judging and says how to enable it). With no ``--judge`` but a key present, the
    provider's default model is used. The judge strings (``MODEL@URL``: that server, its
    verdicts cached under its model and that URL) are parsed by the engine
    (:func:`judgekit.engine.config.judge_configs`), as for :func:`judgekit.evaluate`; the
    judges without ``@URL`` call ``--base-url`` (or the provider's default)."""
    options = _options_from_args(args)
    given = getattr(args, "judge", None)
    specs = given if isinstance(given, list) else [given] if given else []
    if not specs:
        for spec in default_judges():
            if os.environ.get(spec.key_var):
                print(f"judge: {spec.default_model} ({spec.key_var} is set and no --judge "
                      "was given)", file=sys.stderr)
                specs = [spec.default_model]
                break
        else:
            return None
    configs = judge_configs(specs, **options)
    if len(configs) == 1:
        return configs
    from judgekit.pairwise.jury import juror_labels

    shared = configs[0].on_event
    labels = juror_labels([(c.model, c.base_url) for c in configs])
    return [c.model_copy(update={"on_event": _Named(shared, label)})
            for c, label in zip(configs, labels)]


class _Named:
    """A jury judge's listener: its notes (a stop, the cost cap) name the judge."""

    def __init__(self, listener: Any, label: str) -> None:
        self.listener, self.label = listener, label

    def __call__(self, event: EngineEvent) -> None:
        if event.kind == "note" and self.listener is not None:
            event = EngineEvent("note", text=f"judge {self.label}: {event.text}")
        if self.listener is not None:
            self.listener(event)


def config_from_args(args: argparse.Namespace) -> EngineConfig | None:
    """The first judge's config (:func:`configs_from_args`), or ``None`` without one."""
    given = getattr(args, "judge", None)
    first = given[0] if isinstance(given, list) and given else given
    configs = configs_from_args(argparse.Namespace(**{**vars(args), "judge": first}))
    return configs[0] if configs else None


def _options_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The engine options of the flags (every value checked), for every judge given."""
    concurrency = _number(args, "--concurrency", int, 1)
    max_cost = _number(args, "--max-cost", float, 0, strict=True)
    max_tries = _number(args, "--max-tries", int, 1)
    timeout = _number(args, "--timeout", float, 0, strict=True)
    retries = _number(args, "--max-retries", int, 0)
    deadline = _number(args, "--deadline", float, 0, strict=True)
    window = _number(args, "--judge-context", int, engine_config.MIN_CONTEXT_WINDOW)
    base_url = getattr(args, "base_url", None)
    if base_url:
        check_base_url(base_url, where="--base-url")
    fields: dict[str, Any] = {
        "base_url": base_url or None, "cache_path": getattr(args, "cache", None),
        "use_cache": not getattr(args, "no_cache", False),
        "retry_unscored": bool(getattr(args, "retry_unscored", True)),
        "dry_run": bool(getattr(args, "dry_run", False)), "max_cost_usd": max_cost,
        "batch": bool(getattr(args, "batch", False)),
        "structured_output": getattr(args, "structured_output", None) or "auto",
        "context_window": window,
        "prompt_cache": not getattr(args, "no_prompt_cache", False),
    }
    for key, value in (("concurrency", concurrency), ("max_tries", max_tries),
                       ("timeout", timeout)):
        if value is not None:
            fields[key] = value
    if retries is not None:
        fields["retry_attempts"] = retries + 1
    if deadline is not None:
        fields["deadline_at"] = time.monotonic() + deadline
    progress = not getattr(args, "json", False)
    fields["progress"] = progress
    fields["on_event"] = TerminalProgress(enabled=progress)
    return fields
