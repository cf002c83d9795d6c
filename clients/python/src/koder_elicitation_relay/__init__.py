"""The host side of koder-elicitation-relay for Python MCP clients.

``RelayElicitation(url, service_token, scope=...)`` is an ``elicitation_callback`` for the mcp
SDK's ``ClientSession`` (any line from 1.24 on); ``.fastmcp`` is the same for FastMCP's
``Client``. With ``audience=`` it asks a team (any member may answer, the first settles it), and
``on_settled=`` hears who answered. ``RelayClient`` is the relay's host API (create, wait,
withdraw, complete, answer link) for hosts that are not MCP clients: plain HTTP, it imports
without ``mcp``. Relay failures raise :class:`RelayError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .asking import AnsweredBy, Audience, EscalationStage, LinkAnswer, Notify, PersonAnswer
from .client import AnswerLink, Created, OnCreated, OnSettled, Outcome, RelayClient
from .errors import MalformedAnswerError, RelayError
from .scope import Scope

if TYPE_CHECKING:
    from .handler import FastMCPElicitationHandler, RelayElicitation, ScopeFunction

# Imported on first use: they need the mcp SDK, which a host of RelayClient alone may not have.
_NEED_MCP = frozenset({"FastMCPElicitationHandler", "RelayElicitation", "ScopeFunction"})


def __getattr__(name: str) -> Any:
    if name in _NEED_MCP:
        try:
            from . import handler  # noqa: PLC0415 (the mcp SDK is optional)
        except ModuleNotFoundError as missing:
            if missing.name != "mcp":
                raise
            raise ImportError(
                f"koder_elicitation_relay.{name} needs the mcp SDK (1.24 or later): install your MCP "
                "framework beside this package, or `pip install 'koder-elicitation-relay[mcp]'`"
            ) from missing
        return getattr(handler, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AnswerLink",
    "AnsweredBy",
    "Audience",
    "Created",
    "EscalationStage",
    "FastMCPElicitationHandler",
    "LinkAnswer",
    "MalformedAnswerError",
    "Notify",
    "OnCreated",
    "OnSettled",
    "Outcome",
    "PersonAnswer",
    "RelayClient",
    "RelayElicitation",
    "RelayError",
    "Scope",
    "ScopeFunction",
]
