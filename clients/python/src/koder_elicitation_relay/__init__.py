"""The host side of koder-elicitation-relay for Python MCP clients.

``RelayElicitation(url, service_token, scope=...)`` is an ``elicitation_callback`` for the mcp
SDK's ``ClientSession``; ``.fastmcp`` is the same for FastMCP's ``Client``. ``RelayClient`` is the
relay's host API (create, wait, withdraw, complete, answer link) for hosts that are not MCP
clients. Relay failures raise :class:`RelayError`.
"""

from .client import AnswerLink, Created, Outcome, RelayClient
from .errors import RelayError
from .handler import FastMCPElicitationHandler, RelayElicitation, ScopeFunction
from .scope import Scope

__all__ = [
    "AnswerLink",
    "Created",
    "FastMCPElicitationHandler",
    "Outcome",
    "RelayClient",
    "RelayElicitation",
    "RelayError",
    "Scope",
    "ScopeFunction",
]
