"""The package beside each agent framework, each in a fresh venv of its own made with `pip install
<framework> ./clients/python` (framework_venvs.py): pip installs the framework's current release
(the one it picks for the framework alone), on the mcp line that framework brings; and a real
Python MCP server's tool, called through the framework's own hook (tests/frameworks/with_*.py),
receives exactly what the person answered through the real relay; and where the scenario calls a
tool with arguments, a remembered approval's `_meta.persist` reaches the server through the
framework's hook, on each mcp line. The venv without any framework has no mcp at all, and
RelayClient works there."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from conftest import REPO_ROOT, SERVER, Person, Relay, new_person
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


def scenario_env(relay: Relay, person: Person, server: tuple[str, Path], **tool: str) -> dict[str, str]:
    """The environment of a scenario (tests/frameworks/peer.py): the relay, the person, the MCP
    server (a command and its script) and, in `tool`, `TOOL` and `TOOL_ARGUMENTS` when not
    `book_table`."""
    command, script = server
    return {
        **os.environ,
        "RELAY_URL": relay.url,
        "RELAY_SERVICE_TOKEN": relay.service_token,
        "RELAY_SCOPE": json.dumps(person.scope),
        "SERVER_COMMAND": command,
        "SERVER_SCRIPT": str(script),
        "MCP_USE_ANONYMIZED_TELEMETRY": "false",
        **tool,
    }


async def run_answering(
    venv: Venv,
    env: dict[str, str],
    person: Person,
    answer: Callable[[dict[str, Any]], Awaitable[None]],
) -> list[str]:
    """Runs the framework's scenario while `answer(shown)` answers the one question it asks;
    the lines it printed."""
    outputs: list[str] = []

    async def run_scenario() -> None:
        scenario = venv.framework.scenario
        done = await anyio.run_process([str(venv.python), str(SCENARIOS / scenario)], env=env, check=False)
        output = done.stdout.decode()
        assert done.returncode == 0, f"{scenario} failed:\n{output}\n{done.stderr.decode()}"
        outputs.extend(output.strip().splitlines())

    with anyio.fail_after(SCENARIO_TIMEOUT_SECONDS):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run_scenario)
            [shown] = await person.wait_for_pending(1, timeout=SCENARIO_TIMEOUT_SECONDS)
            await answer(shown)
    return outputs


@pytest.mark.anyio
@pytest.mark.parametrize("framework", FRAMEWORKS, ids=IDS)
async def test_the_tool_receives_what_the_person_answered_through_the_frameworks_hook(
    venvs: dict[str, Venv], relay: Relay, framework: Framework
) -> None:
    person = new_person(relay)
    # The server runs on this venv's mcp (2.3), whatever line the framework's client is on.
    env = scenario_env(relay, person, (sys.executable, SERVER))

    async def answer(shown: dict[str, Any]) -> None:
        assert shown["request"]["message"] == "Who is booking, and for how many?"
        status, body = await person.answer(shown["id"], {"action": "accept", "content": BOOKING})
        assert status == 200, body

    outputs = await run_answering(venvs[framework.name], env, person, answer)
    received = f"accept {json.dumps(BOOKING, sort_keys=True)}"
    if framework.mcp_lines:
        revisions = ("2025-11-25",) if framework.mcp_lines == ("1.",) else ("2025-11-25", "2026-07-28")
        assert outputs[-1] in [f"{revision}: {received}" for revision in revisions], outputs
    else:
        assert outputs[-1:] == [f"RelayClient: {received}"]
    assert await person.pending() == []


# The scenarios that call the tool with arguments (pydantic-ai's TestModel and openai-agents'
# wrapper make up their own), on each mcp line.
REMEMBERING = [
    framework
    for framework in FRAMEWORKS
    if framework.scenario in {"with_strands.py", "with_langchain.py", "with_mcp_use.py", "with_fastmcp.py"}
]


@pytest.mark.anyio
@pytest.mark.parametrize("framework", REMEMBERING, ids=[framework.name for framework in REMEMBERING])
async def test_remember_the_persons_meta_persist_reaches_the_server_through_the_frameworks_hook(
    venvs: dict[str, Venv], relay: Relay, framework: Framework
) -> None:
    person = new_person(relay)
    # The SDK v2 peer sends the request's `_meta` on both revisions.
    approval_server = ("node", REPO_ROOT / "tests" / "peers" / "approval-server.mjs")
    arguments = json.dumps({"command": "cargo test"})
    env = scenario_env(relay, person, approval_server, TOOL="run_command", TOOL_ARGUMENTS=arguments)
    remembered = {"action": "accept", "content": {}, "_meta": {"persist": "always"}}

    async def answer(shown: dict[str, Any]) -> None:
        assert shown["request"]["_meta"]["persist"] == ["session", "always"]
        assert shown["request"]["_meta"]["codex_approval_kind"] == "exec"
        status, body = await person.answer(shown["id"], remembered)
        assert status == 200, body

    outputs = await run_answering(venvs[framework.name], env, person, answer)
    assert outputs[-2] == "Ran `cargo test`; _meta.persist: always, remembered.", outputs
    revisions = ("2025-11-25",) if framework.mcp_lines == ("1.",) else ("2025-11-25", "2026-07-28")
    assert outputs[-1] in [f"Protocol revision: {revision}." for revision in revisions], outputs
