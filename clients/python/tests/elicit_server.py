"""A real MCP server on the Python SDK (stdio) whose tools elicit, for the host tests.

- `book_table` asks one form through `Resolve` + `Elicit`: on 2026-07-28 inside an
  `input_required` round, on 2025-11-25 as a server-initiated `elicitation/create`. It answers
  with the action and exactly the content it received, and the revision it spoke.
- `sign_in` asks a URL-mode elicitation the 2025-11-25 way and, once accepted, reports it
  complete (`notifications/elicitation/complete`).
- `run_command` asks a Codex-style approval whose `_meta.persist` offers remembering it (`offer`:
  the scopes; on 2026-07-28 inside an `input_required` round it builds itself, on 2025-11-25 as its
  own `elicitation/create`) and says which `_meta` the answer reached it with. An approval whose
  `_meta.persist` names an offered scope is remembered for this process: the next call runs
  without asking.

Run: python elicit_server.py
"""

from __future__ import annotations

import json
from typing import Annotated

import mcp_types as types
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.shared.message import ServerMessageMetadata
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


# Commands approved with a remembered scope, for as long as this process lives.
remembered: dict[str, str] = {}


@server.tool()
async def run_command(
    ctx: Context, command: str, offer: list[str] | None = None
) -> str | types.InputRequiredResult:
    """Runs a (pretend) command once the person approves it; says which `_meta` the answer had.
    Its words are those of tests/peers/approval-server.mjs, the SDK v2 peer of the same tool."""
    offered = offer if offer is not None else ["session", "always"]
    served = f"Protocol revision: {ctx.protocol_version}."
    if command in remembered:
        return f"Ran `{command}` without asking: remembered ({remembered[command]}).\n{served}"
    ask = types.ElicitRequest.model_validate(
        {
            "method": "elicitation/create",
            "params": {
                "message": f"Run `{command}`?",
                "requestedSchema": {"type": "object", "properties": {}},
                "_meta": {"persist": offered, "codex_approval_kind": "exec"},
            },
        }
    )
    if ctx.protocol_version == "2025-11-25":
        answer: types.InputResponse = await ctx.request_context.session.send_request(
            ask, types.ElicitResult, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
        )
    else:
        # On 2026-07-28 this SDK sends an embedded request as that revision's schema has it: no
        # `_meta` (the SDK v2 peer sends it).
        responses = ctx.input_responses
        if not responses:
            return types.InputRequiredResult(input_requests={"approval": ask})
        answer = responses["approval"]
    if not isinstance(answer, types.ElicitResult) or answer.action != "accept":
        chose = answer.action if isinstance(answer, types.ElicitResult) else "nothing"
        return f"Not run: the person chose {chose}.\n{served}"
    persist = (answer.meta or {}).get("persist")
    if isinstance(persist, str) and persist in offered:
        remembered[command] = persist
        return f"Ran `{command}`; _meta.persist: {persist}, remembered.\n{served}"
    meta = json.dumps(answer.meta, separators=(",", ":"))
    return f"Ran `{command}` this time only; _meta: {meta}.\n{served}"


if __name__ == "__main__":
    server.run("stdio")
