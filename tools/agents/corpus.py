"""Reading the recorded corpus and checking that a shape folder is complete and well formed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tools.agents.rules import CHECKS, Violation
from tools.agents.trim import TRIMMED_KEYS, is_digest

FILES = ("shape.json", "session.jsonl", "resumed.jsonl", "requests.jsonl")
AGENT_NAMES = ("claude-code", "codex", "pi")
PROVIDERS = ("anthropic", "openai-responses", "openai-chat", "gemini")
SHAPE_KEYS = {"agent", "version", "shape", "description", "hand_edit", "provider", "resume", "recorded", "commands"}
REQUEST_KEYS = {"run", "seq", "path", "status", "error", "body"}


def folder_name(meta: dict[str, Any]) -> str:
    """The agent folder a shape's ``shape.json`` belongs in: ``<agent>-<version>``, and for a
    provider the agent is recorded with besides its first, that provider's suffix
    (``pi-0.73.1-anthropic``)."""
    from tools.agents.drivers import AGENTS, recorded_with

    variant = ""
    if meta.get("agent") in AGENTS:
        try:
            variant = recorded_with(meta["agent"], meta["provider"]).variant
        except KeyError:
            variant = f"({meta['provider']}: not a provider {meta['agent']} is recorded with)"
    return f"{meta.get('agent')}-{meta.get('version')}" + (f"-{variant}" if variant else "")


def shape_folders(root: Path) -> list[Path]:
    """Every ``<agent>-<version>/<shape>/`` folder under ``root``, sorted."""
    return sorted(p for p in root.glob("*/*") if p.is_dir())


def read_requests(folder: Path) -> list[dict[str, Any]]:
    with (folder / "requests.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def first_resume(requests: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first request the agent sent to the provider on resume."""
    return next((r for r in requests if r["run"] == "resume" and isinstance(r["body"], dict)), None)


def verdict(provider: str, body: Any) -> Violation | None:
    """The strict mock's verdict on a recorded (trimmed) body: trimming keeps the whole history."""
    return CHECKS[provider](body)


def problems(folder: Path) -> list[str]:
    """What is missing or malformed in one shape folder (empty when it is complete)."""
    out: list[str] = []
    missing = [f for f in FILES if not (folder / f).is_file()]
    if missing:
        return [f"missing {', '.join(missing)}"]
    try:
        meta = json.loads((folder / "shape.json").read_text(encoding="utf-8"))
    except ValueError as exc:
        return [f"shape.json is not JSON: {exc}"]
    if set(meta) != SHAPE_KEYS:
        out.append(f"shape.json keys {sorted(meta)} are not {sorted(SHAPE_KEYS)}")
        return out
    if meta["agent"] not in AGENT_NAMES or folder.parent.name != folder_name(meta):
        out.append(f"agent/version {meta['agent']} {meta['version']} do not match folder {folder.parent.name}")
    if meta["shape"] != folder.name:
        out.append(f"shape {meta['shape']!r} does not match folder {folder.name}")
    if meta["provider"] not in PROVIDERS:
        out.append(f"unknown provider {meta['provider']!r}")
    if not (isinstance(meta["description"], str) and meta["description"]):
        out.append("no description")
    if meta["hand_edit"] is not None and not (isinstance(meta["hand_edit"], str) and meta["hand_edit"]):
        out.append("hand_edit is neither null nor a sentence")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(meta["recorded"])):
        out.append(f"recorded {meta['recorded']!r} is not an ISO date")
    if not (isinstance(meta["commands"], list) and len(meta["commands"]) >= 2):
        out.append("commands should list the crash run and the resume run")
    resume = meta["resume"]
    if not isinstance(resume, dict) or set(resume) != {"outcome", "status", "error"}:
        return [*out, f"resume is malformed: {resume!r}"]
    for name in ("session.jsonl", "resumed.jsonl"):
        if not (folder / name).read_bytes().strip():
            out.append(f"{name} is empty")
    try:
        requests = read_requests(folder)
    except ValueError as exc:
        return [*out, f"requests.jsonl has a line that is not JSON: {exc}"]
    for i, r in enumerate(requests, 1):
        if set(r) != REQUEST_KEYS:
            out.append(f"request {i}: keys {sorted(r)}")
            continue
        if r["seq"] != i or r["run"] not in ("crash", "resume"):
            out.append(f"request {i}: seq {r['seq']} run {r['run']!r}")
        body = r["body"]
        if isinstance(body, dict):
            for key in TRIMMED_KEYS.get(meta["provider"], ()):
                if key in body and not is_digest(body[key]):
                    out.append(f"request {i}: {key} is not trimmed to its hash")
    runs = [r["run"] for r in requests]
    if "crash" not in runs or "resume" not in runs or runs != sorted(runs):
        out.append(f"requests should be the crash run's then the resume run's: {runs}")
    first = first_resume(requests)
    if first is None:
        return [*out, "no request on resume"]
    expected = "accepted" if first["status"] == 200 else "rejected"
    if (resume["outcome"], resume["status"], resume["error"]) != (expected, first["status"], first["error"]):
        out.append(f"resume {resume} does not match the first resume request ({first['status']}, {first['error']!r})")
    judged = verdict(meta["provider"], first["body"])
    if (judged is None) != (resume["outcome"] == "accepted") or (
        judged is not None and judged.message != resume["error"]
    ):
        out.append(f"the mock's rules now judge the first resume request {judged}, recorded {resume}")
    return out


def _item_summary(provider: str, item: Any) -> str:
    """One history entry of a request, in a few characters: role and block kinds."""
    if not isinstance(item, dict):
        return "?"
    if provider == "gemini":
        keys = [next(iter(p), "?") if isinstance(p, dict) else "?" for p in item.get("parts") or []]
        return f"{item.get('role', '?')}[{','.join(keys)}]"
    if provider == "openai-responses":
        kind = str(item.get("type", "message"))
        if kind == "message":
            return str(item.get("role", "?"))
        if kind.endswith("_output"):
            out = item.get("output")
            return f"{kind.removesuffix('_call_output')}-out" + ("(aborted)" if out == "aborted" else "")
        return kind
    role = str(item.get("role", "?"))
    if provider == "openai-chat":
        if role == "assistant" and item.get("tool_calls"):
            return f"assistant[{len(item['tool_calls'])} call]"
        if role == "tool":
            return "tool" + ("(No result provided)" if item.get("content") == "No result provided" else "")
        return role
    content = item.get("content")
    if not isinstance(content, list):
        return role
    kinds = []
    for b in content:
        kind = str(b.get("type", "?")) if isinstance(b, dict) else "?"
        if kind == "tool_result" and b.get("is_error"):
            kind += "!"
        kinds.append(kind.replace("tool_result", "result").replace("tool_use", "use"))
    return f"{role}[{','.join(kinds)}]"


def table(root: Path) -> str:
    """A Markdown table: agent x shape -> the history sent on resume and the mock's answer."""
    rows = ["| agent | shape | history sent on resume | mock's answer |", "|---|---|---|---|"]
    for folder in shape_folders(root):
        meta = json.loads((folder / "shape.json").read_text(encoding="utf-8"))
        first = first_resume(read_requests(folder))
        if first is None:
            continue
        body = first["body"]
        history = body.get({"openai-responses": "input", "gemini": "contents"}.get(meta["provider"], "messages"))
        shown = [_item_summary(meta["provider"], m) for m in history or []]
        shown = [s for s in shown if s not in ("developer", "system")]
        judged = verdict(meta["provider"], body)
        answer = "accepted" if judged is None else f"rejected {judged.rule}"
        rows.append(f"| {folder.parent.name} | {folder.name} | {' '.join(shown)} | {answer} |")
    return "\n".join(rows)
