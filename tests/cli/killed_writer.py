"""Run judgekit's command line and SIGKILL it at the Nth rename, exchange, unlink or rmdir of
a path under a directory: ``python -m tests.cli.killed_writer N DIR ARGS...``.

A test's fault injection: it exits 0 when the command made fewer than N such calls."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any


def main() -> int:
    step, under, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    count = 0

    def counted(call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            nonlocal count
            if any(os.fspath(a).startswith(under) for a in args[:2]
                   if isinstance(a, (str, os.PathLike))):
                count += 1
                if count == step:
                    os.kill(os.getpid(), signal.SIGKILL)
            return call(*args, **kwargs)
        return wrapped

    for name in ("replace", "rename", "unlink", "rmdir"):
        setattr(os, name, counted(getattr(os, name)))
    from judgekit.report import outdir

    outdir._exchange = counted(outdir._exchange)  # type: ignore[method-assign]
    from judgekit.cli import main as cli

    code = cli(argv)
    return 0 if code == 0 else 100 + code


if __name__ == "__main__":
    sys.exit(main())
