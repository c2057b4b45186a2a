"""Rubric files: Markdown with YAML front matter (see ``rubrics/README.md``).

judgekit's own rubrics are the files of its rubric directory; other installed packages add
theirs through the ``judgekit.rubrics`` entry points (:mod:`judgekit.audit.rubric_sources`).
:func:`rubric_catalog` lists both, with where each comes from; a plug-in rubric that cannot be
read, or whose id is taken already (judgekit's own win), is left out and named in its
``problems``. :func:`load_rubric` finds a rubric by id in either, or reads a file.

Example:
    >>> rubric = load_rubric("scienceagentbench")
    >>> rubric.category_name("evaluation script defects")
    'Evaluation Script Defects'
    >>> rubric.category_name("gold-program")
    'Gold Program Issues'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from judgekit.audit.rubric_sources import SuppliedRubric, plugin_sources, rubric_dir
from judgekit.errors import InputError
from judgekit.io import read_text
from judgekit.plugins import OWN_DISTRIBUTION

#: ``deficiency_type`` value meaning "no defect".
NONE_TYPE = "none"
_SECTION = re.compile(r"^#{1,6}\s+how the benchmark evaluates\b", re.IGNORECASE | re.MULTILINE)
_NUMBER_PREFIX = re.compile(r"^\s*\d+\s*[.)]\s*")


def _norm(text: str) -> str:
    """Lower-case, with every run of non-alphanumerics collapsed to one space."""
    text = _NUMBER_PREFIX.sub("", text)
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.casefold()).split())


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Category(_Model):
    """One kind of benchmark defect."""

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    examples: list[str] = Field(default_factory=list)


class Exclusion(_Model):
    """A kind of failure that is the agent's fault (score 0)."""

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    examples: list[str] = Field(default_factory=list)


class EvidenceRequirements(_Model):
    score_1: list[str] = Field(min_length=1)
    score_0: list[str] = Field(min_length=1)


class Rubric(_Model):
    """A parsed rubric file. ``body`` is the Markdown after the front matter."""

    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    benchmark: str = Field(min_length=1)
    version: int = 1
    categories: list[Category] = Field(min_length=1)
    exclusions: list[Exclusion] = Field(min_length=1)
    evidence_requirements: EvidenceRequirements
    body: str = ""
    path: str | None = None

    @model_validator(mode="after")
    def _unique(self) -> Rubric:
        seen: set[str] = set()
        for cat in self.categories:
            for key in {_norm(cat.id), _norm(cat.name)}:
                if key in seen or key == NONE_TYPE:
                    raise ValueError(f"category id or name {key!r} is repeated or reserved")
                seen.add(key)
        return self

    def category_name(self, value: str) -> str | None:
        """The category ``value`` names (by id or name, case-insensitive), or ``None``."""
        key = _norm(value)
        for cat in self.categories:
            if key in (_norm(cat.id), _norm(cat.name)):
                return cat.name
        return None

    def render(self) -> str:
        """The whole rubric as the judge reads it: categories, exclusions, evidence, body."""
        out = [f"# Rubric: {self.title} (id {self.id}, version {self.version})", "",
               "## Deficiency categories", "",
               "Give `deficiency_type` as one of these names (or its id), or `none` when "
               "no defect exists.", ""]
        for i, cat in enumerate(self.categories, 1):
            out.append(f"### {i}. {cat.name} (id: `{cat.id}`)")
            out.append(cat.description)
            out += [f"- {ex}" for ex in cat.examples]
            out.append("")
        out += ["## Exclusions: the agent's fault (score 0)", ""]
        for exc in self.exclusions:
            out.append(f"- **{exc.name}**: {exc.description}")
            out += [f"  - {ex}" for ex in exc.examples]
        out += ["", "## Evidence requirements", "", "For a score of 1:"]
        out += [f"{i}. {req}" for i, req in enumerate(self.evidence_requirements.score_1, 1)]
        out += ["", "For a score of 0:"]
        out += [f"{i}. {req}" for i, req in enumerate(self.evidence_requirements.score_0, 1)]
        return "\n".join(out + ["", self.body.strip(), ""])


def parse_rubric(text: str, path: str | Path = "<rubric>") -> Rubric:
    """Parse rubric text; any problem raises :class:`InputError` naming the field."""
    if not text.startswith("---"):
        raise InputError(path, None, "no YAML front matter (the file must start with '---')")
    parts = text.split("\n---", 1)
    if len(parts) != 2:
        raise InputError(path, None, "front matter is not closed by a '---' line")
    head, body = parts[0][3:], parts[1].split("\n", 1)[1] if "\n" in parts[1] else ""
    try:
        meta = yaml.safe_load(head)
    except RecursionError:
        raise InputError(path, "front matter", "invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        raise InputError(path, "front matter", f"invalid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise InputError(path, "front matter", "must be a mapping")
    if not _SECTION.search(body):
        raise InputError(path, "body", "missing the section '## How the benchmark evaluates'")
    try:
        return Rubric.model_validate({**meta, "body": body, "path": str(path)})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "front matter"
        raise InputError(path, where, err["msg"]) from None


@dataclass(frozen=True)
class RubricEntry:
    """A rubric, and the distribution it comes from (``judgekit`` for judgekit's own)."""

    rubric: Rubric
    source: str

    @property
    def builtin(self) -> bool:
        return self.source == OWN_DISTRIBUTION


@dataclass
class RubricCatalog:
    """Every rubric audits can use, sorted by id, and the plug-ins left out (one line each)."""

    entries: list[RubricEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def find(self, rubric_id: str) -> RubricEntry | None:
        return next((e for e in self.entries if e.rubric.id == rubric_id), None)


def _shipped_files() -> list[Path]:
    return sorted(p for p in rubric_dir().glob("*.md") if p.name.lower() != "readme.md")


def _parsed(supplied: SuppliedRubric) -> Rubric:
    """The rubric a plug-in supplied; an InputError when it is not one."""
    if supplied.text is not None:
        return parse_rubric(supplied.text, supplied.where)
    if not isinstance(supplied.parsed, Rubric):
        raise InputError(supplied.where, None, f"not a rubric file nor a rubric (got "
                                               f"{type(supplied.parsed).__name__})")
    return supplied.parsed


def _plugin_entries(taken: dict[str, str]) -> tuple[list[RubricEntry], list[str]]:
    """The plug-ins' rubrics whose ids are not in ``taken`` (id → where the rubric holding it
    comes from) nor an earlier plug-in's, and one line for each plug-in left out."""
    sources, problems = plugin_sources()
    entries: list[RubricEntry] = []
    for supplied in sources:
        try:
            rubric = _parsed(supplied)
        except InputError as exc:
            problems.append(supplied.problem(str(exc)))
            continue
        if rubric.id in taken:
            problems.append(supplied.problem(f"rubric id {rubric.id!r} is taken by "
                                             f"{taken[rubric.id]}'s rubric, which is kept"))
            continue
        source = supplied.plugin.distribution or "(unknown)"
        taken[rubric.id] = source
        entries.append(RubricEntry(rubric, source))
    return entries, problems


def rubric_catalog() -> RubricCatalog:
    """judgekit's own rubrics and the plug-ins', sorted by id, with the plug-ins left out."""
    files = _shipped_files()
    own = [RubricEntry(load_rubric(p), OWN_DISTRIBUTION) for p in files]
    taken = dict.fromkeys([p.stem for p in files] + [e.rubric.id for e in own],
                          OWN_DISTRIBUTION)
    others, problems = _plugin_entries(taken)
    entries = sorted(own + others, key=lambda e: e.rubric.id)
    return RubricCatalog(entries, problems)


def list_rubrics() -> list[Rubric]:
    """Every rubric audits can use (judgekit's own and the plug-ins'), sorted by id."""
    return [e.rubric for e in rubric_catalog().entries]


def _from_plugins(name: str) -> Rubric:
    """The plug-in rubric of id ``name``, or the InputError saying which ones there are."""
    shipped = {p.stem for p in _shipped_files()}
    entries, problems = _plugin_entries(dict.fromkeys(shipped, OWN_DISTRIBUTION))
    found = next((e.rubric for e in entries if e.rubric.id == name), None)
    if found is not None:
        return found
    known = ", ".join(sorted(shipped | {e.rubric.id for e in entries}))
    left_out = f"; {'; '.join(problems)}" if problems else ""
    raise InputError(name, None, f"no such rubric (known: {known}){left_out}")


def load_rubric(name_or_path: str | Path) -> Rubric:
    """Load a rubric by id (judgekit's own, then the plug-ins') or by file path."""
    text = str(name_or_path)
    path = Path(text)
    if not (isinstance(name_or_path, Path) or "/" in text or text.endswith(".md")):
        path = rubric_dir() / f"{text}.md"
        if not path.is_file():
            return _from_plugins(text)
    if not path.is_file():
        raise InputError(path, None, "rubric file not found")
    return parse_rubric(read_text(path), path)
