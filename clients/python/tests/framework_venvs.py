"""A fresh venv per agent framework, made as a new user would make it: `pip install <framework>
./clients/python` in one command, with no pin on the framework and no `--no-deps`. Beside it, pip
resolves the framework alone (`--dry-run`): what it would install without our package is what
the venv must hold (never a placeholder or an older fallback).

The venvs live in target/python-frameworks/<name>-<key>, the key a hash of what pip installs
from clients/python (pyproject.toml and src/) and the framework's requirement: a warm run finds
them there; a change to the package makes them again. pip's own cache keeps downloads down."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
VENVS = PACKAGE.parents[1] / "target" / "python-frameworks"
SCENARIOS = Path(__file__).resolve().parent / "frameworks"
# What a venv records once made: the framework's version when pip resolved it alone.
STAMP = "koder-framework.json"
INSTALL_TIMEOUT_SECONDS = 900


@dataclass(frozen=True)
class Framework:
    """``requirement`` is what a user types beside ./clients/python (empty: the package alone);
    ``distribution`` the one whose version is checked, at least ``floor`` (its current line);
    ``mcp_lines`` the mcp versions it must bring (prefixes); ``scenario`` the script in
    tests/frameworks that calls the tool through the framework's own hook."""

    name: str
    requirement: str
    distribution: str
    floor: tuple[int, ...]
    mcp_lines: tuple[str, ...]
    scenario: str


FRAMEWORKS = [
    Framework("strands", "strands-agents", "strands-agents", (1, 62), ("2.0.", "2.1."), "with_strands.py"),
    Framework(
        "langchain",
        "langchain-mcp-adapters",
        "langchain-mcp-adapters",
        (0, 3, 2),
        ("1.",),
        "with_langchain.py",
    ),
    Framework("mcp-use", "mcp-use", "mcp-use", (1, 7), ("1.",), "with_mcp_use.py"),
    Framework("pydantic-ai", "pydantic-ai", "pydantic-ai", (2, 62), ("2.",), "with_pydantic_ai.py"),
    Framework("fastmcp", "fastmcp", "fastmcp", (4,), ("2.",), "with_fastmcp.py"),
    # The FastMCP line on mcp 1.x: its major is what picks that line.
    Framework("fastmcp-3", "fastmcp<4", "fastmcp", (3, 4), ("1.",), "with_fastmcp.py"),
    Framework(
        "openai-agents", "openai-agents", "openai-agents", (0, 24), ("1.", "2."), "with_openai_agents.py"
    ),
    Framework("no-mcp", "", "koder-elicitation-relay", (0,), (), "without_mcp.py"),
]


@dataclass(frozen=True)
class Venv:
    framework: Framework
    path: Path
    # The framework's version pip picked for it alone, when the venv was made.
    alone: str | None

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def version(self, distribution: str) -> str | None:
        """The installed version of ``distribution`` (``None`` when it is not installed)."""
        probe = (
            "import importlib.metadata as m, sys\n"
            "try: print(m.version(sys.argv[1]))\n"
            "except m.PackageNotFoundError: print('')\n"
        )
        out = subprocess.run(
            [str(self.python), "-c", probe, distribution], capture_output=True, text=True, check=True
        )
        return out.stdout.strip() or None


def package_key(framework: Framework) -> str:
    digest = hashlib.sha256(framework.requirement.encode())
    files = [PACKAGE / "pyproject.toml", *sorted((PACKAGE / "src").rglob("*"))]
    for file in files:
        if file.is_file() and "__pycache__" not in file.parts:
            digest.update(str(file.relative_to(PACKAGE)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def ensure(framework: Framework) -> Venv:
    """The framework's venv, made now unless a venv of the same key is there."""
    prefix = f"{framework.name}-"
    path = VENVS / f"{prefix}{package_key(framework)}"
    stamp = path / STAMP
    if stamp.exists():
        return Venv(framework, path, json.loads(stamp.read_text())["alone"])
    VENVS.mkdir(parents=True, exist_ok=True)
    for stale in VENVS.iterdir():
        if re.fullmatch(rf"{re.escape(prefix)}[0-9a-f]{{16}}", stale.name):
            shutil.rmtree(stale, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    pip = [str(path / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "--quiet"]
    alone = None
    if framework.requirement:
        report = path / "alone.json"
        run(path, [*pip, "install", "--dry-run", "--report", str(report), framework.requirement])
        picked = json.loads(report.read_text())["install"]
        [alone] = [
            entry["metadata"]["version"]
            for entry in picked
            if _normal(entry["metadata"]["name"]) == _normal(framework.distribution)
        ]
    # The one command a user types.
    run(path, [*pip, "install", *([framework.requirement] if framework.requirement else []), str(PACKAGE)])
    stamp.write_text(json.dumps({"alone": alone}))
    return Venv(framework, path, alone)


def run(path: Path, command: list[str]) -> None:
    done = subprocess.run(
        command,
        check=False,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_SECONDS,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        shutil.rmtree(path, ignore_errors=True)
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def ensure_all() -> dict[str, Venv]:
    """Every framework's venv, made side by side (pip waits on the network more than the CPU)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return {venv.framework.name: venv for venv in pool.map(ensure, FRAMEWORKS)}


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")
