"""A writer appending to the file while the app watches and reloads it.

Thousands of appends, some split in the middle of a line (and of a character), land while the
app's watcher reloads; when the writer stops, the app shows exactly what a fresh load of the final
file shows. The waits below are bounds on how long to wait, not timing assertions.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from pathlib import Path

import orjson

import suture
from suture.tui.app import SutureApp

APPENDS = 2000


def _record(i: int) -> dict[str, object]:
    turn, step = divmod(i, 4)
    call_id = f"call_{turn % 7}"  # ids repeat: renames happen while the file grows
    if step == 0:
        return {"role": "user", "content": f"step {turn}: café ünïcode"}
    if step == 1:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "read", "arguments": "{}"}}],
        }
    if step == 2 and turn % 5 == 0:
        return {"role": "assistant", "content": ""}  # a placeholder between call and result
    if step == 2:
        return {"role": "tool", "tool_call_id": call_id, "content": "é" * (turn % 40)}
    return {"role": "assistant", "content": f"done with {turn}"}


def _write(path: Path, stop: threading.Event) -> None:
    rng = random.Random(7)
    with open(path, "ab", buffering=0) as f:
        for i in range(APPENDS):
            data = orjson.dumps(_record(i)) + b"\n"
            if rng.random() < 0.3:
                cut = rng.randrange(1, len(data))
                f.write(data[:cut])
                time.sleep(rng.random() / 2000)
                f.write(data[cut:])
            else:
                f.write(data)
            if rng.random() < 0.2:
                time.sleep(rng.random() / 1000)
    stop.set()


async def test_app_ends_showing_the_final_file(tmp_path: Path) -> None:
    path = tmp_path / "growing.jsonl"
    path.write_bytes(orjson.dumps({"role": "system", "content": "be careful"}) + b"\n")
    app = SutureApp(path, watch=True, debounce_ms=20)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if app.model is not None:
                break
        await pilot.pause(0.2)  # let the watcher start
        done = threading.Event()
        writer = threading.Thread(target=_write, args=(path, done))
        writer.start()
        while not done.is_set():
            await pilot.pause(0.05)
        writer.join()
        final = suture.load_file(path)
        expected = suture.repair(final.messages)
        for _ in range(600):  # up to 30 s for the last reload to land
            await pilot.pause(0.05)
            model = app.model
            if model is not None and len(model.transcript.messages) == len(final.messages):
                break
        await asyncio.sleep(0.2)
        model = app.model
        assert model is not None
        assert model.transcript.messages == final.messages
        assert model.repair.messages == expected.messages
        assert model.repair.changes == expected.changes
        assert app.status.state.error == ""
