"""RelayElicitation in real MCP hosts: the mcp SDK's ClientSession (and its Client), FastMCP's
Client and a pydantic-ai agent call tools on a real Python MCP server (elicit_server.py over
stdio) whose tools elicit; each request reaches the real relay, a person answers over the people's
API, and the tool's own result says what it received. On both revisions the SDK speaks: 2025-11-25
(elicitation/create) and 2026-07-28 (input_required rounds)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeAlias

import anyio
import fastmcp
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.test import TestModel

from conftest import REPO_ROOT, Person, Relay, server_command
from koder_elicitation_relay import RelayElicitation, RelayError

pytestmark = pytest.mark.anyio

BOOKING = {"name": "Ada Lovelace", "seats": 3, "outdoor": True}
REVISIONS = [("legacy", "2025-11-25"), ("auto", "2026-07-28")]


Server: TypeAlias = tuple[str, list[str]]
"""How to start an MCP server over stdio: a command and its arguments."""


def stdio_server(server: Server) -> StdioServerParameters:
    command, args = server
    return StdioServerParameters(command=command, args=args)


class Host:
    """One MCP client on the test server, whichever library it is: `call` runs a tool (with
    its arguments, if any) and returns its text, `revision` is the protocol it speaks."""

    def __init__(self, call: Callable[..., Awaitable[str]], revision: Callable[[], str | None]) -> None:
        self.call = call
        self.revision = revision


@asynccontextmanager
async def sdk_session(relay: RelayElicitation, server: Server | None = None) -> AsyncIterator[Host]:
    """The SDK's ClientSession itself, on the initialize handshake (2025-11-25)."""
    async with (
        stdio_client(stdio_server(server or server_command())) as (read, write),
        ClientSession(
            read, write, elicitation_callback=relay, message_handler=relay.message_handler
        ) as session,
    ):
        await session.initialize()

        async def call(name: str, arguments: dict[str, Any] | None = None) -> str:
            return text_of(await session.call_tool(name, arguments or {}))

        yield Host(call, lambda: session.protocol_version)


@asynccontextmanager
async def sdk_client(relay: RelayElicitation, mode: str, server: Server | None = None) -> AsyncIterator[Host]:
    """The SDK's Client (a ClientSession that drives 2026-07-28's input_required rounds)."""
    async with Client(
        stdio_server(server or server_command()),
        mode=mode,
        elicitation_callback=relay,
        message_handler=relay.message_handler,
    ) as client:

        async def call(name: str, arguments: dict[str, Any] | None = None) -> str:
            return text_of(await client.call_tool(name, arguments or {}))

        yield Host(call, lambda: client.session.protocol_version)


@asynccontextmanager
async def fastmcp_client(
    relay: RelayElicitation, mode: str, server: Server | None = None
) -> AsyncIterator[Host]:
    """FastMCP's Client, with `relay.fastmcp` as its elicitation_handler."""
    command, args = server or server_command()
    transport = fastmcp.client.transports.StdioTransport(command=command, args=args)
    async with fastmcp.Client(
        transport, mode=mode, elicitation_handler=relay.fastmcp, message_handler=relay.message_handler
    ) as client:

        async def call(name: str, arguments: dict[str, Any] | None = None) -> str:
            return text_of(await client.call_tool_mcp(name, arguments or {}))

        yield Host(call, lambda: client.session.protocol_version)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


HostFactory = Callable[[RelayElicitation], AbstractAsyncContextManager[Host]]
HOSTS: list[tuple[str, str, HostFactory]] = [
    ("ClientSession", "2025-11-25", sdk_session),
    *[("mcp Client", revision, lambda r, m=mode: sdk_client(r, m)) for mode, revision in REVISIONS],
    *[("FastMCP Client", revision, lambda r, m=mode: fastmcp_client(r, m)) for mode, revision in REVISIONS],
]
HOST_IDS = [f"{name} {revision}" for name, revision, _ in HOSTS]


def relay_for(relay: Relay, person: Person, **options: Any) -> RelayElicitation:
    return RelayElicitation(relay.url, relay.service_token, scope=person.scope, **options)


@pytest.mark.parametrize(("name", "revision", "host"), HOSTS, ids=HOST_IDS)
async def test_the_tool_receives_exactly_what_the_person_answered(
    relay: Relay, person: Person, name: str, revision: str, host: HostFactory
) -> None:
    with anyio.fail_after(60):
        async with host(relay_for(relay, person)) as client:
            answers: list[str] = []

            async def call() -> None:
                answers.append(await client.call("book_table"))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call)
                [shown] = await person.wait_for_pending(1)
                assert shown["request"]["message"] == "Who is booking, and for how many?"
                assert shown["request"]["requestedSchema"]["required"] == ["name", "seats", "outdoor"]
                assert shown["serverName"] == "Table booking", "the server's title, from its info"
                assert shown["scope"] == person.scope
                status, body = await person.answer(shown["id"], {"action": "accept", "content": BOOKING})
                assert (status, body) == (
                    200,
                    {"status": "settled", "result": {"action": "accept", "content": BOOKING}},
                )
            assert client.revision() == revision
            assert answers == [f"{revision}: accept {json.dumps(BOOKING, sort_keys=True)}"]
        assert await person.pending() == [], "nothing left for the person"


@pytest.mark.parametrize(("name", "revision", "host"), HOSTS, ids=HOST_IDS)
async def test_cancelling_the_tool_call_withdraws_the_elicitation(
    relay: Relay, person: Person, name: str, revision: str, host: HostFactory
) -> None:
    with anyio.fail_after(60):
        async with host(relay_for(relay, person)) as client:
            call = asyncio.ensure_future(client.call("book_table"))
            [shown] = await person.wait_for_pending(1)
            # The host gives up on the call: asyncio cancels the task that awaits it.
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            # The withdraw follows the cancel at once; the person's late answer is refused.
            with anyio.fail_after(10):
                while await person.pending():
                    await anyio.sleep(0.05)
            assert await person.status(shown["id"]) == "withdrawn"
            status, body = await person.answer(shown["id"], {"action": "accept", "content": BOOKING})
            assert status == 410, body
            assert body["error"]["status"] == 410


async def test_nobody_answers_in_time_and_the_tool_gets_cancel(relay: Relay, person: Person) -> None:
    with anyio.fail_after(60):
        async with sdk_client(relay_for(relay, person, timeout_ms=1000), "auto") as client:
            started = anyio.current_time()
            answer = await client.call("book_table")
            assert anyio.current_time() - started >= 0.9, "the relay waited for the person first"
            assert answer == "2026-07-28: cancel null"


@pytest.mark.parametrize(
    "host",
    [sdk_session, lambda r: fastmcp_client(r, "legacy")],
    ids=["ClientSession", "FastMCP Client"],
)
async def test_a_url_completion_reaches_the_relay(relay: Relay, person: Person, host: HostFactory) -> None:
    with anyio.fail_after(60):
        async with host(relay_for(relay, person)) as client:
            async with anyio.create_task_group() as tasks:
                answers: list[str] = []

                async def call() -> None:
                    answers.append(await client.call("sign_in"))

                tasks.start_soon(call)
                [shown] = await person.wait_for_pending(1)
                assert shown["request"]["mode"] == "url"
                assert shown["request"]["elicitationId"] == "sign-in-flow-1"
                assert (await person.answer(shown["id"], {"action": "accept"}))[0] == 200
            assert answers == ["sign_in: accept"]
            # The server's notifications/elicitation/complete, passed on by relay.message_handler.
            with anyio.fail_after(10):
                while await person.status(shown["id"]) != "complete":
                    await anyio.sleep(0.05)


async def test_a_relay_error_reaches_the_2026_host_as_a_relay_error(relay: Relay, person: Person) -> None:
    refusing = RelayElicitation(relay.url, "not-the-service-token", scope=person.scope)
    with anyio.fail_after(60):
        async with sdk_client(refusing, "auto") as client:
            # On 2026-07-28 the callback runs inside the host's own call_tool.
            with pytest.raises(BaseException) as failed:  # noqa: PT011 (the group is what comes)
                await client.call("book_table")
    [error] = leaves(failed.value)
    assert isinstance(error, RelayError), repr(failed.value)
    assert error.status == 401
    assert str(error) == f"koder-elicitation-relay answered 401: {error.message}"


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions in an exception group (and in the groups inside it), or the error itself."""
    inner: tuple[BaseException, ...] = getattr(error, "exceptions", ())
    return [leaf for member in inner for leaf in leaves(member)] if inner else [error]


# pydantic-ai 2.68 warns that a 2026-07-28 session never calls the handler; its input_required
# rounds do call it, as this test shows.
@pytest.mark.filterwarnings("ignore:`elicitation_handler` will never be called")
@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
async def test_a_pydantic_ai_agent_asks_through_the_relay(
    relay: Relay, person: Person, revision: str
) -> None:
    handler = relay_for(relay, person)
    command, args = server_command()
    transport = fastmcp.client.transports.StdioTransport(command=command, args=args)
    if revision == "2026-07-28":
        # As the README shows it: the toolset builds FastMCP's Client, which negotiates 2026-07-28.
        # (A longer init_timeout than its 5 s: the server's start is slow on a busy machine.)
        toolset = MCPToolset(transport, elicitation_handler=handler.fastmcp, init_timeout=30)
    else:
        toolset = MCPToolset(fastmcp.Client(transport, mode="legacy", elicitation_handler=handler.fastmcp))
    # A model that calls the tool without an LLM.
    agent = Agent(TestModel(call_tools=["book_table"]), toolsets=[toolset])
    with anyio.fail_after(60):
        answers: list[str] = []

        async def run() -> None:
            answers.append((await agent.run("Book a table")).output)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run)
            [shown] = await person.wait_for_pending(1)
            assert (await person.answer(shown["id"], {"action": "accept", "content": BOOKING}))[0] == 200
    assert json.loads(answers[0]) == {
        "book_table": f"{revision}: accept {json.dumps(BOOKING, sort_keys=True)}"
    }


def approval_server() -> Server:
    """The SDK v2 peer with the same `run_command` tool (tests/peers/approval-server.mjs): on
    2026-07-28 it sends the request's `_meta` inside the round, which the Python server does not."""
    return "node", [str(REPO_ROOT / "tests" / "peers" / "approval-server.mjs")]


# Each host on each revision, on a server whose request carries `_meta` on that revision.
REMEMBER_HOSTS: list[tuple[str, str, HostFactory]] = [
    ("ClientSession", "2025-11-25", sdk_session),
    ("mcp Client", "2025-11-25", lambda r: sdk_client(r, "legacy")),
    ("FastMCP Client", "2025-11-25", lambda r: fastmcp_client(r, "legacy")),
    ("mcp Client", "2026-07-28", lambda r: sdk_client(r, "auto", approval_server())),
    ("FastMCP Client", "2026-07-28", lambda r: fastmcp_client(r, "auto", approval_server())),
]
REMEMBER_IDS = [f"{name} {revision}" for name, revision, _ in REMEMBER_HOSTS]


async def call_and_answer(
    client: Host,
    person: Person,
    arguments: dict[str, Any],
    answer: Callable[[dict[str, Any]], Awaitable[None]],
) -> str:
    """Runs `run_command` with `arguments` while `answer(shown)` answers the one question it asks;
    the tool's text."""
    texts: list[str] = []

    async def call() -> None:
        texts.append(await client.call("run_command", arguments))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(call)
        [shown] = await person.wait_for_pending(1)
        await answer(shown)
    return texts[0]


@pytest.mark.parametrize(("name", "revision", "host"), REMEMBER_HOSTS, ids=REMEMBER_IDS)
async def test_remember_the_persons_meta_persist_reaches_the_server(
    relay: Relay, person: Person, name: str, revision: str, host: HostFactory
) -> None:
    remembered = {"action": "accept", "content": {}, "_meta": {"persist": "session"}}

    async def answer(shown: dict[str, Any]) -> None:
        assert shown["request"]["message"] == "Run `cargo test`?"
        # The person's view carries the request's `_meta`: what "remember" is offered from.
        assert shown["request"]["_meta"]["persist"] == ["session", "always"]
        assert shown["request"]["_meta"]["codex_approval_kind"] == "exec"
        # The person's page posts the element's result as it is.
        assert await person.answer(shown["id"], remembered) == (
            200,
            {"status": "settled", "result": remembered},
        )

    with anyio.fail_after(60):
        async with host(relay_for(relay, person)) as client:
            command = {"command": "cargo test"}
            text = await call_and_answer(client, person, command, answer)
            assert (
                text
                == f"Ran `cargo test`; _meta.persist: session, remembered.\nProtocol revision: {revision}."
            )
            # The server remembered: the next call runs without asking the person.
            assert await client.call("run_command", command) == (
                f"Ran `cargo test` without asking: remembered (session).\nProtocol revision: {revision}."
            )
            assert await person.pending() == []


@pytest.mark.parametrize(("name", "revision", "host"), REMEMBER_HOSTS, ids=REMEMBER_IDS)
async def test_a_one_time_accept_has_no_persist_and_a_scope_not_offered_is_refused(
    relay: Relay, person: Person, name: str, revision: str, host: HostFactory
) -> None:
    async def answer(shown: dict[str, Any]) -> None:
        assert shown["request"]["_meta"]["persist"] == ["session"]
        always = {"action": "accept", "content": {}, "_meta": {"persist": "always"}}
        assert await person.answer(shown["id"], always) == (
            400,
            {
                "error": {
                    "status": 400,
                    "message": '_meta.persist "always" was not offered by the request',
                    "jsonrpcCode": -32602,
                }
            },
        )
        assert await person.status(shown["id"]) == "pending", "the refused answer settled nothing"
        assert (await person.answer(shown["id"], {"action": "accept", "content": {}}))[0] == 200

    async def decline(shown: dict[str, Any]) -> None:
        assert (await person.answer(shown["id"], {"action": "decline"}))[0] == 200

    with anyio.fail_after(60):
        async with host(relay_for(relay, person)) as client:
            command = {"command": "make clean", "offer": ["session"]}
            text = await call_and_answer(client, person, command, answer)
            assert text == f"Ran `make clean` this time only; _meta: null.\nProtocol revision: {revision}."
            # Not remembered: the next call asks again.
            text = await call_and_answer(client, person, command, decline)
            assert text == f"Not run: the person chose decline.\nProtocol revision: {revision}."
