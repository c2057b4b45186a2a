"""A value an agent already masked is no secret: kept as it is and not counted."""

from __future__ import annotations

from judgekit.secretscan import REDACTED, SecretScrubber


def test_a_masked_value_is_neither_replaced_nor_counted() -> None:
    scrubber = SecretScrubber()
    data = {"agent": {"model": {"api_key": "**********", "name": "gpt-4o-mini"}}}
    assert scrubber.data(data) == data
    assert scrubber.text('api_key: "**********" and API_KEY=********') == \
        'api_key: "**********" and API_KEY=********'
    assert scrubber.count == 0


def test_a_real_value_beside_a_masked_one_is_still_replaced() -> None:
    scrubber = SecretScrubber()
    out = scrubber.data({"api_key": "local-123456", "token": "*****"})
    assert out == {"api_key": REDACTED, "token": "*****"} and scrubber.count == 1
