"""A real MCP server on the Python SDK (stdio) whose tools elicit, for the host tests.

- `book_table` asks one form through `Resolve` + `Elicit`: on 2026-07-28 inside an
  `input_required` round, on 2025-11-25 as a server-initiated `elicitation/create`. It answers
  with the action and exactly the content it received, and the revision it spoke.
- `sign_in` asks a URL-mode elicitation the 2025-11-25 way and, once accepted, reports it
  complete (`notifications/elicitation/complete`).

Run: python elicit_server.py
"""

from __future__ import annotations

import json
from typing import Annotated

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from pydantic import BaseModel, Field

server = MCPServer("Host test peer", title="Table booking")

BOOKING_QUESTION = "Who is booking, and for how many?"
SIGN_IN_ID = "sign-in-flow-1"


class Booking(BaseModel):
    name: str = Field(description="Your name")
    seats: int = Field(description="How many seats")
    outdoor: bool = Field(description="Sit outside")


def ask_booking() -> Elicit[Booking]:
    return Elicit(BOOKING_QUESTION, Booking)


@server.tool()
def book_table(ctx: Context, booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    """Asks who books and for how many; says what it received."""
    content = booking.data.model_dump() if isinstance(booking, AcceptedElicitation) else None
    return f"{ctx.protocol_version}: {booking.action} {json.dumps(content, sort_keys=True)}"


@server.tool()
async def sign_in(ctx: Context) -> str:
    """Asks the person to sign in on a page (URL mode), then reports the flow complete."""
    answer = await ctx.elicit_url("Sign in on the page.", "https://example.com/sign-in", SIGN_IN_ID)
    if answer.action == "accept":
        await ctx.request_context.session.send_elicit_complete(SIGN_IN_ID)
    return f"sign_in: {answer.action}"


if __name__ == "__main__":
    server.run("stdio")
