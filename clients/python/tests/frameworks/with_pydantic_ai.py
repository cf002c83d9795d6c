"""pydantic-ai: `MCPToolset(..., elicitation_handler=relay.fastmcp)` in an agent whose test model
calls the tool (no LLM)."""

from __future__ import annotations

import asyncio
import json
import warnings

from fastmcp.client.transports import StdioTransport
from peer import TOOL, relay_from_env, server_command
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.test import TestModel

# pydantic-ai warns that a 2026-07-28 session never calls the handler; its rounds do.
warnings.filterwarnings("ignore", message="`elicitation_handler` will never be called")


async def main() -> None:
    command, args = server_command()
    async with relay_from_env() as relay:
        toolset = MCPToolset(
            StdioTransport(command=command, args=args), elicitation_handler=relay.fastmcp, init_timeout=30
        )
        agent = Agent(TestModel(call_tools=[TOOL]), toolsets=[toolset])
        output = (await agent.run("Book a table")).output
    print(json.loads(output)[TOOL])


if __name__ == "__main__":
    asyncio.run(main())
