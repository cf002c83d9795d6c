"""mcp-use: `MCPClient(config, elicitation_callback=relay)` (telemetry off:
MCP_USE_ANONYMIZED_TELEMETRY=false)."""

from __future__ import annotations

import asyncio

from mcp_use import MCPClient
from peer import ARGUMENTS, TOOL, relay_from_env, server_command, text_of


async def main() -> None:
    command, args = server_command()
    async with relay_from_env() as relay:
        client = MCPClient(
            {"mcpServers": {"booking": {"command": command, "args": args}}}, elicitation_callback=relay
        )
        try:
            session = await client.create_session("booking")
            result = await session.call_tool(TOOL, ARGUMENTS)
        finally:
            await client.close_all_sessions()
    print(text_of(result.content))


if __name__ == "__main__":
    asyncio.run(main())
