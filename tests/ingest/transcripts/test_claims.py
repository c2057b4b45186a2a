"""Claims of success read as a person would: a message that reports failures or says the
work is not done is no claim, wherever the denial stands in it."""

from __future__ import annotations

import pytest

from judgekit.ingest.transcripts.claims import claims_success


@pytest.mark.parametrize("message", [
    "(`sh run_tests.sh`: 1 failed, 1 passed). The bug is not fixed yet.",
    "1 passed. The bug is not fixed yet.",
    "Tests: 3 passed, 2 failed.",
    "The fix is done, but test_add still fails.",
    "I implemented the change. Unfortunately the tests are failing.",
    "All tests pass except test_big, which fails with an AssertionError.",
    "Done. The issue is not resolved: the parser still crashes.",
    "The bug isn't fixed yet; 4 passed, 1 error.",
    "I was unable to fix it. 2 passed.",
])
def test_a_message_that_denies_success_anywhere_is_no_claim(message: str) -> None:
    assert claims_success(message) is False


@pytest.mark.parametrize("message", [
    "All tests pass now (2 passed, 0 failed).",
    "Fixed the failing test: test_add failed before the change and passes now. 3 passed.",
    "The bug is fixed. Nothing failed.",
    "I fixed the error handling so that a failed request is retried; 5 passed.",
])
def test_a_claim_that_mentions_failure_in_passing_is_still_a_claim(message: str) -> None:
    assert claims_success(message) is True
