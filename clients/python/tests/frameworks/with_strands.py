"""strands-agents: `MCPClient(..., elicitation_callback=relay)` calls the tool (synchronously, as
an agent's tool call does; strands runs the session on its own thread and event loop)."""

from __future__ import annotations

from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from peer import ARGUMENTS, TOOL, relay_from_env, server_command, text_of
from strands.tools.mcp import MCPClient


def main() -> None:
    relay = relay_from_env()
    command, args = server_command()
    client = MCPClient(
        lambda: stdio_client(StdioServerParameters(command=command, args=args)), elicitation_callback=relay
    )
    with client:
        result = client.call_tool_sync("call-1", TOOL, ARGUMENTS)
    print(text_of(result["content"]))


if __name__ == "__main__":
    main()
