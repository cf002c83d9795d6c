"""RelayElicitation asking a team, end to end: the mcp SDK's Client calls a tool on a real Python MCP
server (elicit_server.py over stdio), its elicitation goes through the real relay to a group, a
member answers with their JWT (``groups`` and ``name`` claims), the tool receives the content and
the host hears who answered."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.client import Client

from conftest import Person, Relay, server_command
from koder_elicitation_relay import Audience, Created, Outcome, RelayClient, RelayElicitation, Scope
from test_mcp_hosts import BOOKING, REVISIONS, stdio_server, text_of

pytestmark = pytest.mark.anyio

WORKSPACE = "w_py_team"
TEAM_SCOPE: Scope = {"workspaceId": WORKSPACE}


def member(relay: Relay, user_id: str, **claims: Any) -> Person:
    """Someone in the workspace whose token carries ``claims`` (``groups``, ``name``)."""
    return Person(relay, {"userId": user_id, "workspaceId": WORKSPACE}, claims)


async def book_table(handler: RelayElicitation, mode: str) -> str:
    async with Client(stdio_server(server_command()), mode=mode, elicitation_callback=handler) as client:
        return text_of(await client.call_tool("book_table", {}))


@pytest.mark.parametrize(("mode", "revision"), REVISIONS)
async def test_a_member_of_the_group_answers_and_the_host_hears_who(
    relay: Relay, mode: str, revision: str
) -> None:
    group = f"oncall-{mode}"
    ana = member(relay, f"u_ana_{mode}", groups=[group], name="Ana Lima")
    bo = member(relay, f"u_bo_{mode}", groups=group, name="Bo Chen")  # one string is one group
    outsider = member(relay, f"u_out_{mode}", groups=["finance"])
    settled: list[tuple[Created, Outcome]] = []
    handler = RelayElicitation(
        relay.url,
        relay.service_token,
        scope=TEAM_SCOPE,
        audience={"groups": [group]},
        on_settled=lambda created, outcome: settled.append((created, outcome)),
    )
    answers: list[str] = []
    with anyio.fail_after(60):
        async with anyio.create_task_group() as tasks:

            async def call() -> None:
                answers.append(await book_table(handler, mode))

            tasks.start_soon(call)
            [shown] = await ana.wait_for_pending(1)
            assert [view["id"] for view in await bo.pending()] == [shown["id"]], "Bo sees it too"
            assert await outsider.pending() == [], "someone outside the group sees nothing"
            status, _ = await ana.answer(shown["id"], {"action": "accept", "content": BOOKING})
            assert status == 200
            status, _ = await bo.answer(shown["id"], {"action": "accept", "content": BOOKING})
            assert status == 409, "the first answer settled it"
    assert answers == [f"{revision}: accept {json.dumps(BOOKING, sort_keys=True)}"]
    [(created, outcome)] = settled
    assert created.id == shown["id"]
    assert outcome.status == "settled"
    assert outcome.result == {"action": "accept", "content": BOOKING}
    assert outcome.answered_by == {"userId": f"u_ana_{mode}", "name": "Ana Lima"}
    await handler.aclose()


async def test_a_function_valued_audience_gets_the_request(relay: Relay) -> None:
    cy = member(relay, "u_cy", name="Cy Diaz")
    asked: list[Any] = []

    def audience(params: Any, context: Any) -> Audience:
        asked.append(params)
        return {"users": ["u_cy"]}

    settled: list[Outcome] = []
    handler = RelayElicitation(
        relay.url,
        relay.service_token,
        scope=TEAM_SCOPE,
        audience=audience,
        on_settled=lambda created, outcome: settled.append(outcome),
    )
    answers: list[str] = []
    with anyio.fail_after(60):
        async with anyio.create_task_group() as tasks:

            async def call() -> None:
                answers.append(await book_table(handler, "legacy"))

            tasks.start_soon(call)
            [shown] = await cy.wait_for_pending(1)
            assert (await cy.answer(shown["id"], {"action": "decline"}))[0] == 200
    assert answers == ["2025-11-25: decline null"]
    assert [params.message for params in asked] == ["Who is booking, and for how many?"]
    assert [outcome.answered_by for outcome in settled] == [{"userId": "u_cy", "name": "Cy Diaz"}]

    # RelayClient.create takes the audience too, and result() says who answered.
    async with handler.client as client:
        created = await client.create(TEAM_SCOPE, shown["request"], audience={"users": ["u_cy"]})
        [again] = await cy.wait_for_pending(1)
        assert again["id"] == created.id
        assert (await cy.answer(created.id, {"action": "accept", "content": BOOKING}))[0] == 200
        outcome = await client.result(created.id)
        assert (outcome.status, outcome.answered_by) == ("settled", {"userId": "u_cy", "name": "Cy Diaz"})


async def test_an_answer_through_a_link_is_answered_by_that_link(page_relay: Relay) -> None:
    tokens: list[str] = []
    settled: list[Outcome] = []
    async with RelayClient(page_relay.url, page_relay.service_token) as client:

        async def post_a_link(created: Created) -> None:
            tokens.append((await client.link(created.id)).url.split("#t=", 1)[1])

        async def answer_through_the_link() -> None:
            with anyio.fail_after(20):
                while not tokens:
                    await anyio.sleep(0.05)
            async with httpx2.AsyncClient() as http:
                body = {"token": tokens[0], "result": {"action": "accept", "content": {"ok": True}}}
                answered = await http.post(f"{page_relay.url}/v1/links/answer", json=body)
            assert answered.status_code == 200, answered.text

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_through_the_link)
                result = await client.elicit(
                    TEAM_SCOPE,
                    {"message": "Proceed?", "requestedSchema": {"type": "object", "properties": {}}},
                    audience={"groups": ["oncall"]},
                    on_created=post_a_link,
                    on_settled=lambda created, outcome: settled.append(outcome),
                )
    assert result == {"action": "accept", "content": {"ok": True}}
    [outcome] = settled
    assert outcome.answered_by is not None
    assert list(outcome.answered_by) == ["link"], "a link, and no address: the relay mailed none"
