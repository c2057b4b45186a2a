"""Engine settings and the command-line flags that fill them.

Every sub-command that calls a model (``judge``, ``audit``) adds the same flags:

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
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from judgekit.errors import ConfigError

PROVIDERS = ("anthropic", "openai")
#: Model picked when no ``--judge`` is given but the provider's key is in the environment.
DEFAULT_MODELS = {"anthropic": "anthropic:claude-sonnet-4-6", "openai": "openai:gpt-4.1"}
KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
BASE_URL_VARS = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}


class EngineConfig(BaseModel):
    """How the engine calls the model.

    ``model`` is ``"anthropic:<model>"`` or ``"openai:<model>"`` (any OpenAI-compatible
    server through ``base_url``). Keys come from ``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY``;
    base URLs from ``base_url`` or ``ANTHROPIC_BASE_URL`` / ``OPENAI_BASE_URL``.
    """

    model_config = ConfigDict(extra="forbid")

    model: str
    base_url: str | None = None
    concurrency: int = 16
    cache_path: Path | None = None
    use_cache: bool = True
    retry_unscored: bool = False
    max_tries: int = 3
    max_cost_usd: float | None = None
    dry_run: bool = False
    batch: bool = False
    temperature: float = 0.0
    max_tokens: int = 2048
    progress: bool = True
    #: seconds before one HTTP call is abandoned (and retried).
    timeout: float = 120.0
    #: attempts per call on transient failures (429, 5xx, timeouts, dropped connections).
    retry_attempts: int = 6
    #: first backoff delay in seconds; doubles per attempt, with jitter, capped by ``backoff_max``.
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    #: OpenAI structured route: JSON-schema response format or a forced function call.
    openai_route: Literal["json_schema", "tool"] = "json_schema"
    #: seconds between polls of a provider batch.
    batch_poll_seconds: float = 30.0

    @property
    def provider(self) -> str:
        return split_model(self.model)[0]

    @property
    def model_name(self) -> str:
        return split_model(self.model)[1]

    def resolved_cache_path(self) -> Path:
        """The SQLite file of the verdict cache."""
        if self.cache_path is not None:
            return Path(self.cache_path).expanduser()
        env = os.environ.get("JUDGEKIT_CACHE")
        if env:
            return Path(env).expanduser()
        return Path.home() / ".cache" / "judgekit" / "verdicts.sqlite"

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get(BASE_URL_VARS[self.provider]) or None


def split_model(model: str) -> tuple[str, str]:
    """Split ``"anthropic:claude-x"`` into ``("anthropic", "claude-x")``.

    A bare name starting with ``claude`` is taken as Anthropic, ``gpt``/``o1``/``o3``/``o4``
    as OpenAI.

    Example:
        >>> split_model("openai:gpt-4.1")
        ('openai', 'gpt-4.1')
    """
    if ":" in model:
        provider, name = model.split(":", 1)
        if provider in PROVIDERS and name:
            return provider, name
        raise ConfigError(f"unknown judge model {model!r}: use anthropic:<model> or openai:<model>")
    if model.startswith("claude"):
        return "anthropic", model
    if model.startswith(("gpt", "o1", "o3", "o4", "chatgpt")):
        return "openai", model
    raise ConfigError(f"unknown judge model {model!r}: use anthropic:<model> or openai:<model>")


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the judge flags shared by every model-calling sub-command."""
    g = parser.add_argument_group("judge model")
    g.add_argument("--judge", metavar="MODEL", help="anthropic:<model> or openai:<model>")
    g.add_argument("--base-url", metavar="URL", help="API base URL (OpenAI-compatible servers too)")
    g.add_argument("--concurrency", metavar="N", type=_positive_int, default=16,
                   help="calls in flight at most (default 16; shrinks when rate-limited)")
    g.add_argument("--cache", metavar="PATH", type=Path,
                   help="verdict cache file (default $JUDGEKIT_CACHE or ~/.cache/judgekit/verdicts.sqlite)")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the verdict cache")
    g.add_argument("--retry-unscored", action="store_true",
                   help="ask again for items a cached run left unscored (no valid verdict)")
    g.add_argument("--dry-run", action="store_true", help="print calls and estimated cost; call nothing")
    g.add_argument("--max-cost", metavar="USD", type=float, help="stop scheduling calls once spent")
    g.add_argument("--batch", action="store_true", help="use the provider's batch API (half price, slow)")
    g.add_argument("--max-tries", metavar="N", type=_positive_int, default=3,
                   help="answers asked per item before it is unscored (default 3)")


def config_from_args(args: argparse.Namespace) -> EngineConfig | None:
    """Build the engine config from parsed flags.

    Returns ``None`` when no ``--judge`` is given and no provider key is in the
    environment (the caller then skips judging and says how to enable it). With no
    ``--judge`` but a key present, the provider's default model is used.
    """
    model = getattr(args, "judge", None)
    if not model:
        for provider in PROVIDERS:
            if os.environ.get(KEY_VARS[provider]):
                model = DEFAULT_MODELS[provider]
                print(f"judge: {model} ({KEY_VARS[provider]} is set and no --judge was given)",
                      file=sys.stderr)
                break
        else:
            return None
    split_model(model)
    return EngineConfig(
        model=model,
        base_url=getattr(args, "base_url", None),
        concurrency=getattr(args, "concurrency", 16) or 16,
        cache_path=getattr(args, "cache", None),
        use_cache=not getattr(args, "no_cache", False),
        retry_unscored=getattr(args, "retry_unscored", False),
        dry_run=bool(getattr(args, "dry_run", False)),
        max_cost_usd=getattr(args, "max_cost", None),
        batch=bool(getattr(args, "batch", False)),
        max_tries=getattr(args, "max_tries", 3) or 3,
    )


#: One line callers print when judging is skipped for want of a model.
HOW_TO_ENABLE = (
    "judging skipped: pass --judge anthropic:<model> or openai:<model> "
    "(or set ANTHROPIC_API_KEY / OPENAI_API_KEY)"
)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value
