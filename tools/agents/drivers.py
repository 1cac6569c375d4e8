"""How to install, configure, run and resume each pinned real agent headless against the mock.

The agents are installed from npm into a cache folder outside the repository:
``$SUTURE_AGENTS_CACHE/<agent>-<version>/`` (default ``~/.cache/suture-agents``), with
``npm install --prefix DIR PACKAGE@VERSION``. Each run gets a fresh temporary HOME and the agent's
own config folder inside it (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``PI_CODING_AGENT_DIR``), so
nothing of the user's own setup is read or written.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.agents.mock import Call

CACHE_ENV = "SUTURE_AGENTS_CACHE"
#: A model id the mock answers as; the agents send it back in every request.
MOCK_MODEL = "mock-model"


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "suture-agents").expanduser()


def slow_command(marker: Path) -> str:
    """A shell command that says it started (``marker``) and then runs for two minutes."""
    return f"touch {shlex.quote(str(marker))} && python3 -c 'import time; time.sleep(120)'"


def fast_command(marker: Path) -> str:
    return f"touch {shlex.quote(str(marker))} && echo done-{marker.name}"


def answered_command(marker: Path) -> tuple[str, str]:
    """A fast shell command and the text it prints, which the command itself does not hold: found
    in a session file, the text is the command's result, not its call."""
    return f"touch {shlex.quote(str(marker))} && printf '%s-answered\\n' {marker.name}", f"{marker.name}-answered"


@dataclass(frozen=True)
class Run:
    """One agent process to start: its argv, environment additions and working directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path

    def shown(self, binary_name: str) -> str:
        """The command line as recorded: the cache path of the binary shortened to its name."""
        return shlex.join([binary_name, *self.argv[1:]])


class Agent:
    """One pinned agent. Subclasses give the package, the provider and the commands."""

    name: str
    version: str
    package: str
    provider: str
    bin_name: str

    #: The corpus folder's suffix for a provider the agent talks to besides its first one
    #: (``pi-0.73.1-anthropic``); empty for the first.
    variant: str = ""

    @property
    def folder(self) -> str:
        return f"{self.name}-{self.version}" + (f"-{self.variant}" if self.variant else "")

    def variants(self) -> list[Agent]:
        """This agent talking to each provider it is recorded with, the first one first."""
        return [self]

    @property
    def prefix(self) -> Path:
        return cache_root() / f"{self.name}-{self.version}"

    def binary(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / self.bin_name

    def installed(self) -> bool:
        return self.binary().exists() and self.installed_version() == self.version

    def installed_version(self) -> str | None:
        pkg = self.prefix / "node_modules" / Path(self.package) / "package.json"
        try:
            return str(json.loads(pkg.read_text())["version"])
        except (OSError, ValueError, KeyError):
            return None

    def install(self) -> None:
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is not on PATH: install Node.js 20 or newer to record the agents")
        self.prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--prefix", str(self.prefix), "--no-audit", "--no-fund", f"{self.package}@{self.version}"],
            check=True,
            timeout=1800,
        )

    # -- per agent --------------------------------------------------------------------------

    def prepare(self, home: Path, work: Path, url: str) -> None:
        """Write the agent's config into the temporary ``home``."""

    def base_env(self, home: Path, url: str) -> dict[str, str]:
        raise NotImplementedError

    def start(self, home: Path, work: Path, url: str, prompt: str) -> Run:
        raise NotImplementedError

    def resume(self, home: Path, work: Path, url: str, session: Path) -> Run:
        raise NotImplementedError

    def session_file(self, home: Path, work: Path) -> Path | None:
        """The session file the agent wrote, or None when it has not written one yet."""
        raise NotImplementedError

    def shell_call(self, command: str) -> Call:
        """The agent's own shell tool called with ``command``."""
        raise NotImplementedError

    def env(self, home: Path, url: str) -> dict[str, str]:
        path = os.environ.get("PATH", "/usr/bin:/bin")
        return {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb", **self.base_env(home, url)}


class ClaudeCode(Agent):
    name = "claude-code"
    version = "2.1.332"
    package = "@anthropic-ai/claude-code"
    provider = "anthropic"
    bin_name = "claude"

    def base_env(self, home: Path, url: str) -> dict[str, str]:
        return {
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_MAX_RETRIES": "2",
        }

    def start(self, home: Path, work: Path, url: str, prompt: str) -> Run:
        session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"suture-recorded/{home.name}"))
        argv = [
            str(self.binary()),
            "-p",
            prompt,
            "--output-format",
            "json",
            "--session-id",
            session_id,
            "--allowedTools",
            "Bash",
        ]
        return Run(argv, self.env(home, url), work)

    def resume(self, home: Path, work: Path, url: str, session: Path) -> Run:
        argv = [
            str(self.binary()),
            "-p",
            "--resume",
            session.stem,
            "continue",
            "--output-format",
            "json",
            "--allowedTools",
            "Bash",
        ]
        return Run(argv, self.env(home, url), work)

    def session_file(self, home: Path, work: Path) -> Path | None:
        found = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))
        return found[0] if found else None

    def shell_call(self, command: str) -> Call:
        return Call("Bash", {"command": command, "description": "Run the requested command"})


class Codex(Agent):
    name = "codex"
    version = "0.171.0"
    package = "@openai/codex"
    provider = "openai-responses"
    bin_name = "codex"

    def prepare(self, home: Path, work: Path, url: str) -> None:
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(
            f'model = "{MOCK_MODEL}"\n'
            'model_provider = "mock"\n'
            'approval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n'
            "check_for_update_on_startup = false\n"
            "\n[analytics]\nenabled = false\n"
            "\n[model_providers.mock]\n"
            'name = "mock"\n'
            f'base_url = "{url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "MOCK_API_KEY"\n'
            "request_max_retries = 0\n"
            "stream_max_retries = 0\n"
        )

    def base_env(self, home: Path, url: str) -> dict[str, str]:
        return {"CODEX_HOME": str(home / ".codex"), "MOCK_API_KEY": "dummy", "RUST_LOG": "error"}

    def start(self, home: Path, work: Path, url: str, prompt: str) -> Run:
        argv = [str(self.binary()), "exec", "--skip-git-repo-check", "--json", prompt]
        return Run(argv, self.env(home, url), work)

    def resume(self, home: Path, work: Path, url: str, session: Path) -> Run:
        session_id = session.stem[-36:]
        argv = [str(self.binary()), "exec", "--skip-git-repo-check", "--json", "resume", session_id, "continue"]
        return Run(argv, self.env(home, url), work)

    def session_file(self, home: Path, work: Path) -> Path | None:
        found = sorted((home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))
        return found[0] if found else None

    def shell_call(self, command: str) -> Call:
        return Call("exec_command", {"cmd": command, "yield_time_ms": 30000})


#: pi's ``api`` (its models.json ``providers.<name>.api``) for each provider the mock speaks:
#: the provider, the corpus folder's suffix, and the base URL pi is given (pi-ai's Anthropic client,
#: the Anthropic SDK, calls ``{baseUrl}/v1/messages``; its OpenAI clients ``{baseUrl}/responses``
#: and ``{baseUrl}/chat/completions``; its Gemini client, @google/genai with no API version of its
#: own, ``{baseUrl}/models/{model}:streamGenerateContent``). The first is the one the corpus was
#: first recorded with.
PI_APIS: dict[str, tuple[str, str, str]] = {
    "openai-completions": ("openai-chat", "", "/v1"),
    "anthropic-messages": ("anthropic", "anthropic", ""),
    "openai-responses": ("openai-responses", "responses", "/v1"),
    "google-generative-ai": ("gemini", "gemini", "/v1beta"),
}


class Pi(Agent):
    name = "pi"
    version = "0.73.1"
    package = "@mariozechner/pi-coding-agent"
    provider = "openai-chat"
    bin_name = "pi"
    api = "openai-completions"

    def with_api(self, api: str) -> Pi:
        """pi talking to the mock through ``api`` (a copy; this driver is left as it is)."""
        other = copy.copy(self)
        other.api = api
        other.provider, other.variant, _ = PI_APIS[api]
        return other

    def variants(self) -> list[Agent]:
        return [self.with_api(api) for api in PI_APIS]

    def prepare(self, home: Path, work: Path, url: str) -> None:
        agent_dir = home / ".pi" / "agent"
        agent_dir.mkdir(parents=True, exist_ok=True)
        mock: dict[str, Any] = {
            "baseUrl": url + PI_APIS[self.api][2],
            "api": self.api,
            "apiKey": "dummy",
            "models": [{"id": MOCK_MODEL}],
        }
        if self.api == "openai-completions":
            mock["compat"] = {"supportsDeveloperRole": False, "supportsReasoningEffort": False}
        models: dict[str, Any] = {"providers": {"mock": mock}}
        (agent_dir / "models.json").write_text(json.dumps(models, indent=2))
        (agent_dir / "settings.json").write_text(json.dumps({"defaultProvider": "mock", "defaultModel": MOCK_MODEL}))
        (home / "sessions").mkdir(exist_ok=True)

    def base_env(self, home: Path, url: str) -> dict[str, str]:
        return {
            "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
        }

    def start(self, home: Path, work: Path, url: str, prompt: str) -> Run:
        argv = [str(self.binary()), "--session-dir", str(home / "sessions"), "-p", prompt]
        return Run(argv, self.env(home, url), work)

    def resume(self, home: Path, work: Path, url: str, session: Path) -> Run:
        argv = [str(self.binary()), "--session", str(session.resolve()), "-p", "continue"]
        return Run(argv, self.env(home, url), work)

    def session_file(self, home: Path, work: Path) -> Path | None:
        found = sorted((home / "sessions").glob("*.jsonl"))
        return found[0] if found else None

    def shell_call(self, command: str) -> Call:
        return Call("bash", {"command": command})


AGENTS: dict[str, Agent] = {a.name: a for a in (ClaudeCode(), Codex(), Pi())}


def recorded_with(name: str, provider: str) -> Agent:
    """The pinned driver of agent ``name`` talking to ``provider`` (a shape folder's ``agent`` and
    ``provider``)."""
    found = [v for v in AGENTS[name].variants() if v.provider == provider]
    if not found:
        raise KeyError(f"{name} is not recorded talking to {provider}")
    return found[0]
