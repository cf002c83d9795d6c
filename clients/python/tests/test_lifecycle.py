"""A host's life with the package: one pooled HTTP client behind `async with`, the new
elicitation's id handed to `on_created` (sync or async) to make a link and post it, the errors a
program reads (no isolation marks; a typed error for a 2xx that is not the relay's API)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any, cast

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from conftest import LosingProxy, Person, Relay, new_person
from koder_elicitation_relay import Created, MalformedAnswerError, RelayClient, RelayElicitation, RelayError

pytestmark = pytest.mark.anyio

QUESTION = types.ElicitRequestFormParams(
    message="Proceed?",
    requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
)
NO_SESSION = cast(ClientRequestContext, SimpleNamespace(session=None))
ISOLATION_MARKS = "\u2066\u2067\u2068\u2069"


async def test_one_pooled_connection_serves_every_call_until_the_client_is_closed(
    relay: Relay, person: Person
) -> None:
    request: dict[str, Any] = QUESTION.model_dump(by_alias=True, exclude_none=True)
    with anyio.fail_after(30):
        async with LosingProxy(relay.url) as proxy:
            async with RelayClient(proxy.url, relay.service_token) as client:
                created = await client.create(person.scope, request)
                assert (await client.result(created.id, wait=0)).status == "pending"
                await client.withdraw(created.id)
                assert proxy.connections == 1, "three calls, one connection"
            # Closed with the `async with`; a later call opens a new pool.
            again = await client.create(person.scope, request)
            await client.withdraw(again.id)
            await client.aclose()
            assert proxy.connections == 2


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_on_created_gets_the_id_to_make_a_link_that_answers(page_relay: Relay, kind: str) -> None:
    person = new_person(page_relay)
    links: list[str] = []
    ids: list[str] = []

    def remember(created: Created) -> None:
        ids.append(created.id)

    async def post_a_link(created: Created) -> None:
        ids.append(created.id)
        # What a chat bot does: make a link and post it to the conversation.
        links.append((await handler.client.link(created.id)).url)

    on_created = remember if kind == "sync" else post_a_link
    async with RelayElicitation(
        page_relay.url, page_relay.service_token, scope=person.scope, on_created=on_created
    ) as handler:
        with anyio.fail_after(30):
            answer = asyncio.ensure_future(handler(NO_SESSION, QUESTION))
            [shown] = await person.wait_for_pending(1)
            assert ids == [shown["id"]], "called with the new elicitation's id"
            if kind == "sync":
                links.append((await handler.client.link(shown["id"])).url)
            token = links[0].split("#t=", 1)[1]
            async with httpx2.AsyncClient() as http:
                body = {"token": token, "result": {"action": "accept", "content": {"ok": True}}}
                answered = await http.post(f"{page_relay.url}/v1/links/answer", json=body)
            assert answered.status_code == 200, answered.text
            result = await answer
    assert isinstance(result, types.ElicitResult)
    assert result.model_dump(exclude_none=True) == {"action": "accept", "content": {"ok": True}}


async def test_an_on_created_that_fails_withdraws_the_elicitation(relay: Relay, person: Person) -> None:
    async def fail(created: Created) -> None:
        raise RuntimeError(f"could not post {created.id}")

    async with RelayElicitation(
        relay.url, relay.service_token, scope=person.scope, on_created=fail
    ) as handler:
        with anyio.fail_after(30), pytest.raises(RuntimeError, match="could not post") as failed:
            await handler(NO_SESSION, QUESTION)
    elicitation_id = str(failed.value).rsplit(" ", 1)[1]
    assert await person.status(elicitation_id) == "withdrawn"


async def test_error_messages_programs_read_have_no_isolation_marks(page_relay: Relay) -> None:
    person = new_person(page_relay)
    async with RelayClient(page_relay.url, page_relay.service_token) as client:
        # A host API 4xx: the core refuses the request, naming what is wrong.
        with pytest.raises(RelayError) as refused:
            await client.create(
                person.scope,
                {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"n": {"type": 7}}}},
            )
        assert refused.value.status == 400
        assert not set(refused.value.message) & set(ISOLATION_MARKS), repr(refused.value.message)
        # A link's answer that breaks the schema: 422, one message per broken rule.
        created = await client.create(person.scope, QUESTION.model_dump(by_alias=True, exclude_none=True))
        token = (await client.link(created.id)).url.split("#t=", 1)[1]
        async with httpx2.AsyncClient() as http:
            body = {"token": token, "result": {"action": "accept", "content": {}}}
            answered = await http.post(f"{page_relay.url}/v1/links/answer", json=body)
        await client.withdraw(created.id)
    assert answered.status_code == 422, answered.text
    error = answered.json()["error"]
    assert [entry["message"] for entry in error["errors"]] == ["ok is required"]
    assert not set(answered.text) & set(ISOLATION_MARKS)


@asynccontextmanager
async def answering(status: int, body: bytes) -> AsyncIterator[str]:
    """Something at the relay's address that answers every request with `status` and `body`."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        head = f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()


@pytest.mark.parametrize("body", [b"<html>a login page</html>", b'{"id": 7}', b""])
async def test_a_2xx_that_is_not_the_relays_api_is_a_malformed_answer(person: Person, body: bytes) -> None:
    async with answering(200, body) as url, RelayClient(url, "service-token") as client:
        with anyio.fail_after(10), pytest.raises(MalformedAnswerError) as malformed:
            await client.create(person.scope, {"message": "Proceed?"})
    assert isinstance(malformed.value, RelayError)
    assert malformed.value.status == 200
    assert not malformed.value.transient, "not retried"
