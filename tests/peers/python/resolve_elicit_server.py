"""A real MCP server on the Python SDK (`mcp` 2.3.0).

- `forecast` elicits two questions through `Resolve` + `Elicit`: on 2026-07-28 the SDK asks them
  inside `input_required` rounds; on 2025-11-25 it sends each as a server-initiated
  `elicitation/create`.
- `legacy_city` asks through `ctx.elicit`, which only works on 2025-11-25 (on 2026-07-28 the SDK
  has no back-channel for a server-initiated request, and the call fails).

Each result names the protocol revision it saw, so a client's test can tell which path ran.

Run: python resolve_elicit_server.py  (stdio)
"""

from typing import Annotated

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve

server = MCPServer("Python resolver server")


class City(BaseModel):
    city: str = Field(description="Your city")


class Unit(BaseModel):
    unit: str = Field(default="C", description="C or F")


def ask_city() -> Elicit[City]:
    return Elicit("Which city is the forecast for?", City)


def ask_unit() -> Elicit[Unit]:
    return Elicit("Which temperature unit?", Unit)


@server.tool()
def forecast(
    ctx: Context,
    city: Annotated[City, Resolve(ask_city)],
    unit: Annotated[Unit, Resolve(ask_unit)],
) -> str:
    """A fake forecast that asks for the city and the unit."""
    return f"protocol {ctx.protocol_version}: forecast for {city.city} in {unit.unit}"


@server.tool()
async def legacy_city(ctx: Context) -> str:
    """Asks for the city the 2025-11-25 way (`ctx.elicit`)."""
    answer = await ctx.elicit("Which city (asked the 2025-11-25 way)?", City)
    city = answer.data.city if answer.action == "accept" else answer.action
    return f"protocol {ctx.protocol_version}: legacy city {city}"


if __name__ == "__main__":
    server.run("stdio")
