"""Pairwise flip-and-draw judging of two solutions of a task on three dimensions.

Each pair is judged twice, once in each order; per dimension (consistency, completeness,
minimality) the arm that wins in both orders wins and anything else is a draw. The
judge's position bias is recorded per dimension and summarised per arm pair.

Example:
    >>> from judgekit.pairwise import combine
    >>> combine("A", "B").winner          # arm a won shown first and shown second
    'a'
"""

from judgekit.pairwise.flip import DimensionOutcome, combine, to_side
from judgekit.pairwise.options import PairwiseOptions
from judgekit.pairwise.pairs import GOLD, plan_pairs, same_change
from judgekit.pairwise.models import PairwiseStepSummary
from judgekit.pairwise.records import DimensionRecord, OrderRecord, PairRecord
from judgekit.pairwise.result import PairwiseResult
from judgekit.pairwise.step import run_pairwise
from judgekit.pairwise.stats import bradley_terry
from judgekit.pairwise.verdict import DIMENSIONS, OrderVerdict, verdict_schema

__all__ = [
    "DIMENSIONS", "GOLD", "DimensionOutcome", "DimensionRecord", "OrderRecord", "OrderVerdict",
    "PairRecord", "PairwiseOptions", "PairwiseResult", "PairwiseStepSummary", "bradley_terry",
    "combine", "plan_pairs", "run_pairwise", "same_change", "to_side", "verdict_schema",
]
