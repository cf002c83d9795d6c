"""No mcp at all: `RelayClient` imports and asks (create, on_created, wait), plain HTTP."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys

from koder_elicitation_relay import Created, RelayClient


async def main() -> None:
    assert importlib.util.find_spec("mcp") is None, "this venv has no mcp"
    assert "mcp" not in sys.modules
    created: list[str] = []

    def remember(new: Created) -> None:
        created.append(new.id)

    async with RelayClient(os.environ["RELAY_URL"], os.environ["RELAY_SERVICE_TOKEN"]) as relay:
        result = await relay.elicit(
            json.loads(os.environ["RELAY_SCOPE"]),
            {
                "mode": "form",
                "message": "Who is booking, and for how many?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "seats": {"type": "integer"},
                        "outdoor": {"type": "boolean"},
                    },
                    "required": ["name", "seats", "outdoor"],
                },
            },
            server_name="Table booking",
            on_created=remember,
        )
    assert len(created) == 1
    # The MCP hook says what it needs, rather than failing somewhere inside.
    hint = ""
    try:
        from koder_elicitation_relay import RelayElicitation  # noqa: F401, PLC0415
    except ImportError as error:
        hint = str(error)
    assert "needs the mcp SDK" in hint, hint
    print(f"RelayClient: {result['action']} {json.dumps(result.get('content'), sort_keys=True)}")


if __name__ == "__main__":
    asyncio.run(main())
