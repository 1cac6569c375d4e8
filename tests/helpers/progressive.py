"""A large file for the app to load in pieces, and waiting (a bounded while) for what it shows."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson

SIZE = (150, 40)


def records(n: int, start: int = 0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(start, start + n):
        out.append({"role": "user", "content": f"question {i} " * 5})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        if i % 7:  # every seventh call has no result: a change to repair
            out.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i} " * 5})
    return out


def write(path: Path, items: list[dict[str, Any]]) -> None:
    if path.suffix == ".jsonl":
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in items))
    else:
        path.write_bytes(orjson.dumps({"model": "m", "messages": items}, option=orjson.OPT_INDENT_2))


async def until(condition: Any, what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")
