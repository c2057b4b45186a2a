"""Rubric files: Markdown with YAML front matter (see ``rubrics/README.md``).

Example:
    >>> rubric = load_rubric("scienceagentbench")
    >>> rubric.category_name("evaluation script defects")
    'Evaluation Script Defects'
    >>> rubric.category_name("gold-program")
    'Gold Program Issues'
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from judgekit._resources import data_dir
from judgekit.errors import InputError

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


def rubric_dir() -> Path:
    return data_dir("rubrics")


def list_rubrics() -> list[Rubric]:
    """Every rubric shipped in the rubrics directory, sorted by id."""
    files = sorted(p for p in rubric_dir().glob("*.md") if p.name.lower() != "readme.md")
    return sorted((load_rubric(p) for p in files), key=lambda r: r.id)


def load_rubric(name_or_path: str | Path) -> Rubric:
    """Load a rubric by name (from the rubrics directory) or by file path."""
    text = str(name_or_path)
    path = Path(text)
    if not (isinstance(name_or_path, Path) or "/" in text or text.endswith(".md")):
        path = rubric_dir() / f"{text}.md"
        if not path.is_file():
            known = ", ".join(p.stem for p in sorted(rubric_dir().glob("*.md"))
                              if p.name.lower() != "readme.md")
            raise InputError(text, None, f"no such rubric (known: {known})")
    if not path.is_file():
        raise InputError(path, None, "rubric file not found")
    return parse_rubric(path.read_text(encoding="utf-8"), path)
