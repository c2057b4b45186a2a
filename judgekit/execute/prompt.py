"""The task prompt, rendered from ``prompts/task.md``.

Every arm gets the same text; only a context arm adds a context section.

Example:
    >>> from judgekit.ingest.suites import SuiteTask
    >>> t = SuiteTask(id="t", repo="a/b", commit="abcdef1", description="Bug.",
    ...               test_command="pytest tests")
    >>> "pytest tests" in render_prompt(t)
    True
"""

from __future__ import annotations

from pathlib import Path
from string import Template

from judgekit._resources import read_template
from judgekit.ingest.suites import SuiteTask

CONTEXT_HEADER = (
    "\n## Code that may be relevant\n\n"
    "These excerpts were retrieved automatically from the repository; they may or may "
    "not matter for the fix.\n\n"
)


def render_prompt(task: SuiteTask, context: str | None = None,
                  template: Template | None = None) -> str:
    """The prompt for ``task``, with ``context`` (retrieved code) when given."""
    tpl = template or read_template("task.md")
    setup_note = ""
    if task.setup_command:
        setup_note = ("The environment was prepared beforehand with:\n\n"
                      f"    {task.setup_command}\n\n")
    context_text = f"{CONTEXT_HEADER}{context.strip()}\n" if context and context.strip() else ""
    return tpl.safe_substitute(description=task.description.strip(),
                               test_command=task.test_command, setup_note=setup_note,
                               context=context_text)
