"""What ``score``, ``judge`` and ``audit`` write and print, normalised to compare two trees.

``python bench/outputs_unchanged.py TREE DEST`` runs each scenario below with TREE's
judgekit against the scripted model server and writes one JSON file per scenario into
DEST: exit code, stdout, stderr and every output file, with temporary paths, ports and
timestamps blanked, and cost and prompt-cache fields replaced by their sums (which request
writes the prompt cache first varies). ``python bench/outputs_unchanged.py --compare A B``
compares two such directories and exits 1 when a scenario differs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

#: fields whose values vary with the prompt cache: compared as sums.
_SUMMED = ("cost", "spend", "cache_", "input_tokens")


def _blank(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp), "<TMP>")
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", "<ts>", text)
    text = re.sub(r"\$\d+\.\d+", "$<c>", text)
    text = re.sub(r"\d+\.\d+s\b", "<s>s", text)
    text = re.sub(r"(tokens in )\d+", r"\1<n>", text)
    return re.sub(r"\d+ read, \d+ written", "<n> read, <n> written", text)


def _normalised(value: Any, sums: dict[str, float]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if (isinstance(item, (int, float)) and not isinstance(item, bool)
                    and any(part in key for part in _SUMMED)):
                sums[key] = round(sums.get(key, 0.0) + item, 4)
                out[key] = "<summed>"
            else:
                out[key] = _normalised(item, sums)
        return out
    if isinstance(value, list):
        return [_normalised(item, sums) for item in value]
    if isinstance(value, str):
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", value)
    return value


def _record(proc: subprocess.CompletedProcess[str], out: Path | None, tmp: Path
            ) -> dict[str, Any]:
    sums: dict[str, float] = {}
    record: dict[str, Any] = {"rc": proc.returncode, "stdout": _blank(proc.stdout, tmp),
                              "stderr": _blank(proc.stderr, tmp)}
    try:
        record["stdout"] = _normalised(json.loads(proc.stdout), sums)
    except json.JSONDecodeError:
        pass
    files: dict[str, Any] = {}
    if out is not None and out.is_dir():
        for path in sorted(out.iterdir()):
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".json":
                files[path.name] = _normalised(json.loads(text), sums)
            elif path.suffix == ".jsonl":
                files[path.name] = [_normalised(json.loads(line), sums)
                                    for line in text.splitlines()]
            elif path.name.endswith(".md"):
                files[path.name] = _blank(text, tmp)
            else:  # the HTML page embeds the same content: present or not
                files[path.name] = bool(text)
    record["files"], record["sums"] = files, sums
    return record


def run(tree: Path, dest: Path) -> None:
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    from judgekit.testing import FakeAPIServer
    from tests.cli.helpers import judge_reply, run_file

    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    tmp = Path(tempfile.mkdtemp())
    example = tree / "examples" / "bobbin"

    def cli(*args: object, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
        full = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
        full.update(PYTHONPATH=str(tree), **(env or {}))
        return subprocess.run([sys.executable, "-m", "judgekit", *map(str, args)], env=full,
                              capture_output=True, text=True, timeout=600)

    def keep(name: str, proc: subprocess.CompletedProcess[str], out: str | None = None) -> None:
        record = _record(proc, tmp / out if out else None, tmp)
        (dest / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True))

    keep("score_json", cli("score", "--json", example))
    keep("score_out", cli("score", example, "--out", tmp / "s"), "s")
    with FakeAPIServer(judge_reply) as server:
        def judged(*args: object, cache: str | None = None) -> subprocess.CompletedProcess[str]:
            env = {**server.env(), "ANTHROPIC_API_KEY": "test-key",
                   "JUDGEKIT_CACHE": str(tmp / f"{cache}.sqlite")}
            return cli(*args, *([] if cache else ["--no-cache"]), env=env)

        runs = run_file(tmp)
        one = ("--judge", "anthropic:claude-haiku-4-5")
        two = ("--judge", "anthropic:claude-sonnet-4-5")
        keep("judge", judged("judge", runs, "--out", tmp / "j1", *one, cache="c1"), "j1")
        keep("judge_json", judged("judge", runs, "--json", *one, cache="c2"))
        keep("judge_dry", judged("judge", runs, "--dry-run", *one, cache="c3"))
        keep("judge_cap", judged("judge", runs, "--out", tmp / "j2", *one, "--no-audit",
                                 "--max-cost", "0.02"), "j2")
        keep("audit", judged("audit", runs, "--out", tmp / "a1", *one, cache="c4"), "a1")
        keep("audit_json", judged("audit", runs, "--json", *one, cache="c5"))
        keep("jury", judged("judge", runs, "--out", tmp / "j3", *one, *two, cache="c6"), "j3")
        keep("jury_cap", judged("judge", runs, "--out", tmp / "j4", *one, *two,
                                "--max-cost", "0.05"), "j4")
        keep("audit_jury", judged("audit", runs, "--out", tmp / "a2", *one, *two, cache="c7"),
             "a2")
        keep("audit_jury_cap", judged("audit", runs, "--out", tmp / "a3", *one, *two,
                                      "--max-cost", "0.03"), "a3")
        for name, extra, cache in (("rejudge", (), "c8"),
                                   ("rejudge_replace", ("--replace-judges",), "c9"),
                                   ("rejudge_cap", ("--max-cost", "0.01"), None)):
            shutil.copytree(tmp / "j1", tmp / name)
            keep(name, judged("judge", tmp / name, *two, *extra, cache=cache), name)
        keep("judge_bobbin", judged("judge", example, "--out", tmp / "j5", *one, "--no-audit",
                                    cache="c10"), "j5")
    shutil.rmtree(tmp)


def compare(a: Path, b: Path) -> int:
    differ = 0
    for path in sorted(a.glob("*.json")):
        same = json.loads(path.read_text()) == json.loads((b / path.name).read_text())
        print(f"{'same' if same else 'DIFFERS'}: {path.stem}")
        differ += not same
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    run(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
