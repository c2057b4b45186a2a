"""The README starts in one screen, and every README and docs/ example that claims an
output prints it: a ```python block followed by "It prints:" and a ```text block is run,
as written, from an empty directory, and its output compared."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clirun import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CLAIM = re.compile(r"^```python\n(?P<code>.*?)^```\n\s*It prints:\s*\n\s*^```text\n"
                   r"(?P<out>.*?)^```", re.S | re.M)


def claims() -> list[tuple[str, str, str]]:
    """``(where, code, output)`` of every example that says what it prints."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in CLAIM.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append((f"{page.relative_to(ROOT)}:{line}", m["code"], m["out"]))
    return found


def test_the_readme_claims_an_output() -> None:
    assert any(where.startswith("README.md:") for where, _, _ in claims())


@pytest.mark.parametrize(("where", "code", "output"), claims(), ids=lambda v: str(v)[:40])
def test_example_prints_what_the_page_says(where: str, code: str, output: str,
                                           tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "OPENAI_", "JUDGEKIT_"))}
    env["PYTHONPATH"] = str(ROOT)
    env["JUDGEKIT_CACHE"] = str(tmp_path / "verdicts.sqlite")
    done = subprocess.run([sys.executable, str(script)], cwd=empty, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{where}: {done.stderr}"
    assert done.stdout == output, f"{where} prints something else"


def test_readme_starts_in_one_screen() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200
    first = "\n".join(lines[:60])
    assert "turns raw coding-agent evaluation runs into verdicts" in first
    picture = re.search(r"!\[[^\]]+\]\((docs/[\w.-]+\.png)\)", first)
    assert picture and (ROOT / picture.group(1)).stat().st_size > 10_000
    setup = re.search(r"## Set-up: two commands\n.*?```bash\n(.*?)```", first, re.S)
    assert setup, "the two set-up commands are not within the first 60 lines"
    commands = setup.group(1).strip().splitlines()
    assert len(commands) == 2
    assert "judgekit judge examples/bobbin" in commands[0] and "torch" not in commands[0]
    assert commands[1] == "python3 -m pytest -q"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"\n{commands[1]}\n" in ci, "CI no longer runs the README's test command"
    for step in ("**Score your runs.**", "**Judge with your model.**", "**Audit failures.**"):
        assert step in "\n".join(lines)


def test_readme_links_resolve() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[\w-]+)?\)", text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name}: broken link {target}"
