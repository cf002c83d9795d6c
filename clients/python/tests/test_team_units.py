"""Asking a team, on its own: what the hosts send for ``audience``, ``notify`` and ``escalate``
(each a value or a function of the request), what they refuse, and the ``answered_by`` they hand
back. A recording transport answers as the relay does; the real relay is in test_team.py."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest
from mcp import types

from koder_elicitation_relay import (
    Created,
    EscalationStage,
    Notify,
    Outcome,
    PersonAnswer,
    RelayClient,
    RelayElicitation,
    Scope,
)

QUESTION: dict[str, Any] = {
    "message": "Deploy to production?",
    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
}
ANSWERED_BY: PersonAnswer = {"userId": "u_ana", "name": "Ana Lima"}
SETTLED = {
    "status": "settled",
    "result": {"action": "accept", "content": {"ok": True}},
    "answeredBy": ANSWERED_BY,
    "escalated": 1,
}
TEAM_SCOPE: Scope = {"workspaceId": "w_1", "conversationId": "c_1"}


class RecordingRelay:
    """An HTTP transport that records each call (``calls``: method, path, JSON body) and answers
    as the relay does: a create with an id, a long-poll with ``outcome``."""

    def __init__(self, outcome: dict[str, Any] | None = None) -> None:
        self.outcome = SETTLED if outcome is None else outcome
        self.calls: list[tuple[str, str, Any]] = []
        self.http = httpx2.AsyncClient(transport=httpx2.MockTransport(self._answer))

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content) if request.content else None
        self.calls.append((request.method, request.url.path, body))
        if request.method == "POST":
            return httpx2.Response(201, json={"id": "e_1", "expiresAt": int(time.time() * 1000) + 60_000})
        return httpx2.Response(200, json=self.outcome)

    @property
    def create_body(self) -> Any:
        creates = [body for method, path, body in self.calls if path == "/v1/elicitations"]
        assert len(creates) == 1, self.calls
        return creates[0]


def elicit_params() -> types.ElicitRequestFormParams:
    return types.ElicitRequestFormParams.model_validate(QUESTION)


@pytest.mark.anyio
async def test_a_team_question_sends_the_workspace_the_audience_notify_and_escalate() -> None:
    relay = RecordingRelay()
    notify: Notify = {"email": ["ana@example.com", "bo@example.com"], "language": "pt-BR"}
    notify["remindAfter"] = "10m"
    escalate: list[EscalationStage] = [
        {"after": "30m", "audience": {"users": ["u_lead"]}, "notify": {"email": "lead@example.com"}}
    ]
    async with RelayClient("http://relay.test", "token", http_client=relay.http) as client:
        await client.create(
            TEAM_SCOPE, QUESTION, audience={"groups": ["oncall"]}, notify=notify, escalate=escalate
        )
    assert relay.create_body == {
        "scope": TEAM_SCOPE,
        "audience": {"groups": ["oncall"]},
        "request": QUESTION,
        "notify": notify,
        "escalate": escalate,
    }


@pytest.mark.anyio
async def test_functions_of_the_request_get_the_params_and_context_and_their_values_are_sent() -> None:
    relay = RecordingRelay()
    seen: list[tuple[str, Any, Any]] = []

    def remember(name: str, value: Any) -> Any:
        async def function(params: Any, context: Any) -> Any:
            seen.append((name, params, context))
            return value

        return function

    handler = RelayElicitation(
        "http://relay.test",
        "token",
        scope=remember("scope", {"workspaceId": "w_1"}),
        audience=remember("audience", {"users": ["u_ana"], "groups": ["finance"]}),
        notify=remember("notify", {"email": "finance@example.com"}),
        escalate=remember("escalate", [{"after": "1h", "audience": {"groups": ["cfo"]}}]),
        http_client=relay.http,
    )
    params, context = elicit_params(), SimpleNamespace(session=None)
    await handler(context, params)
    assert [name for name, _, _ in seen] == ["scope", "audience", "notify", "escalate"]
    assert all(got_params is params and got_context is context for _, got_params, got_context in seen)
    body = relay.create_body
    assert (body["scope"], body["audience"], body["notify"], body["escalate"]) == (
        {"workspaceId": "w_1"},
        {"users": ["u_ana"], "groups": ["finance"]},
        {"email": "finance@example.com"},
        [{"after": "1h", "audience": {"groups": ["cfo"]}}],
    )


@pytest.mark.anyio
async def test_an_audience_function_returning_none_asks_the_scopes_person() -> None:
    relay = RecordingRelay()
    handler = RelayElicitation(
        "http://relay.test",
        "token",
        scope={"userId": "u_1", "workspaceId": "w_1"},
        audience=lambda params, context: None,
        http_client=relay.http,
    )
    await handler(SimpleNamespace(session=None), elicit_params())
    assert relay.create_body == {
        "scope": {"userId": "u_1", "workspaceId": "w_1"},
        "request": {"mode": "form", **QUESTION},
    }


@pytest.mark.anyio
async def test_on_settled_hears_who_answered_and_the_server_gets_the_result_alone() -> None:
    relay = RecordingRelay()
    settled: list[tuple[Created, Outcome]] = []
    handler = RelayElicitation(
        "http://relay.test",
        "token",
        scope=TEAM_SCOPE,
        audience={"groups": ["oncall"]},
        on_settled=lambda created, outcome: settled.append((created, outcome)),
        http_client=relay.http,
    )
    result = await handler(SimpleNamespace(session=None), elicit_params())
    assert isinstance(result, types.ElicitResult)
    assert result.model_dump(by_alias=True, exclude_none=True) == SETTLED["result"]
    [(created, outcome)] = settled
    assert created.id == "e_1"
    assert outcome == Outcome("settled", {"action": "accept", "content": {"ok": True}}, ANSWERED_BY, 1)

    # The host API's own calls say it too; an expired one has nobody.
    async with RelayClient("http://relay.test", "token", http_client=relay.http) as client:
        assert (await client.result("e_1")).answered_by == ANSWERED_BY
        assert (await client.wait_outcome("e_1")).answered_by == ANSWERED_BY
    expired = RecordingRelay({"status": "expired", "result": {"action": "cancel"}})
    async with RelayClient("http://relay.test", "token", http_client=expired.http) as client:
        assert await client.wait_outcome("e_1") == Outcome("expired", {"action": "cancel"})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"scope": {"userId": "u_1", "workspaceId": "w_1"}}, r"name one person .* or a team .*, not both"),
        ({"audience": None}, r"name one person .* or a team .*, neither was given"),
        ({"audience": {"users": [], "groups": []}}, r"`audience` must be \{\"users\"\?, \"groups\"\?\}"),
        ({"audience": {"groups": "oncall"}}, "`audience` must be"),
        ({"audience": {"users": [""]}}, "`audience` must be"),
        ({"notify": {"email": ["ana@example.com", ""]}}, r"`notify` must be \{\"email\", "),
        ({"notify": {"language": "pt-BR"}}, "`notify` must be"),
        ({"notify": {"remindAfter": "10m"}}, "`notify` must be"),
        ({"escalate": {"after": "1h"}}, r"`escalate` must be \[\{\"after\", \"audience\""),
        ({"escalate": [{"after": "1h", "notify": {"email": "lead@example.com"}}]}, "`escalate` must be"),
        ({"escalate": [{"audience": {"users": ["u_lead"]}}]}, "`escalate` must be"),
        ({"scope": {"userId": "", "workspaceId": "w_1"}}, "`scope` must be"),
    ],
)
def test_a_wrong_audience_notify_or_escalate_is_refused_naming_it(
    change: dict[str, Any], message: str
) -> None:
    options: dict[str, Any] = {"scope": TEAM_SCOPE, "audience": {"groups": ["oncall"]}, **change}
    with pytest.raises(TypeError, match=f"^RelayElicitation: {message}"):
        RelayElicitation("http://relay.test", "token", **options)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"audience": lambda params, context: {"groups": []}}, "the `audience` function must return"),
        ({"audience": lambda params, context: None}, "neither was given"),
        ({"scope": lambda params, context: {"userId": "u_1", "workspaceId": "w_1"}}, "not both"),
        ({"notify": lambda params, context: {"email": 42}}, "the `notify` function must return"),
        ({"escalate": lambda params, context: [{"after": ""}]}, "the `escalate` function must return"),
    ],
)
async def test_a_function_returning_what_the_relay_does_not_take_is_refused_before_the_create(
    change: dict[str, Any], message: str
) -> None:
    relay = RecordingRelay()
    options: dict[str, Any] = {"scope": TEAM_SCOPE, "audience": {"groups": ["oncall"]}, **change}
    handler = RelayElicitation("http://relay.test", "token", http_client=relay.http, **options)
    with pytest.raises(TypeError, match=message):
        await handler(SimpleNamespace(session=None), elicit_params())
    assert relay.calls == []


@pytest.mark.anyio
async def test_relay_client_calls_its_functions_with_the_request_once() -> None:
    relay = RecordingRelay()
    seen: list[Any] = []

    def audience(request: Any) -> Any:
        seen.append(request)
        return {"users": ["u_ana"]}

    escalate: list[EscalationStage] = [{"after": "5m", "audience": {"users": ["u_lead"]}}]
    async with RelayClient("http://relay.test", "token", http_client=relay.http) as client:
        await client.elicit(TEAM_SCOPE, QUESTION, audience=audience, escalate=escalate)
    assert seen == [QUESTION]
    assert relay.create_body == {
        "scope": TEAM_SCOPE,
        "audience": {"users": ["u_ana"]},
        "request": QUESTION,
        "escalate": escalate,
    }
