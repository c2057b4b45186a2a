"""Parsers that read test counts out of test-runner output.

Each parser returns :class:`Counts` when it recognises its runner's summary, or its runner's
own "no tests" ending, in the output, else ``None``. ``total`` is the number of tests that
actually executed (skipped and filtered-out tests are not executed); ``evidence`` is the line
the counts were read from. Colour escape sequences are taken out first.

Example:
    >>> parse_output("test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out")
    Counts(framework='cargo', passed=0, failed=0, skipped=0, errors=0)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache


@dataclass(frozen=True)
class Counts:
    framework: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    evidence: str = field(default="", repr=False, compare=False)
    """The output line the counts come from."""

    @property
    def total(self) -> int:
        """Tests that executed: passed, failed or errored."""
        return self.passed + self.failed + self.errors


@lru_cache(maxsize=64)
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


def _num(pattern: str, text: str) -> int:
    m = _pattern(pattern).search(text)
    return int(m.group(1)) if m else 0


def _line(pattern: str, output: str) -> str | None:
    """The last line of ``output`` that ``pattern`` (a multiline regex) finds, stripped."""
    found = [m.group(0) for m in _pattern(pattern).finditer(output)]
    return found[-1].strip().strip("=").strip() if found else None


_PYTEST_SUMMARY = re.compile(
    r"^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)"
    r"(?:, )?)+|no tests ran)\b.*\bin [\d.]+s", re.MULTILINE)


def parse_pytest(output: str) -> Counts | None:
    matches = _PYTEST_SUMMARY.findall(output)
    if not matches:
        return None
    line = matches[-1]
    return Counts(
        framework="pytest",
        passed=_num(r"(\d+) passed", line) + _num(r"(\d+) xpassed", line),
        failed=_num(r"(\d+) failed", line),
        skipped=_num(r"(\d+) skipped", line) + _num(r"(\d+) xfailed", line),
        errors=_num(r"(\d+) errors?\b", line),
        evidence=_line(_PYTEST_SUMMARY.pattern, output) or line,
    )


_CARGO_RESULT = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;", re.MULTILINE)
_NEXTEST = re.compile(r"^\s*Summary \[.*?\]\s+(\d+) tests? run: (.*)$", re.MULTILINE)


_CARGO_NONE = r"^error: (?:no tests to run|no test target named .*)$"


def _lines_starting(output: str, prefix: str) -> list[str]:
    """The lines of ``output`` (split at newlines only) that start with ``prefix``, found with
    ``str.find``: what ``^prefix.*$`` finds with ``re.MULTILINE``."""
    found: list[str] = []
    marker = "\n" + prefix
    at = 0 if output.startswith(prefix) else output.find(marker) + 1 or -1
    while at >= 0:
        end = output.find("\n", at)
        if end < 0:
            found.append(output[at:])
            break
        found.append(output[at:end])
        at = output.find(marker, end) + 1 or -1
    return found


def parse_cargo(output: str) -> Counts | None:
    """Sum ``test result:`` lines over every test binary (and doc-tests) of a cargo run.

    nextest's ``Summary`` line is read the same way; nextest's ``no tests to run`` and cargo's
    ``no test target named`` errors say that no test executed. Only the lines that start with
    ``test result: `` are matched against the pattern of a result line.
    """
    lines = _lines_starting(output, "test result: ")
    results = [m.groups() for m in map(_CARGO_RESULT.match, lines) if m is not None]
    if results:
        return Counts(
            framework="cargo",
            passed=sum(int(r[0]) for r in results),
            failed=sum(int(r[1]) for r in results),
            skipped=sum(int(r[2]) for r in results),
            evidence=lines[-1].strip().strip("=").strip(),
        )
    nextest = _NEXTEST.findall(output)
    if nextest:
        rest = nextest[-1][1]
        return Counts(framework="cargo", passed=_num(r"(\d+) passed", rest),
                      failed=_num(r"(\d+) failed", rest) + _num(r"(\d+) timed out", rest),
                      skipped=_num(r"(\d+) skipped", rest),
                      evidence=_line(_NEXTEST.pattern, output) or "")
    none = _line(_CARGO_NONE, output)
    if none:
        return Counts(framework="cargo", evidence=none)
    return None


def parse_go(output: str) -> Counts | None:
    verbose_pass = len(re.findall(r"^\s*--- PASS: ", output, re.MULTILINE))
    verbose_fail = len(re.findall(r"^\s*--- FAIL: ", output, re.MULTILINE))
    verbose_skip = len(re.findall(r"^\s*--- SKIP: ", output, re.MULTILINE))
    pkg_ok = re.findall(r"^ok\s+\S+\s+(?:[\d.]+s|\(cached\))(.*)$", output, re.MULTILINE)
    pkg_fail = re.findall(r"^FAIL\s+\S+\s+[\d.]+s", output, re.MULTILINE)
    no_files = re.findall(r"^\?\s+\S+\s+\[no test files\]", output, re.MULTILINE)
    no_packages = _line(r"^no packages to test$", output)
    if not (verbose_pass or verbose_fail or pkg_ok or pkg_fail or no_files or no_packages):
        return None
    if verbose_pass or verbose_fail or verbose_skip:
        return Counts(framework="go", passed=verbose_pass, failed=verbose_fail,
                      skipped=verbose_skip,
                      evidence=_line(r"^(?:ok|FAIL)\s+\S+.*$", output) or "")
    # Without -v only packages are reported; a package that ran tests counts once.
    ran_ok = sum(1 for tail in pkg_ok if "[no tests to run]" not in tail)
    evidence = (_line(r"^(?:ok|FAIL|\?)\s+\S+.*$", output) if pkg_ok or pkg_fail or no_files
                else no_packages)
    return Counts(framework="go", passed=ran_ok, failed=len(pkg_fail), evidence=evidence or "")


_JEST = re.compile(r"^Tests:\s+(.*?\d+ total)", re.MULTILINE)
_VITEST = re.compile(r"^\s*Tests\s+(.*\(\d+\)|no tests)\s*$", re.MULTILINE)


def parse_jest(output: str) -> Counts | None:
    """Jest's ``Tests: 1 failed, 2 passed, 3 total`` and Vitest's ``Tests  2 passed (2)``.

    A test file that failed to run (``Test Suites: 1 failed`` / ``Test Files  1 failed``) counts
    as an error; ``No tests found`` (jest) and ``No test files found`` (vitest) mean that no
    test executed.
    """
    jest = _JEST.findall(output)
    if jest:
        line = jest[-1]
        suites = _num(r"^Test Suites:.*?(\d+) failed", output)
        return Counts(framework="jest", passed=_num(r"(\d+) passed", line),
                      failed=_num(r"(\d+) failed", line),
                      skipped=_num(r"(\d+) skipped", line) + _num(r"(\d+) todo", line),
                      errors=suites if not _num(r"(\d+) failed", line) else 0,
                      evidence=_line(r"^Tests:.*$", output) or line)
    vitest = _VITEST.findall(output)
    if vitest:
        line = vitest[-1]
        files = _num(r"^\s*Test Files\s+(\d+) failed", output)
        return Counts(framework="vitest", passed=_num(r"(\d+) passed", line),
                      failed=_num(r"(\d+) failed", line),
                      skipped=_num(r"(\d+) skipped", line) + _num(r"(\d+) todo", line),
                      errors=files if not _num(r"(\d+) failed", line) else 0,
                      evidence=_line(_VITEST.pattern, output) or line)
    for pattern, framework in ((r"^No tests found.*$", "jest"),
                               (r"^No test files found.*$", "vitest")):
        none = _line(pattern, output)
        if none:
            return Counts(framework=framework, evidence=none)
    return None


def parse_unittest(output: str) -> Counts | None:
    ran = re.findall(r"^Ran (\d+) tests? in [\d.]+s", output, re.MULTILINE)
    if not ran:
        return None
    total = int(ran[-1])
    tail = output[output.rfind("Ran ") :]
    failures, errors = _num(r"failures=(\d+)", tail), _num(r"errors=(\d+)", tail)
    skipped = _num(r"skipped=(\d+)", tail)
    executed = max(total - skipped, 0)
    ending = _line(r"^(?:OK|FAILED|NO TESTS RAN)\b.*$", tail)
    evidence = _line(r"^Ran \d+ tests? in [\d.]+s$", output) or ""
    return Counts(framework="unittest", passed=max(executed - failures - errors, 0),
                  failed=failures, skipped=skipped, errors=errors,
                  evidence=f"{evidence}, {ending}" if ending else evidence)


_NODE = re.compile(r"^(?:# |\u2139 )tests (\d+)$", re.MULTILINE)


def parse_node(output: str) -> Counts | None:
    """Node's built-in runner (``node --test``): its ``tests``/``pass``/``fail`` totals, in TAP
    (``# tests 0``) or in the spec reporter's form (``\u2139 tests 0``)."""
    if not _NODE.search(output):
        return None
    tail = output[list(_NODE.finditer(output))[-1].start():]

    def total(name: str) -> int:
        return _num(rf"^(?:# |\u2139 ){name} (\d+)$", tail)

    return Counts(framework="node", passed=total("pass"), failed=total("fail"),
                  skipped=total("skipped") + total("todo"), errors=total("cancelled"),
                  evidence=_line(_NODE.pattern, output) or "")


PARSERS: dict[str, Callable[[str], Counts | None]] = {
    "cargo": parse_cargo,
    "pytest": parse_pytest,
    "go": parse_go,
    "jest": parse_jest,
    "vitest": parse_jest,
    "unittest": parse_unittest,
    "node": parse_node,
}


def framework_of_command(command: str | None) -> str | None:
    """Guess the test framework from the test command."""
    if not command:
        return None
    c = command.lower()
    for needle, framework in (("nextest", "cargo"), ("cargo test", "cargo"), ("pytest", "pytest"),
                              ("go test", "go"), ("vitest", "vitest"), ("jest", "jest"),
                              ("unittest", "unittest"), ("node --test", "node")):
        if needle in c:
            return framework
    return None


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def parse_output(output: str, framework: str | None = None) -> Counts | None:
    """Parse with ``framework``'s parser first, then with every other one."""
    if "\x1b" in output:
        output = _ANSI.sub("", output)
    order = ([framework] if framework in PARSERS else []) + [f for f in PARSERS if f != framework]
    for name in order:
        counts = PARSERS[name](output)
        if counts is not None:
            return counts
    return None
