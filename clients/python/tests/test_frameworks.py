"""The package beside each agent framework, each in a fresh venv of its own made with `pip install
<framework> ./clients/python` (framework_venvs.py): pip installs the framework's current release
(the one it picks for the framework alone), on the mcp line that framework brings; and a real
Python MCP server's tool, called through the framework's own hook (tests/frameworks/with_*.py),
receives exactly what the person answered through the real relay. The venv without any framework
has no mcp at all, and RelayClient works there."""

from __future__ import annotations

import json
import os
import re
import sys

import anyio
import pytest

from conftest import SERVER, Relay, new_person
from framework_venvs import FRAMEWORKS, SCENARIOS, Framework, Venv, ensure_all

BOOKING = {"name": "Ada Lovelace", "seats": 3, "outdoor": True}
IDS = [framework.name for framework in FRAMEWORKS]
SCENARIO_TIMEOUT_SECONDS = 120


@pytest.fixture(scope="session")
def venvs() -> dict[str, Venv]:
    return ensure_all()


def release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=IDS)
def test_pip_installs_the_frameworks_current_release_beside_the_package(
    venvs: dict[str, Venv], framework: Framework
) -> None:
    venv = venvs[framework.name]
    installed = venv.version(framework.distribution)
    assert installed is not None, f"{framework.distribution} is not installed"
    assert release(installed) >= framework.floor, f"{framework.distribution} {installed}: an old fallback"
    if framework.requirement:
        assert installed == venv.alone, f"pip picks {venv.alone} for {framework.requirement} alone"
    assert venv.version("koder-elicitation-relay") is not None
    mcp = venv.version("mcp")
    if framework.mcp_lines:
        assert mcp is not None, "the framework brings mcp"
        assert mcp.startswith(framework.mcp_lines), f"mcp {mcp}"
    else:
        assert mcp is None, "the package alone brings no mcp"


@pytest.mark.anyio
@pytest.mark.parametrize("framework", FRAMEWORKS, ids=IDS)
async def test_the_tool_receives_what_the_person_answered_through_the_frameworks_hook(
    venvs: dict[str, Venv], relay: Relay, framework: Framework
) -> None:
    venv = venvs[framework.name]
    person = new_person(relay)
    env = {
        **os.environ,
        "RELAY_URL": relay.url,
        "RELAY_SERVICE_TOKEN": relay.service_token,
        "RELAY_SCOPE": json.dumps(person.scope),
        # The server runs on this venv's mcp (2.3), whatever line the framework's client is on.
        "SERVER_PYTHON": sys.executable,
        "SERVER_SCRIPT": str(SERVER),
        "MCP_USE_ANONYMIZED_TELEMETRY": "false",
    }
    outputs: list[str] = []

    async def run_scenario() -> None:
        done = await anyio.run_process(
            [str(venv.python), str(SCENARIOS / framework.scenario)], env=env, check=False
        )
        output = done.stdout.decode()
        assert done.returncode == 0, f"{framework.scenario} failed:\n{output}\n{done.stderr.decode()}"
        outputs.append(output.strip().splitlines()[-1])

    with anyio.fail_after(SCENARIO_TIMEOUT_SECONDS):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run_scenario)
            [shown] = await person.wait_for_pending(1, timeout=SCENARIO_TIMEOUT_SECONDS)
            assert shown["request"]["message"] == "Who is booking, and for how many?"
            status, body = await person.answer(shown["id"], {"action": "accept", "content": BOOKING})
            assert status == 200, body
    received = f"accept {json.dumps(BOOKING, sort_keys=True)}"
    if framework.mcp_lines:
        revisions = ("2025-11-25",) if framework.mcp_lines == ("1.",) else ("2025-11-25", "2026-07-28")
        assert outputs[0] in [f"{revision}: {received}" for revision in revisions], outputs
    else:
        assert outputs == [f"RelayClient: {received}"]
    assert await person.pending() == []
