"""openai-agents has no elicitation hook (its MCP servers build their ClientSession without one):
the way through the README gives. The tool is an agent's function tool that calls the server
through the mcp SDK's own ClientSession (which openai-agents installs) with the relay as its
elicitation_callback and a read timeout longer than the relay's; it is invoked as the agent's
runner invokes a function tool."""

from __future__ import annotations

import asyncio

from agents import FunctionTool, function_tool
from agents.tool_context import ToolContext
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from peer import TOOL, relay_from_env, server_command, text_of


async def main() -> None:
    command, args = server_command()
    async with (
        relay_from_env() as relay,
        stdio_client(StdioServerParameters(command=command, args=args)) as (read, write),
        ClientSession(read, write, read_timeout_seconds=360.0, elicitation_callback=relay) as session,
    ):
        await session.initialize()

        async def book_table() -> str:
            """Books a table; asks the person who books, and for how many."""
            return text_of((await session.call_tool(TOOL, {})).content)

        tool = function_tool(book_table, name_override=TOOL)
        assert isinstance(tool, FunctionTool)
        context = ToolContext(context=None, tool_name=TOOL, tool_call_id="call-1", tool_arguments="{}")
        print(await tool.on_invoke_tool(context, "{}"))


if __name__ == "__main__":
    asyncio.run(main())
