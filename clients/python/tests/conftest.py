"""The real relay for the host tests: the binary (`cargo build -p koder-elicitation-relay`) on
127.0.0.1 with SQLite in a temp dir and a random service token and JWT secret; people who answer
over its people's API with an HS256 JWT; and a TCP proxy in front of it that can lose an answer."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from koder_elicitation_relay import Scope

REPO_ROOT = Path(__file__).resolve().parents[3]
SERVER = Path(__file__).resolve().parent / "elicit_server.py"
START_TIMEOUT_SECONDS = 30.0
AUDIENCE = "koder-elicitation-relay"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def relay_binary() -> Path:
    binary = REPO_ROOT / "target" / "debug" / "koder-elicitation-relay"
    if not binary.exists():
        pytest.fail(
            f"relay binary missing: {binary} (build it with `cargo build -p koder-elicitation-relay`)"
        )
    return binary


def free_port() -> int:
    """A port of 127.0.0.1 free now (a relay's links must name its origin before it listens)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Relay:
    """A relay process on a SQLite file of its own; `restart()` kills it and starts another on
    the same address and database, as a crash and a restart would. With `answer_page`, it serves
    its answer page and makes links (the page's files are a stand-in: these tests call its API)."""

    def __init__(self, *, answer_page: bool = False) -> None:
        self.service_token = secrets.token_hex(32)
        self.jwt_secret = secrets.token_hex(32)
        self._dir = tempfile.TemporaryDirectory(prefix="koder-relay-py-")
        self.database = f"sqlite://{Path(self._dir.name) / 'relay.db'}"
        self.url = ""
        self._process: subprocess.Popen[str] | None = None
        self.log: list[str] = []
        self._args: list[str] = []
        listen = "127.0.0.1:0"
        if answer_page:
            listen = f"127.0.0.1:{free_port()}"
            assets = Path(self._dir.name) / "assets"
            assets.mkdir()
            (assets / "koder-mcp-elicitation.js").write_text("export {};\n")
            page = ("--answer-page", "--public-url", f"http://{listen}")
            self._args = [*page, "--answer-page-assets", str(assets)]
        self._start(listen)

    def _start(self, listen: str) -> None:
        # An ambient KODER_RELAY_* must not change what a test runs.
        env = {name: value for name, value in os.environ.items() if not name.startswith("KODER_RELAY_")}
        env["KODER_RELAY_SERVICE_TOKEN"] = self.service_token
        env["KODER_RELAY_JWT_SECRET"] = self.jwt_secret
        process = subprocess.Popen(
            [
                str(relay_binary()),
                *("--listen", listen, "--database", self.database, "--log-format", "text"),
                *self._args,
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._process = process
        listening: list[str] = []
        started = threading.Event()

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                self.log.append(line.rstrip())
                match = re.fullmatch(r"listening on (http://\S+?)/?", line.strip())
                if match and not started.is_set():
                    listening.append(match.group(1))
                    started.set()
            started.set()

        threading.Thread(target=read, daemon=True).start()
        if not started.wait(START_TIMEOUT_SECONDS) or not listening:
            process.kill()
            tail = "\n".join(self.log[-20:])
            raise RuntimeError(f"the relay did not start:\n{tail}")
        self.url = listening[0]

    def kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def restart(self) -> None:
        self.kill()
        self._start(self.url.removeprefix("http://"))

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
        self._dir.cleanup()

    def token(self, scope: Scope, extra_claims: dict[str, Any] | None = None) -> str:
        """A person's HS256 JWT for `scope` (and `extra_claims`, such as `groups` and `name`)."""
        claims: dict[str, Any] = {"sub": scope["userId"], "workspace": scope["workspaceId"], "aud": AUDIENCE}
        claims["exp"] = int(time.time()) + 600
        claims.update(extra_claims or {})
        signing_input = f"{_base64url({'alg': 'HS256', 'typ': 'JWT'})}.{_base64url(claims)}"
        signature = hmac.new(self.jwt_secret.encode(), signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def _base64url(value: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


@pytest.fixture(scope="session")
def relay() -> Iterator[Relay]:
    running = Relay()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def page_relay() -> Iterator[Relay]:
    """A relay with its answer page on, so hosts can ask it for links."""
    running = Relay(answer_page=True)
    yield running
    running.stop()


@pytest.fixture
def own_relay() -> Iterator[Relay]:
    """A relay for one test alone (one it may kill and restart)."""
    running = Relay()
    yield running
    running.stop()


_people = 0


@dataclass
class Person:
    """Someone who answers in their browser: here, over the people's API with their token."""

    relay: Relay
    scope: Scope
    claims: dict[str, Any] = field(default_factory=dict)
    token: str = field(init=False)

    def __post_init__(self) -> None:
        self.token = self.relay.token(self.scope, self.claims)

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with httpx2.AsyncClient() as http:
            response = await http.request(
                method,
                f"{self.relay.url}{path}",
                headers={"Authorization": f"Bearer {self.token}"},
                json=body,
            )
        return response.status_code, response.json()

    async def pending(self) -> list[dict[str, Any]]:
        status, body = await self.call("GET", "/v1/elicitations?status=pending")
        assert status == 200, body
        elicitations: list[dict[str, Any]] = body["elicitations"]
        return elicitations

    async def wait_for_pending(self, count: int = 1, timeout: float = 20.0) -> list[dict[str, Any]]:
        with anyio.fail_after(timeout):
            while True:
                pending = await self.pending()
                if len(pending) >= count:
                    return pending
                await anyio.sleep(0.05)

    async def answer(self, elicitation_id: str, result: dict[str, Any]) -> tuple[int, Any]:
        return await self.call("POST", f"/v1/elicitations/{elicitation_id}/result", result)

    async def status(self, elicitation_id: str) -> str:
        status, body = await self.call("GET", f"/v1/elicitations/{elicitation_id}/status")
        assert status == 200, body
        word: str = body["status"]
        return word


def new_person(relay: Relay) -> Person:
    """A person of their own (tests do not see each other's elicitations)."""
    global _people  # noqa: PLW0603 (one counter for the session)
    _people += 1
    return Person(relay, {"userId": f"u_py_{_people}", "workspaceId": "w_py", "conversationId": "c_1"})


@pytest.fixture
def person(relay: Relay) -> Person:
    return new_person(relay)


class LosingProxy:
    """A TCP proxy in front of the relay. `drop_creates` creates reach the relay, which makes
    the elicitation, but the connection is closed before its answer gets back; `busy_creates`
    creates are answered by the proxy itself with 503 and `Retry-After: 1`. `creates` lists
    when each create arrived (monotonic seconds); `connections` counts the TCP connections
    hosts opened to it."""

    def __init__(self, upstream: str, *, drop_creates: int = 0, busy_creates: int = 0) -> None:
        host, port = upstream.removeprefix("http://").rsplit(":", 1)
        self._upstream = (host, int(port))
        self.drop_creates = drop_creates
        self.busy_creates = busy_creates
        self.creates: list[float] = []
        self.connections = 0
        self._server: asyncio.Server | None = None
        self.url = ""

    async def __aenter__(self) -> LosingProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *_: object) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        first = await reader.read(65536)
        if first.startswith(b"POST /v1/elicitations HTTP/"):
            self.creates.append(time.monotonic())
            if self.busy_creates > 0:
                self.busy_creates -= 1
                writer.write(
                    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"
                )
                await writer.drain()
                writer.close()
                return
        up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        up_writer.write(first)
        await up_writer.drain()
        if first.startswith(b"POST /v1/elicitations HTTP/") and self.drop_creates > 0:
            self.drop_creates -= 1
            # The relay answered (so it holds the elicitation); the host never hears it.
            await up_reader.read(1)
            up_writer.close()
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
    except ConnectionError:
        pass
    finally:
        sink.close()


def server_command() -> tuple[str, list[str]]:
    """The MCP server the tests call: this interpreter running elicit_server.py."""
    return sys.executable, [str(SERVER)]
