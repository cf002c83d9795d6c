"""langchain-mcp-adapters: `Callbacks(on_elicitation=relay)` on a `MultiServerMCPClient`; the
LangChain tool it makes is invoked as an agent would."""

from __future__ import annotations

import asyncio

from langchain_mcp_adapters.callbacks import Callbacks
from langchain_mcp_adapters.client import MultiServerMCPClient
from peer import ARGUMENTS, TOOL, relay_from_env, server_command, text_of


async def main() -> None:
    command, args = server_command()
    async with relay_from_env() as relay:
        client = MultiServerMCPClient(
            {"booking": {"transport": "stdio", "command": command, "args": args}},
            callbacks=Callbacks(on_elicitation=relay),
        )
        [tool] = [tool for tool in await client.get_tools() if tool.name == TOOL]
        print(text_of(await tool.ainvoke(ARGUMENTS)))


if __name__ == "__main__":
    asyncio.run(main())
