"""What every framework's scenario shares: the relay handler from the environment the test gives
(`RELAY_URL`, `RELAY_SERVICE_TOKEN`, `RELAY_SCOPE`), how to start the test's MCP server
(`SERVER_COMMAND` running `SERVER_SCRIPT`, over stdio), and the tool to call (`TOOL`, default
`book_table`, with `TOOL_ARGUMENTS`, a JSON object). Each scenario prints the tool's text last."""

from __future__ import annotations

import json
import os
from typing import Any

from koder_elicitation_relay import RelayElicitation

TOOL = os.environ.get("TOOL", "book_table")
ARGUMENTS: dict[str, Any] = json.loads(os.environ.get("TOOL_ARGUMENTS", "{}"))


def relay_from_env() -> RelayElicitation:
    return RelayElicitation(
        os.environ["RELAY_URL"],
        os.environ["RELAY_SERVICE_TOKEN"],
        scope=json.loads(os.environ["RELAY_SCOPE"]),
    )


def server_command() -> tuple[str, list[str]]:
    return os.environ["SERVER_COMMAND"], [os.environ["SERVER_SCRIPT"]]


def text_of(content: Any) -> str:
    """The text blocks of a tool result, whichever shape the framework hands back (the SDK's
    content blocks, dicts, or a string)."""
    if isinstance(content, str):
        return content
    texts = []
    for block in content:
        text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
        if isinstance(text, str):
            texts.append(text)
    return "\n".join(texts)
