"""The small pieces on their own: Retry-After, scopes, the error's words, ids in paths."""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import format_datetime

import pytest

from koder_elicitation_relay import RelayElicitation, RelayError
from koder_elicitation_relay.client import _elicitation_path, retry_after_seconds
from koder_elicitation_relay.errors import relay_error


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(" 120 ") == 120.0
    now = datetime(2026, 12, 2, 5, 0, 0, tzinfo=timezone.utc)
    later = format_datetime(datetime(2026, 12, 2, 5, 0, 7, tzinfo=timezone.utc), usegmt=True)
    assert retry_after_seconds(later, now=now.timestamp()) == 7.0
    earlier = format_datetime(datetime(2026, 12, 2, 4, 0, 0, tzinfo=timezone.utc), usegmt=True)
    assert retry_after_seconds(earlier, now=now.timestamp()) == 0.0
    for unreadable in [None, "", "soon", "-1", "1.5"]:
        assert retry_after_seconds(unreadable) is None, unreadable


def test_a_relay_error_keeps_the_relays_message_and_code() -> None:
    body = {"error": {"status": 400, "message": "requestedSchema must be an object", "jsonrpcCode": -32602}}
    error = relay_error(400, body, "Bad Request")
    assert (error.status, error.message, error.body, error.jsonrpc_code) == (
        400,
        "requestedSchema must be an object",
        body,
        -32602,
    )
    assert str(error) == "koder-elicitation-relay answered 400: requestedSchema must be an object"
    assert not error.transient
    bare = relay_error(502, None, "Bad Gateway")
    assert (bare.message, bare.jsonrpc_code, bare.transient) == ("Bad Gateway", None, True)
    assert relay_error(429, {"error": "busy"}, "Too Many Requests").transient
    assert RelayError(None, "connection refused").transient


def test_a_scope_must_name_a_person_and_a_workspace() -> None:
    for scope in [
        {},
        {"userId": "u"},
        {"userId": "", "workspaceId": "w"},
        {"userId": "u", "workspaceId": 7},
        {"userId": "u", "workspaceId": "w", "conversationId": 1},
        "u/w",
    ]:
        with pytest.raises(TypeError, match="scope"):
            RelayElicitation("http://127.0.0.1:8790", "token", scope=scope)  # type: ignore[arg-type]
    RelayElicitation("http://127.0.0.1:8790", "token", scope={"userId": "u", "workspaceId": "w"})
    RelayElicitation(
        "http://127.0.0.1:8790", "token", scope=lambda params, context: {"userId": "u", "workspaceId": "w"}
    )


def test_an_id_cannot_change_the_path() -> None:
    assert _elicitation_path("0123abcd") == "/v1/elicitations/0123abcd"
    assert _elicitation_path("../../v1/admin?x=1#y") == "/v1/elicitations/v1adminx1y"


def test_the_service_token_stays_out_of_repr() -> None:
    handler = RelayElicitation(
        "http://127.0.0.1:8790/", "secret-service-token", scope={"userId": "u", "workspaceId": "w"}
    )
    assert "secret-service-token" not in repr(handler)
    assert "http://127.0.0.1:8790" in repr(handler)
