"""Agents' own session files, read as one typed :class:`Transcript` (``judgekit schema
transcript``): mini-swe-agent, SWE-agent, Claude Code, Codex CLI, OpenHands and aider, and
those other packages add through the ``judgekit.transcripts`` entry points."""

from judgekit.ingest.transcripts.claims import claims_success
from judgekit.ingest.transcripts.model import ExitStatus, ModelUsage, ToolCall, Transcript, Turn
from judgekit.ingest.transcripts.registry import (
    BUILTIN, TranscriptFile, parse_text, read_transcript, read_transcripts, readers)
from judgekit.ingest.transcripts.source import Source, TranscriptReader

__all__ = ["BUILTIN", "ExitStatus", "ModelUsage", "Source", "ToolCall", "Transcript", "TranscriptFile",
           "TranscriptReader", "Turn", "claims_success", "parse_text", "read_transcript",
           "read_transcripts", "readers"]
