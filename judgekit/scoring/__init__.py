"""Scoring: file-level precision/recall/F1, honest test statuses, per-arm statistics."""

from judgekit.scoring.files import FileScores, file_scores
from judgekit.scoring.models import ArmStats, Comparison, ScoredResult, ScoreSummary
from judgekit.scoring.outcomes import Outcome, classify, classify_result
from judgekit.scoring.score import score, score_result
from judgekit.scoring.step import ScoreResult, score_step

__all__ = ["ArmStats", "Comparison", "FileScores", "Outcome", "ScoreResult", "ScoreSummary", "ScoredResult",
           "classify", "classify_result", "file_scores", "score", "score_result", "score_step"]
