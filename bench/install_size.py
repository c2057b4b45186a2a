"""The size of the README's set-up on disk: ``pip install -e '.[dev]'`` into a fresh venv.

A new virtual environment (``python -m venv``, its own pip, no system site-packages) is made
in a temporary directory, the README's install command runs in it from the repository root,
and the venv is measured as ``du -sk`` measures it (disk blocks, the same figure as
``du -sh``), before and after: the venv alone, and what the install added. The wheels pip
downloaded or took from its cache are not counted (they live in pip's cache, not the venv).
Each figure is printed and, with ``--out``, written as JSON.

    python bench/install_size.py                      # '.[dev]', as the README says
    python bench/install_size.py --extras ''          # judgekit alone
    python bench/install_size.py --out bench/results/install_size.json
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def du_kib(path: Path) -> int:
    """Disk usage of ``path`` in KiB, as ``du -sk`` gives it."""
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def measure(extras: str, python: str) -> dict[str, Any]:
    target = f".[{extras}]" if extras else "."
    with tempfile.TemporaryDirectory(prefix="judgekit-size-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        empty = du_kib(venv)
        started = time.perf_counter()
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", "-e", target], cwd=ROOT, check=True)
        seconds = time.perf_counter() - started
        full = du_kib(venv)
        listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list",
                                 "--format=json"], capture_output=True, text=True, check=True)
    return {"command": f"pip install -e '{target}'", "python": platform.python_version(),
            "venv_kib": full, "venv_mib": round(full / 1024, 1),
            "empty_venv_kib": empty, "added_kib": full - empty,
            "added_mib": round((full - empty) / 1024, 1),
            "packages": len(json.loads(listed.stdout)), "install_seconds": round(seconds, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="dev", help="the extras installed (default dev)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the venv")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    result = measure(args.extras, args.python)
    print(f"{result['command']}: venv {result['venv_mib']} MiB on disk "
          f"({result['added_mib']} MiB added to an empty venv of "
          f"{round(result['empty_venv_kib'] / 1024, 1)} MiB), {result['packages']} packages, "
          f"{result['install_seconds']} s (Python {result['python']})")
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
