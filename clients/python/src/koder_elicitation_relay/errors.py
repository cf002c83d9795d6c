"""Why a call through the relay failed."""

from __future__ import annotations

from typing import Any

# The JSON-RPC code the relay reports when its core refused the request itself.
INVALID_PARAMS = -32602


class RelayError(Exception):
    """The relay answered with an error (4xx, or 5xx after retrying), answered something that is
    not its API, or could not be reached (after retrying).

    ``status`` is the HTTP status (``None`` when no answer came), ``message`` the relay's own
    message (``error.message``), ``body`` its whole JSON body (``{"error": {"status", "message",
    "jsonrpcCode"?, "errors"?}}``) when it sent one, ``retry_after`` its ``Retry-After`` in
    seconds.
    """

    status: int | None
    message: str
    body: Any
    retry_after: float | None

    def __init__(self, status: int | None, message: str, body: Any = None) -> None:
        self.status = status
        self.message = message
        self.body = body
        self.retry_after = None
        if status is None:
            super().__init__(f"koder-elicitation-relay unreachable: {message}")
        else:
            super().__init__(f"koder-elicitation-relay answered {status}: {message}")

    @property
    def jsonrpc_code(self) -> int | None:
        """The JSON-RPC code the relay gave (``-32602`` when its core refused the request)."""
        error = self.body.get("error") if isinstance(self.body, dict) else None
        code = error.get("jsonrpcCode") if isinstance(error, dict) else None
        return code if isinstance(code, int) and not isinstance(code, bool) else None

    @property
    def transient(self) -> bool:
        """No answer, a 429 or a 5xx may pass: every relay call is safe to repeat."""
        return self.status is None or self.status == 429 or self.status >= 500


class MalformedAnswerError(RelayError):
    """The relay (or something in its place: a proxy, a wrong URL) answered 2xx with a body that
    is not the relay's API. ``status`` is 200; ``body`` what came, when it was JSON. Not retried."""

    def __init__(self, message: str, body: Any = None) -> None:
        super().__init__(200, message, body)


def relay_error(status: int, body: Any, reason: str) -> RelayError:
    """A non-2xx answer as the error it stands for: the relay's message when its body has one,
    else ``reason``."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return RelayError(status, message if isinstance(message, str) else reason, body)
