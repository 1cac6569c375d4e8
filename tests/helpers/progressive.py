"""A large file for the app to load in pieces, the app on it with its read held after the first
screen, and waiting (a bounded while) for what it shows."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

import suture.tail
from suture.tail import Tail
from suture.tui.app import SutureApp
from suture.tui.rows import RowModel

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


def in_small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large file's first read goes in pieces of a few KB, so a few hundred records make many."""
    monkeypatch.setattr(suture.tail, "FIRST_PIECE", 4000)
    monkeypatch.setattr(suture.tail, "MAX_PIECE", 8000)


def hold_read(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Read a large file in small pieces, and stop after its first screen until the returned event
    is set: the next piece of a JSONL file (an append), the next state of a JSON document (a
    preview; its first is the first screen)."""
    in_small_pieces(monkeypatch)
    monkeypatch.setattr(suture.tail, "PROGRESS_EVERY", 0.0)
    go_on = threading.Event()
    previews = {"n": 0}
    append, preview = Tail._append, Tail._preview

    def wait() -> None:
        if not go_on.wait(20):
            raise TimeoutError("the test never let the read go on")

    def held_append(self: Tail, *args: Any) -> Any:
        wait()
        return append(self, *args)

    def held_preview(self: Tail, *args: Any) -> Any:
        previews["n"] += 1
        if previews["n"] > 1:
            wait()
        return preview(self, *args)

    monkeypatch.setattr(Tail, "_append", held_append)
    monkeypatch.setattr(Tail, "_preview", held_preview)
    return go_on


@dataclass(frozen=True, slots=True)
class Held:
    """The app on a large file whose read is held after its first screen (:func:`held_app`)."""

    path: Path
    app: SutureApp
    pilot: Any
    go_on: threading.Event
    first: RowModel
    """The rows of the first screen: a part of the file's."""

    async def let_go(self) -> None:
        """Let the held read go on, and wait until the whole file is shown."""
        self.go_on.set()
        await until(lambda: self.app.shown_version > 0, "the whole file shown")


@contextlib.asynccontextmanager
async def held_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str = ".jsonl", items: list[dict[str, Any]] | None = None
) -> AsyncIterator[Held]:
    """The app on a file of 300 records (``big{suffix}``; ``items`` in their place) read in small
    pieces and held after its first screen (:func:`hold_read`): yields once that screen is shown,
    its rows a part of the file. The read is let go on when the block ends, however it ends."""
    path = tmp_path / f"big{suffix}"
    write(path, records(300) if items is None else items)
    go_on = hold_read(monkeypatch)
    app = SutureApp(path, watch=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda: app.model is not None, "a first screen")
            await pilot.pause()
            model = app.model
            assert model is not None and model.partial
            yield Held(path, app, pilot, go_on, model)
    finally:
        go_on.set()
