"""Fake agent homes for the scan and browser tests: the samples copied where each agent keeps its
sessions, under a home or under the folders the agents' variables name."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"

CLAUDE_PROJECT = "-home-dev-shop"
CODEX_DAY = ("2026", "11", "18")
PI_FOLDER = "--Users-dev-site--"


def populate(claude: Path, codex: Path, pi: Path, real: bool = False) -> dict[str, list[Path]]:
    """Copy the samples into the agents' folders (``claude`` is the config folder holding
    ``projects``, ``codex`` the one holding ``sessions``, ``pi`` the one holding ``sessions``).
    ``real`` adds the real sessions. Returns each agent's files. Each file gets its own time, a
    minute apart in the order listed, so "newest first" is well defined."""
    made: dict[str, list[Path]] = {"claude-code": [], "codex": [], "pi": []}
    project = claude / "projects" / CLAUDE_PROJECT
    sources = sorted((SAMPLES / "claude-code").glob("*.jsonl"))
    if real:
        sources += [SAMPLES / "real" / "claude-code" / n for n in ("short.jsonl", "tool_heavy.jsonl")]
    for src in sources:
        made["claude-code"].append(_copy(src, project / src.name))
    if real:
        sub = project / "55604662-cf2a-4331-851a-ec234028f8ca" / "subagents" / "agent-a1b2c3.jsonl"
        made["claude-code"].append(_copy(SAMPLES / "real" / "claude-code" / "subagent.jsonl", sub))
    day = codex.joinpath("sessions", *CODEX_DAY)
    for i, src in enumerate(sorted((SAMPLES / "codex").glob("*.jsonl"))):
        name = f"rollout-2026-11-18T09-1{i}-02-019a9b2e-4c71-7d02-9f3e-5b8a1c6d2e4{i}.jsonl"
        made["codex"].append(_copy(src, day / name))
    pi_sources = sorted((SAMPLES / "pi").glob("*.jsonl"))
    if real:
        pi_sources.append(SAMPLES / "real" / "pi" / "large-session.jsonl")
    for src in pi_sources:
        made["pi"].append(_copy(src, pi / "sessions" / PI_FOLDER / f"2025-11-20T10-00-00-000Z_{src.stem}.jsonl"))
    stamp = 1_790_000_000
    for path in [p for files in made.values() for p in files]:
        os.utime(path, (stamp, stamp))
        stamp += 60
    return made


def home_with_sessions(home: Path, real: bool = False) -> dict[str, list[Path]]:
    """The agents' default folders under ``home``."""
    return populate(home / ".claude", home / ".codex", home / ".pi" / "agent", real)


def _copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return dst


def env_for(home: Path, **extra: str) -> dict[str, str]:
    """An environment whose HOME is ``home``, with none of the agents' own variables unless given,
    and a cache folder inside ``home`` (never the person's own)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "XDG_CACHE_HOME", "SUTURE_CACHE_DIR")
    }
    env["HOME"] = str(home)
    env["SUTURE_CACHE_DIR"] = str(home / ".cache-suture")
    env.update(extra)
    return env


def use_home(home: Path, monkeypatch: pytest.MonkeyPatch, real: bool = False) -> Path:
    """This process in a fake ``home`` holding every agent's sample sessions (``real``: and the
    real ones), with its own cache and none of the agents' own variables, clocks shown in UTC."""
    home_with_sessions(home, real=real)
    for key, value in env_for(home).items():
        if key in ("HOME", "SUTURE_CACHE_DIR"):
            monkeypatch.setenv(key, value)
    for key in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    return home
