"""What a host on a network needs: a create whose answer was lost makes one elicitation, the relay's
Retry-After is honoured, a long-poll outlives a relay restart, relay errors are typed, and the
plain calls for hosts that are not MCP clients (with an answer link, and e-mail the relay refuses
to send to an address it does not allow)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from conftest import LosingProxy, Person, Relay, new_person
from koder_elicitation_relay import RelayClient, RelayElicitation, RelayError

pytestmark = pytest.mark.anyio

QUESTION = types.ElicitRequestFormParams(
    message="Proceed?",
    requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
)
# No MCP session behind it: the callback then takes no server name from one.
NO_SESSION = cast(ClientRequestContext, SimpleNamespace(session=None))


async def test_a_create_retried_after_a_dropped_connection_makes_one_elicitation(
    relay: Relay, person: Person
) -> None:
    with anyio.fail_after(30):
        async with LosingProxy(relay.url, drop_creates=1) as proxy:
            handler = RelayElicitation(proxy.url, relay.service_token, scope=person.scope)
            answer = asyncio.ensure_future(handler(NO_SESSION, QUESTION))
            [shown] = await person.wait_for_pending(1)
            with anyio.fail_after(5):
                while len(proxy.creates) < 2:
                    await anyio.sleep(0.05)
            await anyio.sleep(0.3)
            assert len(proxy.creates) == 2, "the create was sent twice"
            assert len(await person.pending()) == 1, "and made one elicitation"
            assert (await person.answer(shown["id"], {"action": "accept", "content": {"ok": True}}))[0] == 200
            result = await answer
            assert isinstance(result, types.ElicitResult)
            assert result.model_dump(exclude_none=True) == {"action": "accept", "content": {"ok": True}}


async def test_the_relays_retry_after_is_honoured(relay: Relay, person: Person) -> None:
    with anyio.fail_after(30):
        async with LosingProxy(relay.url, busy_creates=1) as proxy:
            client = RelayClient(proxy.url, relay.service_token)
            created = await client.create(person.scope, QUESTION.model_dump(by_alias=True, exclude_none=True))
            first, second = proxy.creates
            # Without Retry-After: 1 the first retry would come after 0.2 s.
            assert second - first >= 1.0, f"retried after {second - first:.2f} s"
            outcome = await client.withdraw(created.id)
            assert (outcome.status, outcome.result) == ("withdrawn", {"action": "cancel"})


async def test_the_relay_restarted_during_the_long_poll_still_delivers_the_answer(own_relay: Relay) -> None:
    person = new_person(own_relay)
    with anyio.fail_after(60):
        handler = RelayElicitation(own_relay.url, own_relay.service_token, scope=person.scope)
        answer = asyncio.ensure_future(handler(NO_SESSION, QUESTION))
        [shown] = await person.wait_for_pending(1)
        await anyio.sleep(0.5)  # the host is in its long-poll now
        own_relay.kill()
        await anyio.sleep(1.0)  # its poll fails, and so do its retries, while the relay is down
        assert not answer.done()
        own_relay.restart()
        assert (await person.answer(shown["id"], {"action": "accept", "content": {"ok": True}}))[0] == 200
        result = await answer
        assert isinstance(result, types.ElicitResult)
        assert result.model_dump(exclude_none=True) == {"action": "accept", "content": {"ok": True}}


async def test_a_relay_error_is_a_relay_error_with_the_relays_status_and_message(
    relay: Relay, person: Person
) -> None:
    refusing = RelayElicitation(relay.url, "not-the-service-token", scope=person.scope)
    with pytest.raises(RelayError) as refused:
        await refusing(NO_SESSION, QUESTION)
    assert refused.value.status == 401
    assert refused.value.body["error"]["status"] == 401
    assert refused.value.message == refused.value.body["error"]["message"]
    assert str(refused.value) == f"koder-elicitation-relay answered 401: {refused.value.message}"


async def test_a_request_the_relay_refuses_is_the_sdks_invalid_params_error_data(
    relay: Relay, person: Person
) -> None:
    handler = RelayElicitation(relay.url, relay.service_token, scope=person.scope)
    refused = types.ElicitRequestFormParams(
        message="Your name?",
        requested_schema={"type": "object", "properties": {"name": {"type": "string", "minLength": -1}}},
    )
    with anyio.fail_after(10):
        invalid = await handler(NO_SESSION, refused)
    # Returned, not raised: the SDK sends it to the server as the answer's error.
    assert isinstance(invalid, types.ErrorData), invalid
    assert invalid.code == types.INVALID_PARAMS
    assert invalid.message.startswith("koder-elicitation-relay answered 400: "), invalid.message
    assert invalid.data["error"]["jsonrpcCode"] == types.INVALID_PARAMS
    assert await person.pending() == [], "nothing was created"


async def test_an_unreachable_relay_is_a_relay_error_without_a_status(person: Person) -> None:
    client = RelayClient("http://127.0.0.1:9", "service-token", retry_for=0.5)
    with pytest.raises(RelayError) as unreachable:
        await client.create(person.scope, {"message": "Proceed?"})
    assert unreachable.value.status is None
    assert str(unreachable.value).startswith("koder-elicitation-relay unreachable: ")


async def test_the_plain_calls_create_wait_and_withdraw(relay: Relay, person: Person) -> None:
    client = RelayClient(relay.url, relay.service_token)
    request: dict[str, Any] = QUESTION.model_dump(by_alias=True, exclude_none=True)
    with anyio.fail_after(30):
        created = await client.create(person.scope, request, server_name="Plain host", timeout_ms=60_000)
        again = await client.create(
            person.scope,
            request,
            server_name="Plain host",
            timeout_ms=60_000,
            idempotency_key=created.idempotency_key,
        )
        assert again.id == created.id, "the same key is the same elicitation"
        [shown] = await person.pending()
        assert (shown["id"], shown["serverName"]) == (created.id, "Plain host")
        assert (await client.result(created.id, wait=0)).status == "pending"
        waiting = asyncio.ensure_future(client.wait(created.id, expires_at=created.expires_at))
        await anyio.sleep(0.2)
        await person.answer(created.id, {"action": "decline"})
        assert await waiting == {"action": "decline"}

        second = await client.create(person.scope, request)
        outcome = await client.withdraw(second.id)
        assert (outcome.status, outcome.result) == ("withdrawn", {"action": "cancel"})
        assert await person.status(second.id) == "withdrawn"
        with pytest.raises(RelayError) as unknown:
            await client.withdraw("0123456789abcdef0123456789abcdef")
        assert unknown.value.status == 404


async def test_a_link_answers_its_one_elicitation_and_the_host_gets_that_answer(page_relay: Relay) -> None:
    client = RelayClient(page_relay.url, page_relay.service_token)
    scope = new_person(page_relay).scope
    request: dict[str, Any] = QUESTION.model_dump(by_alias=True, exclude_none=True)
    with anyio.fail_after(30):
        created = await client.create(scope, request, server_name="Nightly job")
        first = await client.link(created.id)
        second = await client.link(created.id)
        assert first.url != second.url, "a new link each call"
        for link in (first, second):
            assert link.url.startswith(f"{page_relay.url}/answer/#t=")
            assert link.expires_at == created.expires_at
        token = first.url.split("#t=", 1)[1]
        async with httpx2.AsyncClient() as http:
            shown = await http.post(f"{page_relay.url}/v1/links/view", json={"token": token})
            assert shown.status_code == 200, shown.text
            assert shown.json()["elicitation"]["serverName"] == "Nightly job"
            answer = {"action": "accept", "content": {"ok": True}}
            body = {"token": token, "result": answer}
            answered = await http.post(f"{page_relay.url}/v1/links/answer", json=body)
            assert answered.status_code == 200, answered.text
        assert await client.wait(created.id, expires_at=created.expires_at) == answer
        with pytest.raises(RelayError) as unknown:
            await client.link("0123456789abcdef0123456789abcdef")
        assert unknown.value.status == 404


async def test_an_address_the_relay_does_not_allow_is_refused_at_create(relay: Relay, person: Person) -> None:
    client = RelayClient(relay.url, relay.service_token)
    with pytest.raises(RelayError) as refused:
        await client.create(person.scope, {"message": "Proceed?"}, notify={"email": "ana@example.com"})
    assert refused.value.status == 422
    assert await person.pending() == [], "nothing was created"
