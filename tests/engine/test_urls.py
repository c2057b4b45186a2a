"""Judge server URLs: redacted where shown or stored, joined with their query kept."""

from __future__ import annotations

import pytest

from judgekit.engine.redact import redact, redact_data, register_url
from judgekit.engine.urls import for_client, join_url, redact_url, url_secrets


@pytest.mark.parametrize(("url", "shown"), [
    ("http://user:pw1234@host:8080/v1", "http://[redacted]@host:8080/v1"),
    ("https://host/v1?api-key=s1&region=eu", "https://host/v1?api-key=[redacted]&region=eu"),
    ("http://host/v1?key=a&token=b&sig=c&access_token=d&x-goog-signature=e",
     "http://host/v1?key=[redacted]&token=[redacted]&sig=[redacted]&access_token=[redacted]"
     "&x-goog-signature=[redacted]"),
    ("http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1"),
    ("http://[::1]:9/v1?code=1", "http://[::1]:9/v1?code=1"),
])
def test_a_url_is_shown_without_its_secrets(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert redact_url(shown) == shown  # a redacted URL stays as it is


def test_the_secrets_of_a_url_are_listed_as_written_and_decoded() -> None:
    assert url_secrets("http://me:p%40ss@host/v1?api-key=k%2B1&n=2") == [
        "p%40ss", "p@ss", "k%2B1", "k+1"]
    assert url_secrets("http://host/v1") == []


def test_a_path_is_joined_onto_the_path_and_the_query_kept() -> None:
    assert join_url("http://h:1/v1?api-key=X", "/props") == "http://h:1/v1/props?api-key=X"
    assert join_url("http://h:1/v1/", "models") == "http://h:1/v1/models"
    assert join_url("http://u:p@h", "/tokenize") == "http://u:p@h/tokenize"


def test_a_client_gets_the_bare_url_its_query_and_basic_auth() -> None:
    parted = for_client("http://me:pw@host/v1?api-key=k1")
    assert parted.base_url == "http://host/v1"
    assert parted.query == {"api-key": "k1"}
    assert parted.headers == {"Authorization": "Basic bWU6cHc="}


def test_registered_url_secrets_are_redacted_from_answers() -> None:
    register_url("http://me:pass-7731@host/v1?token=tok-5519")
    answer = {"reason": "I saw pass-7731 and tok-5519", "items": ["tok-5519"], "n": 3}
    assert redact_data(answer) == {"reason": "I saw [redacted] and [redacted]",
                                   "items": ["[redacted]"], "n": 3}
    assert "tok-5519" not in redact("error at http://host/v1?token=tok-5519")


def test_an_answer_keeps_its_prose_about_keys() -> None:
    answer = {"reason": "send the Bearer authorization header; keys start with sk-abcdefgh"}
    assert redact_data(answer) == answer
