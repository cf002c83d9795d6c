"""`RelayElicitation`: an ``elicitation_callback`` for the mcp SDK's ``ClientSession`` (and, as
``.fastmcp``, an ``elicitation_handler`` for FastMCP's ``Client``) that asks the right person
through the relay.

It works with whichever ``mcp`` line is installed (1.24 and later: the frameworks pin different
ones): it builds its results from that line's own ``mcp.types``, reads requests by their wire
names, and touches no name only one line has."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import httpx2
from mcp import types
from pydantic import ValidationError

from .asking import AskedFor, Asking, Audience, EscalationStage, Notify, awaited
from .client import RETRY_FOR_SECONDS, ClosedOnExit, Created, OnCreated, OnSettled, RelayClient
from .errors import INVALID_PARAMS, MalformedAnswerError, RelayError
from .scope import Scope

ScopeFunction: TypeAlias = Callable[[Any, Any], "Scope | Awaitable[Scope]"]
"""A scope per request: called with the ``elicitation/create`` params and the SDK's context
(``context.session`` tells the sessions a host serves apart); may be async. ``audience``,
``notify`` and ``escalate`` take functions of the same two arguments (returning ``None``: none
for that request)."""

FastMCPElicitationHandler: TypeAlias = Callable[[str, Any, Any, Any], Awaitable[types.ElicitResult]]
"""FastMCP's ``elicitation_handler`` shape: ``(message, response_type, params, context)``."""


class RelayElicitation(ClosedOnExit):
    """Each ``elicitation/create`` the MCP client gets is posted to the relay for the person
    ``scope`` names, and the call waits (long-polling) until they answer in their browser, the
    relay expires it (``{"action": "cancel"}``), or the MCP request is cancelled: then the
    elicitation is withdrawn, so the person's dialog closes.

    For a team, ``scope`` names the workspace (no ``userId``) and ``audience`` who may answer
    (``{"users"?, "groups"?}``: any member; the first answer settles it); ``escalate`` (up to 3
    stages ``{"after", "audience"?, "notify"?}``) widens it when nobody answered in time.
    ``on_settled`` (sync or async) is called with each elicitation's :class:`Created` and its
    final :class:`Outcome`, whose ``answered_by`` says who answered (``{"userId", "name"?}`` or
    ``{"link", "email"?}``); the server gets the ElicitResult alone.

    The hook itself for ``ClientSession(..., elicitation_callback=relay)`` (both mcp lines), the
    mcp SDK's ``Client`` (2.x), strands' and mcp-use's ``MCPClient(..., elicitation_callback=relay)``
    and langchain-mcp-adapters' ``Callbacks(on_elicitation=relay)``; ``relay.fastmcp`` for
    FastMCP's ``Client(elicitation_handler=...)`` and pydantic-ai's ``MCPToolset``. For URL mode
    on 2025-11-25, pass ``message_handler=relay.message_handler`` too where the client takes one.

    ``server_name`` is shown in the person's dialog (default: the server's title, else its name);
    ``timeout_ms`` is how long they have (the relay's default: 5 minutes); ``notify`` is whom
    the relay e-mails the question's link and when it reminds (``{"email"?, "language"?,
    "remindAfter"?}``, ``email`` an address or a list; a relay with ``--smtp-url``, every address
    in one of its ``--email-allow-domain`` domains, or the relay refuses the create with 422).
    ``audience``, ``notify`` and ``escalate`` are each a value or a function of the request like
    ``scope``. ``on_created`` (sync or async) is called with
    each new elicitation's :class:`Created` (``await relay.client.link(created.id)`` makes a link
    to post to chat). ``retry_for`` (seconds, default 30) and ``http_client`` are
    :class:`RelayClient`'s; ``async with`` or :meth:`aclose` closes its pooled HTTP client.
    """

    def __init__(
        self,
        url: str,
        service_token: str,
        scope: Scope | ScopeFunction,
        *,
        audience: Audience | AskedFor[Audience] | None = None,
        server_name: str | None = None,
        timeout_ms: int | None = None,
        notify: Notify | AskedFor[Notify] | None = None,
        escalate: list[EscalationStage] | AskedFor[list[EscalationStage]] | None = None,
        on_created: OnCreated | None = None,
        on_settled: OnSettled | None = None,
        http_client: httpx2.AsyncClient | None = None,
        retry_for: float = RETRY_FOR_SECONDS,
    ) -> None:
        self._asking = Asking("RelayElicitation", scope, audience, notify, escalate)
        self.client = RelayClient(url, service_token, http_client=http_client, retry_for=retry_for)
        self._server_name = server_name
        self._timeout_ms = timeout_ms
        self._on_created = on_created
        self._on_settled = on_settled
        # URL-mode elicitationIds (the server's) to the relay's ids, while a completion may come.
        self._awaiting_completion: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"RelayElicitation({self.client!r})"

    async def aclose(self) -> None:
        """Closes the pooled HTTP client (:meth:`RelayClient.aclose`)."""
        await self.client.aclose()

    async def __call__(
        self, context: Any, params: Any, framework_context: Any = None
    ) -> types.ElicitResult | types.ErrorData:
        """The ``elicitation_callback``: the person's ElicitResult, of the installed mcp line's
        type. A request the relay's core refused comes back as the SDK's ``ErrorData`` with
        ``INVALID_PARAMS``, which the server receives; any other relay failure raises
        :class:`RelayError`. ``framework_context`` is langchain-mcp-adapters' third argument
        (unused)."""
        request: dict[str, Any] = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        url_id = request.get("elicitationId") if request.get("mode") == "url" else None

        async def created(new: Created) -> None:
            if isinstance(url_id, str) and url_id:
                self._awaiting_completion[url_id] = new.id
            if self._on_created is not None:
                await awaited(self._on_created(new))

        accepted = False
        try:
            asked = await self._asking.values(params, context)
            answer = await self.client.elicit(
                asked.scope,
                request,
                audience=asked.audience,
                server_name=self._server_name or _server_name(context),
                timeout_ms=self._timeout_ms,
                notify=asked.notify,
                escalate=asked.escalate,
                on_created=created,
                on_settled=self._on_settled,
            )
            result = types.ElicitResult.model_validate(answer)
            accepted = result.action == "accept"
            return result
        except RelayError as error:
            if error.jsonrpc_code == INVALID_PARAMS:
                return types.ErrorData(code=INVALID_PARAMS, message=str(error), data=error.body)
            raise
        except ValidationError as error:
            raise MalformedAnswerError(f"the relay's result is not an ElicitResult: {error}") from error
        finally:
            # Only an accepted URL elicitation waits for its completion.
            if isinstance(url_id, str) and not accepted:
                self._awaiting_completion.pop(url_id, None)

    @property
    def fastmcp(self) -> FastMCPElicitationHandler:
        """The same for FastMCP: ``fastmcp.Client(..., elicitation_handler=relay.fastmcp)`` (and
        pydantic-ai's ``MCPToolset(..., elicitation_handler=relay.fastmcp)``). FastMCP turns an
        exception into an internal error for the server, keeping its message."""

        async def handle(message: str, response_type: Any, params: Any, context: Any) -> types.ElicitResult:
            # FastMCP passes the SDK's context through as it is.
            answer = await self(context, params)
            if isinstance(answer, types.ErrorData):
                raise RelayError(400, answer.message, answer.data)
            return _fastmcp_result(answer)

        return handle

    async def complete(self, elicitation_id: str) -> None:
        """The server reported a URL-mode elicitation complete (``notifications/elicitation/
        complete``, MCP 2025-11-25): the relay is told, and the person's dialog stops waiting.
        Unknown ids are ignored, as the element does."""
        relay_id = self._awaiting_completion.pop(elicitation_id, None)
        if relay_id is not None:
            await self.client.complete(relay_id)

    async def message_handler(self, message: Any) -> None:
        """A ``message_handler`` for ``ClientSession`` / ``Client`` / FastMCP's ``Client`` that
        passes URL-mode completions on (:meth:`complete`) and ignores everything else."""
        # mcp 1.x wraps each notification in a ServerNotification (its `.root`); 2.x does not.
        notification = getattr(message, "root", message)
        if isinstance(notification, types.ElicitCompleteNotification):
            dumped = notification.params.model_dump(by_alias=True)
            elicitation_id = dumped.get("elicitationId")
            if isinstance(elicitation_id, str):
                await self.complete(elicitation_id)


def _fastmcp_result(answer: types.ElicitResult) -> types.ElicitResult:
    """FastMCP's own ElicitResult: FastMCP 3 (on mcp 1.x) takes anything else for the content of
    an accept; FastMCP 4 takes either."""
    try:
        from fastmcp.client.elicitation import ElicitResult  # noqa: PLC0415 (FastMCP is optional)
    except ImportError:
        return answer
    fastmcp_result: types.ElicitResult = ElicitResult.model_validate(answer.model_dump(by_alias=True))
    return fastmcp_result


def _server_name(context: Any) -> str | None:
    """The server's name as the dialog shows it: its title when it gives one (mcp 2.x sessions
    keep the server's info; 1.x sessions do not, and the relay shows its default)."""
    info = getattr(getattr(context, "session", None), "server_info", None)
    for name in (getattr(info, "title", None), getattr(info, "name", None)):
        if isinstance(name, str) and name:
            return name
    return None
