"""The recorded corpus (``sample_sessions/recorded``) as the as-sent tests read it: each shape
folder, its ``shape.json``, and the history the real agent sent on resume set beside the one suture
says it sends, both without what the agent adds at send time and is not history (the new prompt,
Claude Code's ``system`` messages, ``<system-reminder>`` blocks and ``cache_control`` markers, the
system prompt pi sends first, Codex's instructions and environment context, the ids Codex makes
up for the outputs it inserts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from suture.formats import load_file
from suture.sent import as_sent
from tools.agents.corpus import first_resume, read_requests, shape_folders
from tools.agents.record import CORPUS

FOLDERS = shape_folders(CORPUS)
IDS = [f"{f.parent.name}/{f.name}" for f in FOLDERS]
RESUME_PROMPT = "continue"
"""What the harness types when it resumes a session (``tools/agents/drivers.py``)."""


def shape(folder: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((folder / "shape.json").read_text())
    return value


def _text(block: Any) -> str | None:
    if isinstance(block, dict) and block.get("type") in ("text", "input_text") and isinstance(block.get("text"), str):
        return str(block["text"])
    return None


def without_prompt(history: list[Any]) -> list[Any]:
    """The history without the new prompt: the last user message, or its last text block."""
    if not history or history[-1].get("role") != "user":
        return history
    last = history[-1]
    content = last.get("content")
    if content == RESUME_PROMPT or last.get("parts") == [{"text": RESUME_PROMPT}]:  # (Gemini: parts)
        return history[:-1]
    if isinstance(content, list) and content and _text(content[-1]) == RESUME_PROMPT:
        rest = content[:-1]
        return [*history[:-1], {**last, "content": rest}] if rest else history[:-1]
    return history


def anthropic_blocks(messages: list[Any]) -> list[Any]:
    out = []
    for m in messages:
        if m["role"] == "system":
            continue
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        kept = []
        for block in blocks:
            block = {k: v for k, v in block.items() if k != "cache_control"}
            if (_text(block) or "").startswith("<system-reminder>"):
                continue
            kept.append(block)
        out.append({"role": m["role"], "content": kept})
    return out


def codex_items(items: list[Any]) -> list[Any]:
    """Responses items to compare, without the context Codex sends around the history: its
    instructions (developer messages) and the environment context (a user message of
    ``<environment_context>``), which it also sends again after a compaction."""
    out = []
    for item in items:
        if item.get("type") == "message":
            first = (item.get("content") or [{}])[0]
            text = first.get("text", "") if isinstance(first, dict) else ""
            if item.get("role") in ("developer", "system") or text.startswith("<environment_context>"):
                continue
        if str(item.get("type", "")).endswith("_output"):
            item = {k: v for k, v in item.items() if k != "id"}
        out.append(item)
    return out


def compared(folder: Path, wire: list[Any] | None = None) -> tuple[list[Any], list[Any]]:
    """(the history the real agent sent, the history suture says it sends: ``wire``, or
    ``as_sent`` of the session), both without what the agent adds at send time."""
    meta = shape(folder)
    first = first_resume(read_requests(folder))
    assert first is not None, "no resume request was recorded"
    body = first["body"]
    if wire is None:
        wire = as_sent(load_file(folder / "session.jsonl")).wire
    if meta["agent"] == "claude-code":
        return without_prompt(anthropic_blocks(body["messages"])), anthropic_blocks(wire)
    if meta["agent"] == "codex":
        return codex_items(without_prompt(body["input"])), codex_items(wire)
    history = body[{"openai-responses": "input", "gemini": "contents"}.get(meta["provider"], "messages")]
    real = [m for m in history if m.get("role") not in ("system", "developer")]
    return without_prompt(real), wire


STRICT = {
    "anthropic": "anthropic",
    "openai-responses": "openai-responses-strict",
    "openai-chat": "openai-chat",
    "gemini": "gemini",
}
"""The suture provider whose rules are the strict mock's, for each provider the agents talk to: the
mock's Responses endpoint is strict (R7: nothing between a call and its output; R9: one output per
call), so Responses shapes are judged by suture's strict profile."""


def blank_second_prompt(tmp_path: Path) -> Path:
    """The recorded session where Claude Code leaves out a call that never got a result and joins
    the prompts before and after it (lines 3 and 22) into one message, the second prompt given a
    whitespace-only text block: Anthropic rejects the joined message for a block of line 22."""
    source = CORPUS / "claude-code-2.1.328" / "dangling-call-then-later-turns" / "session.jsonl"
    lines = source.read_text().splitlines()
    record = json.loads(lines[21])
    assert record["message"] == {"role": "user", "content": "What is the status?"}
    record["message"]["content"] = [{"type": "text", "text": "What is the status?"}, {"type": "text", "text": "  "}]
    lines[21] = json.dumps(record)
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def session_record(kind: str, n: int, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """Record ``n`` of a Claude Code session, chained to the one before it."""
    return {
        "type": kind,
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n else None,
        "sessionId": "s",
        "isSidechain": False,
        "message": message,
        **extra,
    }


def session_lines(events: list[tuple[str, Any]]) -> list[bytes]:
    """The lines of a Claude Code session, one for each of ``events``: ``("user", content)``, a
    user record; ``("assistant", (message id, block))``, a line of a response (the lines of one id
    are one response); ``("error", None)``, an API error record."""
    lines = []
    for n, (kind, what) in enumerate(events):
        if kind == "user":
            record = session_record("user", n, {"role": "user", "content": what})
        elif kind == "assistant":
            mid, block = what
            record = session_record("assistant", n, {"id": mid, "role": "assistant", "content": [block]})
        else:
            record = {
                "type": "system",
                "subtype": "api_error",
                "level": "error",
                "uuid": f"u{n}",
                "parentUuid": f"u{n - 1}",
                "sessionId": "s",
            }
        lines.append(orjson.dumps(record) + b"\n")
    return lines


def thinking_after_text(session: Path) -> bytes:
    """A Claude Code session (``session``, a real one whose assistant message starts with a
    whitespace-only text block before its thinking) with that block given text: text, then
    thinking (A12), which neither suture's repair nor Claude Code mends, so what Claude Code sends
    from the session suture repair writes is still rejected."""
    lines = session.read_bytes().splitlines()
    k = next(i for i, line in enumerate(lines) if b'"text":"\\n\\n"' in line)
    lines[k] = lines[k].replace(b'"text":"\\n\\n"', b'"text":"Looking."')
    return b"\n".join(lines) + b"\n"
