"""Every flag the README and the docs/ pages show on a judgekit command line is one that
command accepts, and every flag their running text names exists."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.clirun import judgekit
from tests.conftest import ROOT

#: Sub-commands with a sub-command of their own (``judgekit suite verify``).
NESTED = {"suite", "rubrics", "export"}


#: The pages whose commands and flags are checked; docs/cli.md is generated from the parser.
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md")
                                     if p.name != "cli.md")]


def _blocks(text: str) -> list[tuple[str, str]]:
    """``(language, body)`` of each fenced block (a fence of four backticks holds three)."""
    return [(m.group(2), m.group(3)) for m in
            re.finditer(r"^(`{3,})(\w*)\n(.*?)^\1[ \t]*$", text, re.S | re.M)]


def readme_commands(pages: list[Path] | None = None) -> list[list[str]]:
    """The ``judgekit ...`` command lines of the shell blocks of ``pages`` (the README and
    the docs/ pages), as words; a console block's ``$ `` prompt is dropped."""
    commands = []
    for page in pages or PAGES:
        text = page.read_text(encoding="utf-8")
        for lang, block in _blocks(text):
            if lang not in ("", "bash", "sh", "console"):
                continue
            joined = block.replace("\\\n", " ")
            for line in joined.splitlines():
                line = line.removeprefix("$ ")
                for part in re.split(r"&&|\|", line.split(" #")[0]):
                    try:
                        words = shlex.split(part.strip()) if part.strip() else []
                    except ValueError:  # an output line with an unbalanced quote
                        continue
                    if words[:1] == ["judgekit"] and len(words) > 1:
                        commands.append(words)
    return commands


def flags_of(words: list[str]) -> set[str]:
    # quoted arguments (an agent's own command line) are single words here: their flags are
    # not judgekit's
    return {w.split("=", 1)[0].rstrip(":,;") for w in words
            if w.startswith("--") and " " not in w}


def test_readme_shows_judgekit_commands() -> None:
    assert {c[1] for c in readme_commands([ROOT / "README.md"])} >= {"score", "judge", "audit"}
    names = {c[1] for c in readme_commands()}
    assert {"score", "judge", "audit", "run", "index", "search", "calibrate",
            "compare", "report", "suite", "rubrics", "schema"} <= names


def test_every_readme_flag_is_in_the_commands_help() -> None:
    helps: dict[tuple[str, ...], str] = {}
    missing = []
    for words in readme_commands():
        key = tuple(words[1:3]) if words[1] in NESTED and len(words) > 2 and \
            not words[2].startswith("-") else (words[1],)
        if key not in helps:
            proc = judgekit(*key, "--help")
            assert proc.returncode == 0, f"judgekit {' '.join(key)} --help: {proc.stderr}"
            helps[key] = proc.stdout
        for flag in flags_of(words):
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", helps[key]):
                missing.append(f"judgekit {' '.join(key)} {flag}")
    assert not missing, "README flags the CLI does not accept: " + ", ".join(sorted(set(missing)))


#: Pages whose whole running text is checked for flags; the other pages' "In brief"
#: sections are (their further text also names flags of git, agents and benchmarks).
WHOLE = {"README.md", "quickstart.md", "run-format.md"}


def _prose(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    if page.name not in WHOLE:
        start = text.find("\n## In brief\n")
        end = text.find("\n## ", start + 1)
        text = text[start:end] if start >= 0 else ""
    return re.sub(r"^(`{3,})\w*\n.*?^\1[ \t]*$", "", text, flags=re.S | re.M)


def test_every_flag_named_in_readme_prose_exists() -> None:
    """Flags in the running text of the README and of what it points at in docs/
    (``--max-cost USD``) exist on some command."""
    from judgekit.cli import COMMANDS

    helps = " ".join(judgekit(c, "--help").stdout for c in (*COMMANDS, "search"))
    missing, named_any = [], set()
    for page in PAGES:
        named = {m for span in re.findall(r"`([^`]+)`", _prose(page))
                 for m in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", span)}
        named_any |= named
        missing += [f"{page.name}: {f}" for f in sorted(named)
                    if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", helps)]
    assert len(named_any) > 20, "the pages name almost no flag in their text"
    assert not missing, f"pages name flags no command accepts: {missing}"
