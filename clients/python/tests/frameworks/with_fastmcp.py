"""FastMCP (its current major on mcp 2.x, and 3.x on mcp 1.x): `Client(...,
elicitation_handler=relay.fastmcp)`."""

from __future__ import annotations

import asyncio

import fastmcp
from fastmcp.client.transports import StdioTransport
from peer import ARGUMENTS, TOOL, relay_from_env, server_command, text_of


async def main() -> None:
    command, args = server_command()
    async with (
        relay_from_env() as relay,
        fastmcp.Client(
            StdioTransport(command=command, args=args), elicitation_handler=relay.fastmcp
        ) as client,
    ):
        result = await client.call_tool_mcp(TOOL, ARGUMENTS)
    print(text_of(result.content))


if __name__ == "__main__":
    asyncio.run(main())
