"""`RelayElicitation`: an ``elicitation_callback`` for the mcp SDK's ``ClientSession`` (and, as
``.fastmcp``, an ``elicitation_handler`` for FastMCP's ``Client``) that asks the right person
through the relay."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

import httpx2
import mcp_types as types
from mcp.client.session import ClientRequestContext, IncomingMessage
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from .client import RETRY_FOR_SECONDS, Created, RelayClient
from .errors import INVALID_PARAMS, RelayError
from .scope import SCOPE_SHAPE, Scope, is_scope

ScopeFunction: TypeAlias = Callable[
    [types.ElicitRequestParams, ClientRequestContext], "Scope | Awaitable[Scope]"
]
"""A scope per request: called with the ``elicitation/create`` params and the SDK's context
(``context.session`` tells the sessions a host serves apart); may be async."""

Notify: TypeAlias = Mapping[str, str]
"""Whom the relay e-mails the question's link: ``{"email": ..., "language"?: ...}``."""

NotifyFunction: TypeAlias = Callable[
    [types.ElicitRequestParams, ClientRequestContext], "Notify | Awaitable[Notify | None] | None"
]
"""An e-mail per request (``None``: none for that one); may be async."""

FastMCPElicitationHandler: TypeAlias = Callable[
    [str, Any, types.ElicitRequestParams, Any], Awaitable[types.ElicitResult]
]
"""FastMCP's ``elicitation_handler`` shape: ``(message, response_type, params, context)``."""


class RelayElicitation:
    """Each ``elicitation/create`` the MCP client gets is posted to the relay for the person
    ``scope`` names, and the call waits (long-polling) until they answer in their browser, the
    relay expires it (``{"action": "cancel"}``), or the MCP request is cancelled: then the
    elicitation is withdrawn, so the person's dialog closes.

    ``ClientSession(..., elicitation_callback=relay)`` (or the mcp SDK's ``Client``);
    ``fastmcp.Client(..., elicitation_handler=relay.fastmcp)``. For URL mode on 2025-11-25, pass
    ``message_handler=relay.message_handler`` too, so the server's completion reaches the dialog.

    ``server_name`` is shown in the person's dialog (default: the server's title, else its name);
    ``timeout_ms`` is how long they have (the relay's default: 5 minutes); ``notify`` is whom
    the relay e-mails the question's link (a relay with ``--smtp-url``; the address must be in one
    of its ``--email-allow-domain`` domains, or the relay refuses the create with 422), a mapping
    or a function of the request like ``scope``.
    """

    def __init__(
        self,
        url: str,
        service_token: str,
        scope: Scope | ScopeFunction,
        *,
        server_name: str | None = None,
        timeout_ms: int | None = None,
        notify: Notify | NotifyFunction | None = None,
        http_client: httpx2.AsyncClient | None = None,
        retry_for: float = RETRY_FOR_SECONDS,
    ) -> None:
        if not callable(scope) and not is_scope(scope):
            raise TypeError(f"RelayElicitation: `scope` must be {SCOPE_SHAPE} or a function returning one")
        self.client = RelayClient(url, service_token, http_client=http_client, retry_for=retry_for)
        self._scope = scope
        self._server_name = server_name
        self._timeout_ms = timeout_ms
        self._notify = notify
        # URL-mode elicitationIds (the server's) to the relay's ids, while a completion may come.
        self._awaiting_completion: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"RelayElicitation({self.client!r})"

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """The ``elicitation_callback``: the person's ElicitResult. A relay failure raises
        :class:`RelayError`; a request the relay's core refused raises the SDK's
        ``MCPError`` with ``INVALID_PARAMS``, which the server receives."""
        scope = await self._scope_for(params, context)
        request = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        url_id = params.elicitation_id if isinstance(params, types.ElicitRequestURLParams) else None

        def remember(created: Created) -> None:
            if url_id:
                self._awaiting_completion[url_id] = created.id

        accepted = False
        try:
            answer = await self.client.elicit(
                scope,
                request,
                server_name=self._server_name or _server_name(context),
                timeout_ms=self._timeout_ms,
                notify=await self._notify_for(params, context),
                on_created=remember,
            )
            result = types.ElicitResult.model_validate(answer)
            accepted = result.action == "accept"
            return result
        except RelayError as error:
            if error.jsonrpc_code == INVALID_PARAMS:
                raise MCPError(code=INVALID_PARAMS, message=str(error), data=error.body) from error
            raise
        except ValidationError as error:
            raise RelayError(200, f"the relay's result is not an ElicitResult: {error}") from error
        finally:
            # Only an accepted URL elicitation waits for its completion.
            if url_id and not accepted:
                self._awaiting_completion.pop(url_id, None)

    @property
    def fastmcp(self) -> FastMCPElicitationHandler:
        """The same for FastMCP: ``fastmcp.Client(..., elicitation_handler=relay.fastmcp)`` (and
        pydantic-ai's ``MCPToolset(..., elicitation_handler=relay.fastmcp)``)."""

        async def handle(
            message: str, response_type: Any, params: types.ElicitRequestParams, context: Any
        ) -> types.ElicitResult:
            # FastMCP passes the SDK's ClientRequestContext through as it is.
            return await self(context, params)

        return handle

    async def complete(self, elicitation_id: str) -> None:
        """The server reported a URL-mode elicitation complete (``notifications/elicitation/
        complete``, MCP 2025-11-25): the relay is told, and the person's dialog stops waiting.
        Unknown ids are ignored, as the element does."""
        relay_id = self._awaiting_completion.pop(elicitation_id, None)
        if relay_id is not None:
            await self.client.complete(relay_id)

    async def message_handler(self, message: IncomingMessage) -> None:
        """A ``message_handler`` for ``ClientSession`` / ``Client`` / FastMCP's ``Client`` that
        passes URL-mode completions on (:meth:`complete`) and ignores everything else."""
        if isinstance(message, types.ElicitCompleteNotification):
            await self.complete(message.params.elicitation_id)

    async def _scope_for(self, params: types.ElicitRequestParams, context: ClientRequestContext) -> Scope:
        if not callable(self._scope):
            return self._scope
        scope = self._scope(params, context)
        if inspect.isawaitable(scope):
            scope = await scope
        if not is_scope(scope):
            raise TypeError(f"RelayElicitation: the `scope` function must return {SCOPE_SHAPE}")
        return scope

    async def _notify_for(
        self, params: types.ElicitRequestParams, context: ClientRequestContext
    ) -> Notify | None:
        if not callable(self._notify):
            return self._notify
        notify = self._notify(params, context)
        if inspect.isawaitable(notify):
            notify = await notify
        if notify is not None and not isinstance(notify, Mapping):
            raise TypeError(
                'RelayElicitation: the `notify` function must return {"email", "language"?} or None'
            )
        return notify


def _server_name(context: Any) -> str | None:
    """The server's name as the dialog shows it: its title when it gives one."""
    session = getattr(context, "session", None)
    info = getattr(session, "server_info", None)
    if not isinstance(info, types.Implementation):
        return None
    return info.title or info.name
