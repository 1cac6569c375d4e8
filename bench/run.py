"""Every suture benchmark in one command, each figure beside its floor and its budget.

    python bench/run.py            # the budgets' sizes (100k messages, a 45 MB file), best of 5
    python bench/run.py --quick    # 10k messages, best of 3: a smoke run, not the budgets
    python bench/run.py --only repair,load
    python bench/run.py --size 1m --runs 1   # the 1M-message files, for scale (budgets are at 100k)
    python bench/run.py --only scan          # suture scan: 10,000 session files, 1 core, every core, Dask
    python bench/run.py --only browser       # the sessions browser on 300 sessions, cold: first rows
    SUTURE_BENCH_REALTIME=1 python bench/run.py --only first   # on a shared machine: the programs
                                             # compared are run under chrt -r 1, as if it were idle
    python bench/run.py --only firstwork --size 10k   # the same first screens counted in machine
                                             # instructions (valgrind): the same figure on every run
    python bench/run.py --only checks        # keys in the app while its provider checks run
    python bench/run.py --only recheck       # provider checks after a one-line append, resumed
    python bench/run.py --only append --size 1m --runs 1   # the app shows a line appended to 1M messages
    python bench/run.py --only live          # the verdict's lag while an agent writes its session

Each benchmark runs in a fresh Python process (so one's heap does not slow the next) and times
its floor and its subject in that same process; each figure is the best of several runs. A ratio
is subject / floor; PASS when it is within the budget. Files come from ``bench/generate.py``
(made on first use, into ``bench/data/``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402

SECTIONS = (
    "repair",
    "load",
    "cli",
    "tail",
    "multi",
    "first",
    "firstwork",
    "app",
    "append",
    "checks",
    "recheck",
    "live",
    "scan",
    "browser",
)


def best(fn: Callable[[], Any], runs: int, clock: Callable[[], float] = time.process_time) -> float:
    """The shortest of ``runs`` timings of ``fn``, the collector settled before each.

    In-process figures are CPU time of this process by default: the work is single-threaded and
    reads cached files, so on an idle machine CPU time is the wall time, and on a shared one it
    is what stays stable. Wall-clock figures (whole processes, cores, the app) say so."""
    times = []
    for _ in range(runs):
        gc.collect()
        t = clock()
        result = fn()
        times.append(clock() - t)
        del result
    return min(times)


def row(
    name: str,
    figure: float,
    floor: float | None,
    floor_name: str,
    budget: float | None,
    unit: str = "s",
    kind: str = "ratio",
    note: str = "",
) -> dict[str, Any]:
    """One line of the report. ``kind`` is ``ratio`` (figure / floor <= budget), ``max`` (figure
    <= budget, absolute) or ``min`` (figure >= budget, e.g. a speed-up)."""
    return {
        "name": name,
        "figure": figure,
        "floor": floor,
        "floor_name": floor_name,
        "budget": budget,
        "unit": unit,
        "kind": kind,
        "note": note,
    }


# -- the sections (each runs in its own process) --------------------------------------------------


def section_repair(size: str, runs: int) -> list[dict[str, Any]]:
    import orjson

    from suture.formats import load_bytes
    from suture.repair import repair

    data = generate.ensure(f"chat-{size}.json").read_bytes()
    floor = best(lambda: orjson.loads(data), runs)
    transcript = load_bytes(data)
    n = len(transcript.messages)
    figure = best(lambda: repair(transcript.messages), runs)
    return [row(f"repair() of {n:,} chat messages", figure, floor, "orjson.loads", 0.5)]


def _per_line(data: bytes) -> list[Any]:
    import orjson

    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def section_load(size: str, runs: int) -> list[dict[str, Any]]:
    import orjson

    from suture.formats import load_bytes

    out = []
    for name in (f"chat-{size}.json", f"chat-{size}.jsonl", f"claude-code-{size}.jsonl"):
        data = generate.ensure(name).read_bytes()
        if name.endswith(".jsonl"):
            floor = best(partial(_per_line, data), runs)
            floor_name = "orjson.loads per line"
        else:
            floor = best(partial(orjson.loads, data), runs)
            floor_name = "orjson.loads"
        figure = best(partial(load_bytes, data), runs)
        n = len(load_bytes(data).messages)
        out.append(row(f"load {name} ({len(data) / 1e6:.0f} MB, {n:,} messages)", figure, floor, floor_name, 2.0))
    return out


def _run_child(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall time and peak RSS (bytes, from the child's own rusage) of one child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {err.strip()[-400:]}")
    return wall, usage.ru_maxrss * 1024


BARE = (
    "import sys, orjson\n"
    "data = open(sys.argv[1], 'rb').read()\n"
    "value = orjson.loads(data)\n"
    "open(sys.argv[2], 'wb').write(orjson.dumps(value))\n"
)


def section_cli(size: str, runs: int) -> list[dict[str, Any]]:
    name = "chat-45mb.json" if size == "100k" else f"chat-{size}.json"
    path = generate.ensure(name)
    _compiled()  # the process as an install runs it, not compiling suture on every launch
    out_dir = Path(tempfile.mkdtemp(prefix="suture-bench-", dir=generate.DATA))
    try:
        bare = [sys.executable, "-c", BARE, str(path), str(out_dir / "bare.json")]
        subject = [sys.executable, "-m", "suture", "repair", str(path), "-o", str(out_dir / "repaired.json"), "-q"]
        bare_times, bare_rss, times, rss = [], [], [], []
        for _ in range(runs):  # interleaved, so a busy moment hits both
            t, r = _run_child(bare)
            bare_times.append(t)
            bare_rss.append(r)
            t, r = _run_child(subject)
            times.append(t)
            rss.append(r)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    mb = path.stat().st_size / 1e6
    return [
        row(
            f"suture repair {name} ({mb:.0f} MB), whole process",
            min(times),
            min(bare_times),
            "python + orjson read/parse/dump",
            2.0,
        ),
        row(
            f"suture repair {name}, peak RSS",
            min(rss) / 1e6,
            min(bare_rss) / 1e6,
            "the same bare process",
            2.0,
            unit="MB",
        ),
    ]


def _last_uuid(path: Path) -> str | None:
    """The uuid of the last record of a JSONL file that has one."""
    import orjson

    for line in reversed(path.read_bytes().splitlines()):
        record = orjson.loads(line)
        if isinstance(record, dict) and isinstance(record.get("uuid"), str):
            return str(record["uuid"])
    return None


def section_tail(size: str, runs: int) -> list[dict[str, Any]]:
    import orjson

    from suture.formats import load_file
    from suture.repair import repair
    from suture.tail import Tail

    out = []
    for source in (f"chat-{size}.jsonl", f"claude-code-{size}.jsonl"):
        original = generate.ensure(source)
        work = Path(tempfile.mkdtemp(prefix="suture-tail-", dir=generate.DATA))
        try:
            path = work / source
            shutil.copyfile(original, path)

            def full(path: Path = path) -> Any:
                t = load_file(path)
                return t, repair(t.messages)

            floor = best(full, max(2, runs - 2))
            tail = Tail(path)
            first = tail.poll()
            n = len(first.transcript.messages)
            times: list[float] = []
            walls: list[float] = []
            kinds = set()
            parent = _last_uuid(path) if source.startswith("claude-code") else None
            for i in range(runs * 3):
                if source.startswith("chat"):
                    record: dict[str, Any] = {"role": "user", "content": f"one more thing ({i})"}
                else:
                    uuid = f"00000000-0000-4000-a000-{i:012d}"
                    record = {
                        "type": "user",
                        "uuid": uuid,
                        "parentUuid": parent,
                        "sessionId": "3f2b8c1e-0d4a-4e8b-9a61-5c7e2f9d0b13",
                        "isSidechain": False,
                        "message": {"role": "user", "content": f"one more thing ({i})"},
                    }
                    parent = uuid
                with open(path, "ab") as f:
                    f.write(orjson.dumps(record) + b"\n")
                gc.collect()
                t, c = time.perf_counter(), time.process_time()
                update = tail.poll()
                walls.append(time.perf_counter() - t)
                times.append(time.process_time() - c)
                kinds.add(update.kind)
                if update.kind == "full" and i >= 1:
                    break  # no incremental path for this format: two full reads say enough
            figure = min(times)
            how = "read the new bytes only" if kinds == {"append"} else f"polls were: {', '.join(sorted(kinds))}"
            label = f"append one message to {source} ({n:,} messages)"
            out.append(row(label, figure, floor, "full load + repair (CPU time)", 0.02, note=how))
            out.append(
                row(
                    f"{label}, wall",
                    min(walls) * 1000,
                    None,
                    "",
                    150,
                    unit="ms",
                    kind="max",
                    note=f"{how}; slowest {max(walls) * 1000:.1f} ms",
                )
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
    out.append(_real_session_written())
    return out


REAL_SESSION = BENCH.parent / "sample_sessions" / "real" / "claude-code" / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
"""A real Claude Code session (3.4 MB, 1,881 lines): its tools' progress lines, its results hanging
off the call's line, as Claude Code wrote them."""


def _real_session_written(start: int = 1400, lines_a_write: int = 3) -> dict[str, Any]:
    """The real session written again from line ``start`` on, ``lines_a_write`` lines at a time
    (as it was written: a running tool's progress lines leave the branch at most writes), each
    write polled: the median CPU time of a poll against a full load and repair of the file."""
    import statistics

    from suture.formats import load_file
    from suture.repair import repair
    from suture.tail import Tail

    lines = REAL_SESSION.read_bytes().splitlines(keepends=True)
    work = Path(tempfile.mkdtemp(prefix="suture-tail-real-", dir=generate.DATA))
    try:
        path = work / REAL_SESSION.name
        shutil.copyfile(REAL_SESSION, path)

        def full() -> Any:
            t = load_file(path)
            return t, repair(t.messages)

        floor = best(full, 3)
        path.write_bytes(b"".join(lines[:start]))
        tail = Tail(path)
        tail.poll()
        times: list[float] = []
        kinds: list[str] = []
        for k in range(start, len(lines), lines_a_write):
            with open(path, "ab") as f:
                f.write(b"".join(lines[k : k + lines_a_write]))
            t = time.process_time()
            kinds.append(tail.poll().kind)
            times.append(time.process_time() - t)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    read_whole = kinds.count("full")
    return row(
        f"real Claude Code session, {lines_a_write} lines a write (median)",
        statistics.median(times),
        floor,
        "full load + repair (CPU time)",
        None,
        note=f"{REAL_SESSION.name} (3.4 MB) written again from line {start:,}:"
        f" {len(kinds) - read_whole} of {len(kinds)} writes read as appends, {read_whole} read whole"
        f"; the slowest poll {max(times) * 1000:.1f} ms, all {sum(times) * 1000:.0f} ms",
    )


def section_multi(size: str, runs: int) -> list[dict[str, Any]]:
    name = f"chat-{ {'1m': '100k', '100k': '10k'}.get(size, '1k') }.json"
    original = generate.ensure(name)
    work = Path(tempfile.mkdtemp(prefix="suture-multi-", dir=generate.DATA))
    try:
        files = []
        for i in range(8):
            p = work / f"in{i}.json"
            shutil.copyfile(original, p)
            files.append(str(p))
        argv = [sys.executable, "-m", "suture", "repair", *files, "--out-dir", str(work / "out"), "-q"]
        cores = len(os.sched_getaffinity(0))
        one_core = ["taskset", "-c", str(min(os.sched_getaffinity(0))), *argv]
        t1, tn = [], []
        for _ in range(max(2, runs - 2)):
            t1.append(_run_child(one_core)[0])
            tn.append(_run_child(argv)[0])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    speedup = min(t1) / min(tn)
    return [
        row(
            f"suture repair of 8 x {name} --out-dir, {cores} cores vs 1",
            speedup,
            None,
            "",
            0.75 * cores,
            unit="x",
            kind="min",
            note=f"1 core {min(t1):.2f} s, {cores} cores {min(tn):.2f} s",
        ),
    ]


def _since_launch() -> float:
    """Seconds since this process was created (the kernel's start time, in clock ticks)."""
    ticks = os.sysconf("SC_CLK_TCK")
    start = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]) / ticks
    return float(Path("/proc/uptime").read_text().split()[0]) - start


def section_app(size: str, runs: int) -> list[dict[str, Any]]:
    path = generate.ensure(f"chat-{size}.json")  # made before the clock starts
    launched = _since_launch()  # Python's own start-up, before anything of suture is imported
    t = time.perf_counter()
    from suture.tui.app import SutureApp

    rows = asyncio.run(_app(SutureApp, path, launched, time.perf_counter() - t))
    return rows + asyncio.run(_app_append(SutureApp, generate.ensure(f"chat-{size}.jsonl")))


def section_append(size: str, runs: int) -> list[dict[str, Any]]:
    """Only the app's append (the ``app`` section measures it too, after its first screen)."""
    from suture.tui.app import SutureApp

    return asyncio.run(_app_append(SutureApp, generate.ensure(f"chat-{size}.jsonl")))


async def _settle(app: Any, pilot: Any, *, but: str | None = None) -> None:
    """The app's background work done (but the file watcher), with a time limit: a benchmark
    that waits for ever measures nothing."""
    workers = [w for w in app.workers if but is None or w.group != but]
    # Not wait_for_complete([]): an empty list means every worker to it, the file watcher too,
    # which never ends; and a timeout there cancels the workers it waits for. That was the stall
    # of this benchmark: no reload ever came, because the watcher had been cancelled.
    if workers:
        with contextlib.suppress(Exception):  # a cancelled or failed worker is done too
            await asyncio.wait_for(asyncio.shield(app.workers.wait_for_complete(workers)), timeout=120)
    await pilot.pause()


async def _app_append(app_class: Any, original: Path) -> list[dict[str, Any]]:
    """From appending one line to a watched file until the app shows it (wall)."""
    import orjson

    work = Path(tempfile.mkdtemp(prefix="suture-app-", dir=generate.DATA))
    path = work / original.name
    shutil.copyfile(original, path)
    times: list[float] = []
    try:
        app = app_class(path, watch=True)
        async with app.run_test(size=(160, 45)) as pilot:
            while app.model is None:
                await asyncio.sleep(0.005)
            await _settle(app, pilot, but="watch")
            await asyncio.sleep(0.5)  # the watcher is up
            for i in range(5):
                n = len(app.model.transcript.messages)
                t = time.perf_counter()
                with open(path, "ab") as f:
                    f.write(orjson.dumps({"role": "user", "content": f"one more thing ({i})"}) + b"\n")
                while len(app.model.transcript.messages) == n and time.perf_counter() - t < 30:
                    await asyncio.sleep(0.002)
                if len(app.model.transcript.messages) == n:  # say what the app was doing
                    workers = ", ".join(f"{w.name} {w.state.name} {w.error!r}" for w in app.workers)
                    raise RuntimeError(f"append {i} not shown in 30 s; workers: {workers}")
                times.append(time.perf_counter() - t)
                await pilot.pause()
                await asyncio.sleep(0.3)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    debounce = app.debounce_ms
    return [
        row(
            f"app: append one message to {original.name}, until shown (wall)",
            min(times) * 1000,
            None,
            "",
            150,
            unit="ms",
            kind="max",
            note=f"slowest {max(times) * 1000:.0f} ms; the watcher's debounce is {debounce} ms",
        ),
    ]


KEYS = ("down", "pagedown", "up")
FLOOR_KEY = "f11"  # bound to nothing: what a key costs the harness and Textual's dispatch alone
PRESSES = 60


async def _app(app_class: Any, path: Path, launched: float, imported: float) -> list[dict[str, Any]]:
    """The first screen (from process start until the first frame with rows is written to the
    terminal), then the UI thread's CPU time per key once the background work is done."""
    keys: dict[str, list[tuple[float, float]]] = {k: [] for k in (FLOOR_KEY, *KEYS)}
    # One launch per process: the app's background work (provider checks) outlives a test run and
    # would slow the next launch; main() runs this section more than once and keeps the best.
    t, c = time.perf_counter(), time.process_time()
    app = app_class(path, watch=False)
    painted: list[float] = []
    display = app._display
    drawn = False

    def spy_draw(*args: Any) -> Any:
        nonlocal drawn
        drawn = True
        return draw(*args)

    def spy_display(screen: Any, update: Any) -> Any:
        result = display(screen, update)
        if drawn and not painted:
            painted.extend((time.perf_counter() - t, time.process_time() - c))
        return result

    app._display = spy_display
    async with app.run_test(size=(160, 45)) as pilot:
        draw = app.view._draw
        app.view._draw = spy_draw  # rows are drawn only once the transcript is loaded
        while not painted:
            await asyncio.sleep(0.002)
        first, first_cpu = launched + imported + painted[0], painted[1]
        # Keys once the app's own background work is done, timed on the thread that draws.
        await _settle(app, pilot)
        for key in keys:
            for _ in range(PRESSES):
                t0, c0 = time.perf_counter(), time.thread_time()
                await pilot.press(key)
                await pilot.pause()
                keys[key].append((time.thread_time() - c0, time.perf_counter() - t0))
    out = [
        row(
            f"app first screen of {path.name} (wall, from process start)",
            first,
            None,
            "",
            2.0,
            kind="max",
            note=f"Python's start-up {launched:.2f} s, importing the app {imported:.2f} s, then "
            f"{painted[0]:.2f} s ({first_cpu:.2f} s CPU) to load, repair and draw",
        ),
    ]
    floor = sorted(c for c, _ in keys[FLOOR_KEY])[PRESSES // 2]
    for key in KEYS:
        cpu = sorted(c for c, _ in keys[key])
        wall = sorted(w for _, w in keys[key])
        median = cpu[len(cpu) // 2]
        out.append(
            row(
                f"app key {key}: UI-thread CPU per key, median of {PRESSES}",
                median * 1000,
                None,
                "",
                16,
                unit="ms",
                kind="max",
                note=f"{(median - floor) * 1000:.1f} ms above an unbound key ({floor * 1000:.1f} ms, Pilot and "
                f"dispatch); wall median {wall[len(wall) // 2] * 1000:.1f} ms; slowest CPU {cpu[-1] * 1000:.1f} ms",
            ),
        )
    return out


# -- keys while the provider checks run ------------------------------------------------------------

CHECK_PRESSES = 150
"""Keys pressed while the checks run, at most (a 100k history's checks take several seconds)."""


def section_recheck(size: str, runs: int) -> list[dict[str, Any]]:
    """The provider checks after a one-line append: resumed (``suture.checks.resume.Checks``,
    what the app runs after an append) against checking the whole history again (what it ran
    before, in a child process), both in CPU time, every provider before and after repair; for
    a file written for no single provider (the AI SDK's), its Valid property too; for a session
    log (Claude Code, Codex, pi), what its agent sends on resume and every verdict on that."""
    from suture.checks import verdicts
    from suture.checks.resume import Checks
    from suture.formats import load_file
    from suture.model import Message
    from suture.repair import Repair, repair, repair_from

    out = []
    for source in (f"chat-{size}.jsonl", f"claude-code-{size}.jsonl"):
        messages = list(load_file(generate.ensure(source)).messages)
        n = len(messages)
        result = repair(messages)

        def whole(m: list[Message] = messages, r: Repair = result) -> object:
            return verdicts(m, repaired=r)

        floor = best(whole, max(1, min(runs, 2)))
        checks = Checks()
        checks.verdicts(messages, result)
        times = []
        for i in range(runs * 3):
            before = len(messages)
            messages.append(Message("user", f"one more thing ({i})"))
            result = repair_from(result, messages, before)
            gc.collect()
            t = time.process_time()
            checks.verdicts(messages, result, same=before)
            times.append(time.process_time() - t)
        note = f"slowest {max(times) * 1000:.1f} ms; the whole check {floor:.1f} s"
        if source.startswith("claude-code"):
            note += "; the contract view of the file as written (what is sent: the next row)"
        out.append(
            row(
                f"provider checks after a one-line append to {source} ({n:,} messages), resumed",
                min(times),
                floor,
                "all providers checked again whole (CPU time)",
                0.01,
                note=note,
            )
        )
    out.append(_recheck_valid(size, runs))
    for agent in ("claude-code", "codex", "pi"):
        out.append(_recheck_session(agent, size, runs))
    return out


def _recheck_valid(size: str, runs: int) -> dict[str, Any]:
    """The Valid property every provider shares (the headline of an AI SDK file), before and
    after repair, after a one-line append: resumed (``suture.checks.resume.Valid``) against
    worked out whole (``suture.validity.violations``, what the app ran at every check)."""
    from suture.checks.resume import Valid
    from suture.formats import get, load_bytes, load_file
    from suture.model import Message
    from suture.repair import repair, repair_from
    from suture.validity import violations

    chat = load_file(generate.ensure(f"chat-{size}.jsonl"))
    transcript = load_bytes(get("vercel").dump(chat.messages, chat))
    assert transcript.format == "vercel"
    messages = list(transcript.messages)
    result = repair(messages)

    def whole() -> object:
        return violations(messages), violations(result.messages)

    floor = best(whole, max(1, min(runs, 2)))
    valid = Valid()
    valid.check(messages, result)
    times = []
    for i in range(runs * 3):
        before = len(messages)
        messages.append(Message("user", f"one more thing ({i})"))
        result = repair_from(result, messages, before)
        gc.collect()
        t = time.process_time()
        valid.check(messages, result, before)
        times.append(time.process_time() - t)
    return row(
        f"the Valid property after a one-line append to an AI SDK file ({len(messages):,} messages), resumed",
        min(times),
        floor,
        "worked out whole again, before and after repair (CPU time)",
        0.01,
        note=f"slowest {max(times) * 1000:.2f} ms; worked out whole {floor * 1000:.1f} ms",
    )


def _pi_lines(messages: list[Any]) -> list[dict[str, Any]]:
    """A pi session (talking to Anthropic) of the same history as some chat messages."""
    import orjson

    stamp = "2026-01-08T14:00:00.000Z"
    out: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "bench", "timestamp": stamp, "cwd": "/bench", "provider": "anthropic"}
    ]
    for m in messages:
        raw = m.raw if isinstance(m.raw, dict) else {}
        text = m.content if isinstance(m.content, str) else ""
        if m.role == "user":
            message: dict[str, Any] = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}
        elif m.role == "assistant":
            blocks: list[Any] = [{"type": "text", "text": text}] if text else []
            for c in raw.get("tool_calls") or []:
                arguments = c["function"]["arguments"]
                try:
                    arguments = orjson.loads(arguments)
                except orjson.JSONDecodeError:
                    arguments = {"text": arguments}
                blocks.append(
                    {"type": "toolCall", "id": c["id"], "name": c["function"]["name"], "arguments": arguments}
                )
            message = {
                "role": "assistant",
                "content": blocks,
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "stopReason": "toolUse" if raw.get("tool_calls") else "stop",
                "timestamp": 0,
            }
        elif m.role == "tool":
            message = {
                "role": "toolResult",
                "toolCallId": m.tool_call_id,
                "toolName": "tool",
                "content": [{"type": "text", "text": text}],
                "isError": False,
                "timestamp": 0,
            }
        else:
            continue
        n = len(out)
        parent = f"e{n - 1}" if n > 1 else None
        out.append({"type": "message", "id": f"e{n}", "parentId": parent, "timestamp": stamp, "message": message})
    return out


def _session(agent: str, size: str) -> tuple[bytes, Callable[[int], bytes]]:
    """A session log of ``agent`` of about the size of ``chat-{size}`` (Codex and pi: that
    history written as their rollout), and what one more user line of it is, by number."""
    import orjson

    if agent == "claude-code":
        data = generate.ensure(f"claude-code-{size}.jsonl").read_bytes()
        last = orjson.loads(data.rstrip(b"\n").rsplit(b"\n", 1)[-1])
        ids = {"parent": last.get("uuid")}
        head = {k: last[k] for k in ("sessionId", "cwd", "version") if k in last}

        def claude_code(i: int) -> bytes:
            record = {**head, "type": "user", "uuid": f"bench-{i}", "parentUuid": ids["parent"], "isSidechain": False}
            ids["parent"] = record["uuid"]
            return orjson.dumps({**record, "message": {"role": "user", "content": f"one more thing ({i})"}}) + b"\n"

        return data, claude_code
    from suture.formats import get, load_file

    chat = load_file(generate.ensure(f"chat-{size}.jsonl"))
    if agent == "codex":
        # A rollout holds Responses items, each a line after the session's meta line.
        stamp = "2026-01-08T14:00:00.000Z"
        meta = {
            "timestamp": stamp,
            "type": "session_meta",
            "payload": {"id": "bench", "timestamp": stamp, "cwd": "/bench"},
        }
        items = orjson.loads(get("responses").dump(chat.messages, chat))
        lines = [meta, *({"timestamp": stamp, "type": "response_item", "payload": item} for item in items)]
        data = b"".join(orjson.dumps(line) + b"\n" for line in lines)

        def codex(i: int) -> bytes:
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"one more ({i})"}]}
            line = {"timestamp": "2026-01-08T14:00:00.000Z", "type": "response_item", "payload": item}
            return orjson.dumps(line) + b"\n"

        return data, codex
    lines = _pi_lines(list(chat.messages))
    data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
    count = len(lines)

    def pi(i: int) -> bytes:
        n = count + i
        message = {"role": "user", "content": [{"type": "text", "text": f"one more thing ({i})"}], "timestamp": 0}
        line = {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}", "timestamp": "2026", "message": message}
        return orjson.dumps(line) + b"\n"

    return data, pi


def _recheck_session(agent: str, size: str, runs: int) -> dict[str, Any]:
    """What the app runs after a one-line append to a session log (``SentChecks``: what the
    agent sends on resume, every provider's verdict on it and the contract view), resumed,
    against working all of it out whole (what ``suture check`` and the app's child do)."""
    from suture.checks import PROVIDERS
    from suture.formats import load_bytes
    from suture.repair import repair, repair_from
    from suture.sent import agent_name, as_sent, verdict
    from suture.sent.resume import SentChecks

    data, more = _session(agent, size)
    transcript = load_bytes(data)
    assert transcript.format == agent, transcript.format
    result = repair(transcript.messages)
    n = len(transcript.messages)

    def whole() -> object:
        sent = as_sent(transcript)
        return [verdict(transcript, p, result, sent) for p in PROVIDERS]

    floor = best(whole, max(1, min(runs, 2)))
    checks = SentChecks()
    list(checks.each(transcript, result))
    times = []
    for i in range(runs * 2):
        data += more(i)
        grown = load_bytes(data)
        same = len(transcript.messages)
        assert len(grown.messages) == same + 1 and grown.messages[same - 1] == transcript.messages[same - 1]
        result = repair_from(result, grown.messages, same)
        transcript = grown
        gc.collect()
        t = time.process_time()
        list(checks.each(transcript, result, same))
        times.append(time.process_time() - t)
    return row(
        f"what {agent_name(agent)} sends on resume, and every verdict, after a one-line append ({n:,} messages), resumed",
        min(times),
        floor,
        "all of it worked out whole again (CPU time)",
        0.01,
        note=f"slowest {max(times) * 1000:.1f} ms; worked out whole {floor:.1f} s",
    )


LIVE_GAP = 0.5
"""Seconds between two writes of the session the ``live`` section writes again."""


def section_live(size: str, runs: int) -> list[dict[str, Any]]:
    """The app (``run_test``, 160x45, watching) on the real Claude Code session written again as
    an agent writes it: from its line 1,400, three lines every :data:`LIVE_GAP` seconds until its
    end. Sampled every 50 ms: how long ago the write came whose state the verdict shown is of
    (the verdict's lag behind the file: the app's ``(checking new lines…)``), at most and at the
    median; and how many checks ran while it was written. (``size`` and ``runs`` are not used: one real session, one run.)"""
    from suture.tui.app import SutureApp

    lines = REAL_SESSION.read_bytes().splitlines(keepends=True)
    work = Path(tempfile.mkdtemp(prefix="suture-live-", dir=generate.DATA))
    try:
        path = work / REAL_SESSION.name
        path.write_bytes(b"".join(lines[:1400]))
        return asyncio.run(_verdict_lag(SutureApp, path, lines[1400:]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _verdict_lag(app_class: Any, path: Path, rest: list[bytes]) -> list[dict[str, Any]]:
    import statistics

    judged: list[Any] = []  # the models whose verdicts the app took, as it took them

    class Watched(app_class):  # type: ignore[misc]
        def on_checked(self, message: Any) -> None:  # (Textual calls the app's own handler too)
            if message.model is self.model:
                judged.append(message.model)

    app = Watched(path)
    written: dict[int, float] = {}  # id of the model shown after each write: when the write came
    kept: list[Any] = []  # (the models, so that no id is reused)
    ages: list[float] = []
    runs = 0
    async with app.run_test(size=(160, 45)):
        t = time.perf_counter()
        while not app.checks_done and time.perf_counter() - t < 60:
            await asyncio.sleep(0.05)
        written[id(app.model)] = time.perf_counter()
        kept.append(app.model)
        checking = app.run_checks

        def counted(*args: Any) -> Any:
            nonlocal runs
            runs += 1
            return checking(*args)

        app.run_checks = counted
        for k in range(0, len(rest), 3):
            at = time.perf_counter()
            with open(path, "ab") as f:
                f.write(b"".join(rest[k : k + 3]))
            while time.perf_counter() - at < LIVE_GAP:
                await asyncio.sleep(0.05)
                if id(app.model) not in written:
                    written[id(app.model)] = at
                    kept.append(app.model)
                if judged and id(judged[-1]) in written:
                    ages.append(time.perf_counter() - written[id(judged[-1])])
        del kept
    return [
        row(
            f"verdict's lag behind a session written every {LIVE_GAP} s, at most",
            max(ages) * 1000,
            None,
            "",
            (3.0 + 1.5) * 1000,  # (MOST_WAIT, then a gap and the check)
            unit="ms",
            kind="max",
            note=f"the real Claude Code session (3.4 MB) from line 1,400, {len(rest) // 3 + 1} writes; median"
            f" {statistics.median(ages):.2f} s; {runs} checks ran while it was written (MOST_WAIT 3 s, then the"
            " check)",
        )
    ]


def section_checks(size: str, runs: int) -> list[dict[str, Any]]:
    """The UI thread's CPU and wall per key while the app's provider checks run, against the
    same keys once they are done; and what the fork of the app's process for them costs."""
    path = generate.ensure(f"chat-{size}.jsonl")
    from suture.checks import apart
    from suture.tui.app import SutureApp

    forks: list[float] = []
    init = apart.Apart.__init__

    def timed(self: Any, work: Any) -> None:
        t = time.perf_counter()
        init(self, work)
        forks.append(time.perf_counter() - t)

    apart.Apart.__init__ = timed  # type: ignore[method-assign]
    return asyncio.run(_keys_while_checking(SutureApp, path, forks))


async def _keys_while_checking(app_class: Any, path: Path, forks: list[float]) -> list[dict[str, Any]]:
    app = app_class(path, watch=False)
    during: list[tuple[float, float]] = []
    after: list[tuple[float, float]] = []
    async with app.run_test(size=(160, 45)) as pilot:
        t = time.perf_counter()
        while not app.shown_version and time.perf_counter() - t < 300:
            await asyncio.sleep(0.01)
        await pilot.pause()
        started = time.perf_counter()
        for i in range(CHECK_PRESSES):
            if app.checks_done:
                break
            t0, c0 = time.perf_counter(), time.thread_time()
            await pilot.press("down" if i % 2 == 0 else "up")
            await pilot.pause()
            during.append((time.thread_time() - c0, time.perf_counter() - t0))
        while not app.checks_done and time.perf_counter() - started < 600:
            await asyncio.sleep(0.05)
        checked = time.perf_counter() - started
        for i in range(max(len(during), 20)):
            t0, c0 = time.perf_counter(), time.thread_time()
            await pilot.press("down" if i % 2 == 0 else "up")
            await pilot.pause()
            after.append((time.thread_time() - c0, time.perf_counter() - t0))

    def median(xs: list[float]) -> float:
        return sorted(xs)[len(xs) // 2] if xs else float("nan")

    cpu, wall = [c for c, _ in during], [w for _, w in during]
    idle_cpu, idle_wall = [c for c, _ in after], [w for _, w in after]
    n = len(app.model.transcript.messages) if app.model is not None else 0
    return [
        row(
            f"app key while the provider checks run ({n:,} messages): UI-thread CPU, median of {len(during)}",
            median(cpu) * 1000,
            None,
            "",
            16,
            unit="ms",
            kind="max",
            note=f"idle {median(idle_cpu) * 1000:.1f} ms; slowest {max(cpu, default=float('nan')) * 1000:.1f} ms; "
            f"the checks took {checked:.1f} s after the whole file showed",
        ),
        row(
            f"app key while the provider checks run ({n:,} messages): wall, median of {len(during)}",
            median(wall) * 1000,
            median(idle_wall) * 1000,
            "the same key once the checks are done (wall)",
            2.0,
            unit="ms",
            note=f"slowest {max(wall, default=float('nan')) * 1000:.1f} ms while checking; "
            f"fork of the app for the checks {max(forks, default=float('nan')) * 1000:.1f} ms (every thread waits)",
        ),
    ]


# -- the first screen, in a real terminal ----------------------------------------------------------

TOOLONG = "toolong==1.5.0"
"""The log viewer the first screen is compared with, installed by this benchmark into a cache
folder outside the repository (never a dependency of suture)."""
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "suture-bench"

BARE_APP = (
    "from textual.app import App\n"
    "from textual.widgets import Static\n"
    "class Bare(App):\n"
    "    def compose(self):\n"
    "        yield Static('a bare Textual app is on screen')\n"
    "Bare().run()\n"
)
FIRST_WAIT = 60.0
"""Seconds a first screen is waited for before the figure says it never came."""


def _toolong() -> Path | None:
    """The ``tl`` command of toolong in its cache venv, made on first use (None when it cannot be)."""
    venv = CACHE / "toolong"
    tl = venv / "bin" / "tl"
    stamp = venv / ".installed"
    if tl.exists() and stamp.exists() and stamp.read_text() == TOOLONG:
        return tl
    try:
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", TOOLONG], check=True, capture_output=True, timeout=600
        )
    except (OSError, subprocess.SubprocessError):
        return None
    stamp.write_text(TOOLONG)
    return tl


class _Terminal:
    """One tmux window of 160x45 that runs a command at a time: ``first(argv, shown)`` is the wall
    time from asking tmux to start the command until the screen holds what ``shown`` matches."""

    def __init__(self) -> None:
        self.name = f"suture-bench-{os.getpid()}"
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", "160", "-y", "45", "sleep 3600"], check=True
        )

    def screen(self) -> str:
        done = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return done.stdout

    def first(self, argv: list[str], shown: Any) -> float:
        import shlex

        if os.environ.get("SUTURE_BENCH_REALTIME") and shutil.which("chrt"):
            argv = ["chrt", "-r", "1", *argv]  # every program alike, ahead of the machine's other work
        command = "exec " + " ".join(shlex.quote(a) for a in argv)
        t = time.perf_counter()
        subprocess.run(["tmux", "respawn-pane", "-k", "-t", self.name, command], check=True)
        elapsed = float("nan")
        while time.perf_counter() - t < FIRST_WAIT:
            if shown.search(self.screen()):
                elapsed = time.perf_counter() - t
                break
            time.sleep(0.003)
        subprocess.run(["tmux", "respawn-pane", "-k", "-t", self.name, "sleep 3600"], check=True)
        time.sleep(0.3)  # the app's exit settled before the next launch
        return elapsed

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def _compiled() -> None:
    """suture's modules compiled to bytecode beforehand, as installing a wheel leaves them (and as
    toolong and Textual are in their venvs). Without it, a launch under PYTHONDONTWRITEBYTECODE (or
    from a folder it cannot write) compiles every module it imports, every time."""
    import compileall

    import suture

    compileall.compile_dir(str(Path(suture.__file__).parent), quiet=1)


def section_first(size: str, runs: int) -> list[dict[str, Any]]:
    """The first screen of suture, toolong and a bare Textual app in one real terminal (tmux,
    160x45), each launched as a person would, runs interleaved; the median of ``runs``."""
    import re

    if shutil.which("tmux") is None:
        return [row("first screen", float("nan"), None, "", None, note="no tmux on this machine")]
    tl = _toolong()
    _compiled()
    files = [f"chat-{size}.json", f"chat-{size}.jsonl", f"chat-short-{size}.jsonl", f"claude-code-{size}.jsonl"]
    paths = [generate.ensure(name) for name in files]
    bare_script = CACHE / "bare_app.py"
    CACHE.mkdir(parents=True, exist_ok=True)
    bare_script.write_text(BARE_APP)
    rows_shown = re.compile(r"\d (user|assistant|system|tool) ")  # a row of the panes
    runs = max(3, runs)
    terminal = _Terminal()
    times: dict[str, list[float]] = {}
    try:
        for _ in range(runs):
            times.setdefault("bare", []).append(
                terminal.first([sys.executable, str(bare_script)], re.compile("a bare Textual app is on screen"))
            )
            for path in paths:
                times.setdefault(f"suture {path.name}", []).append(
                    terminal.first([sys.executable, "-m", "suture", str(path)], rows_shown)
                )
                earlier = times.get(f"toolong {path.name}", [])
                if tl is not None and not (earlier and earlier[0] != earlier[0]):  # once it never showed, not again
                    # Toolong shows the end of the file: the start of its last line is on screen.
                    last = path.read_bytes()[-200_000:].rstrip(b"\n").rsplit(b"\n", 1)[-1][:40].decode()
                    times.setdefault(f"toolong {path.name}", []).append(
                        terminal.first([str(tl), str(path)], re.compile(re.escape(last)))
                    )
    finally:
        terminal.close()

    def median(key: str) -> float:
        found = sorted(times.get(key, []), key=lambda x: (x != x, x))  # nan (never shown) last
        return found[len(found) // 2] if found else float("nan")

    bare = median("bare")
    out = [
        row(
            "first screen of a bare Textual app (one Static), tmux 160x45",
            bare,
            None,
            "",
            None,
            kind="max",
            note=f"median of {runs}: {', '.join(f'{t * 1000:.0f}' for t in times['bare'])} ms",
        )
    ]
    for path in paths:
        mine = median(f"suture {path.name}")
        mb = path.stat().st_size / 1e6
        spread = ", ".join(f"{t * 1000:.0f}" for t in times[f"suture {path.name}"])
        out.append(
            row(
                f"suture first screen of {path.name} ({mb:.0f} MB) vs a bare app",
                mine,
                bare,
                "a bare Textual app, same terminal",
                1.2,
                note=f"median of {runs}: {spread} ms",
            )
        )
        if tl is None:
            out.append(row(f"vs toolong, {path.name}", float("nan"), None, "", None, note="toolong not installed"))
            continue
        theirs = median(f"toolong {path.name}")
        if theirs != theirs:
            out.append(
                row(
                    f"suture first screen of {path.name} vs toolong",
                    mine,
                    None,
                    "",
                    FIRST_WAIT,
                    kind="max",
                    note=f"toolong showed nothing in {FIRST_WAIT:.0f} s (its log-format regexes on lines over 10,000 characters)",
                )
            )
            continue
        out.append(
            row(
                f"suture first screen of {path.name} vs toolong",
                mine,
                theirs,
                f"{TOOLONG}, same terminal",
                1.0,
                note=f"toolong: {', '.join(f'{t * 1000:.0f}' for t in times[f'toolong {path.name}'])} ms",
            )
        )
    return out


FIRST_WORK_RUNNER = """
import importlib.abc
import importlib.util
import os
import re
import sys

shown = re.compile(sys.argv[2])
ansi = re.compile(r"\\x1b\\[[0-9;?]*[a-zA-Z]")


def driver(module):
    write = module.LinuxDriver.write

    def written(self, data):
        write(self, data)
        if shown.search(ansi.sub("", data)):
            os._exit(0)  # the first screen is out: the count stops here

    module.LinuxDriver.write = written


def app(module):
    # Under valgrind the program runs some fifty times slower: the app waits for its first state
    # as long as that takes, so that it does the same work as at full speed.
    module.FIRST_STATE_WAIT = module.FIRST_SCREEN_WAIT = 3600.0


class Patched(importlib.abc.MetaPathFinder):
    # Each module is changed as it is imported, so that everything is imported when and in the
    # order a launch imports it.
    patches = {"textual.drivers.linux_driver": driver, "suture.tui.app": app}

    def find_spec(self, name, path, target=None):
        patch = self.patches.get(name)
        if patch is None:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, Patched())
if sys.argv[1] == "bare":
    exec(compile(open(sys.argv[3]).read(), sys.argv[3], "exec"))
else:
    sys.argv = ["suture", sys.argv[3]]
    from suture.cli import entry

    entry()
"""
"""Runs a program in the terminal until its first screen is written (``argv``: ``bare`` or
``suture``, the pattern the first screen matches, the bare app's script or the file to open)."""
FIRST_WORK_WAIT = 600.0
"""Seconds one counted run is waited for."""
_FIRST_MODEL = """
class Read(Exception):
    pass


def first_model(path):
    # The first piece of the file read and repaired as the app reads it, its rows laid out by
    # the app's row model.
    first = []

    def told(partial):
        if partial.transcript is not None and partial.repair is not None and partial.upto is not None:
            first.append(partial)
            raise Read

    try:
        LiveFile(path).poll(progress=told)
    except Read:
        pass
    p = first[0]
    return RowBuilder().partial(p.transcript, p.repair, p.stable, p.upto)
"""
_ONE_WIDGET = (
    """
import sys
from rich.text import Text
from textual.app import App
from textual.widgets import Static
from suture.live import LiveFile
from suture.model import text_of
from suture.tui.rows import RowBuilder
"""
    + _FIRST_MODEL
    + """

def screenful(path):
    # The first screenful of the first model's rows written as plain text.
    model = first_model(path)
    out = Text()
    for row in range(min(40, len(model))):
        for side in (0, 1):
            m = model.original(row) if side == 0 else model.repaired(row)
            index = model.left[row] if side == 0 else model.right[row]
            if m is None:
                out.append(" " * 79)
                continue
            out.append(f"{index:>4} ", "dim")
            out.append(f"{m.role:<9} ", "bold")
            out.append(text_of(m.content)[:64].replace("\\n", " ").ljust(64))
        out.append("\\n")
    return out


class OneWidget(App):
    def compose(self):
        yield Static(SHOWN)


SHOWN = BODY
OneWidget().run()
"""
)
_PANES_ALONE = (
    """
import gc
import sys

gc.disable()  # as suture's launch does until its first screen is out (the app's shape, not the bare app's)
from textual.containers import Horizontal, Vertical
from suture.live import LiveFile
from suture.tui.palette import BadgePalette
from suture.tui.rows import RowBuilder
from suture.tui.view import PaneHeader, TranscriptView
"""
    + _FIRST_MODEL
    + """

MODEL = first_model(sys.argv[-1])


class PanesAlone(BadgePalette):
    CSS = "#main { height: 1fr; } #panes { width: 1fr; } #view { height: 1fr; }"

    def compose(self):
        view = TranscriptView(id="view")
        with Horizontal(id="main"):
            with Vertical(id="panes"):
                yield PaneHeader(view, id="pane-header")
                yield view

    def on_mount(self):
        self.query_one(TranscriptView).set_model(MODEL)


PanesAlone().run()
"""
)
FIRST_WORK_FLOORS = {
    "Textual's import alone": (
        "import os\nfrom textual.app import App\nfrom textual.widgets import Static\nos._exit(0)\n"
    ),
    "Textual's and suture's reading core's imports": (
        "import os\nfrom textual.app import App\nfrom textual.widgets import Static\n"
        "import suture.live, suture.tui.rows\nos._exit(0)\n"
    ),
    "those imports, then one Static of 40 rows of text (nothing read)": _ONE_WIDGET.replace(
        "SHOWN = BODY", "SHOWN = Text('\\n'.join(f'{i:>4} user      some text' for i in range(40)))"
    ),
    "one Static of the first screenful, read, repaired and laid out": _ONE_WIDGET.replace(
        "SHOWN = BODY", "SHOWN = screenful(sys.argv[-1])"
    ),
    "the app's two panes alone (its pane header and view, the first piece read and repaired)": _PANES_ALONE,
}
"""Programs counted beside the first screens, each from the process's start: how much of the
bare app's count is Textual's import; how far the modules any first screen of suture must import
to read one message already take it; and a first frame of one widget (the bare app's shape) with
those imports, first with rows of made-up text, then with the file's first screenful read,
repaired and laid out by suture's core (``sys.argv[-1]``: the JSONL file); last, the app's own
panes (its pane header and transcript view, in its containers and theme) with nothing else: no
bars, no lists, no provider checks. What the app itself may run within the 1.2x budget is what
is left after them."""


def section_firstwork(size: str, runs: int) -> list[dict[str, Any]]:
    """The first screens of :func:`section_first`, counted in machine instructions instead of
    timed: ``valgrind --tool=callgrind`` counts every instruction the process runs from its
    start until the first screen with rows is written to a real terminal (tmux, 160x45). The
    count is the same on every run, whatever else the machine does, so a change to the first
    screen's cost shows even where wall times on a shared machine spread by tens of percent.
    One run per program is enough (``runs`` is not used)."""
    import re
    import shlex

    if shutil.which("tmux") is None or shutil.which("valgrind") is None:
        return [row("first screen, counted", float("nan"), None, "", None, note="needs tmux and valgrind")]
    _compiled()
    CACHE.mkdir(parents=True, exist_ok=True)
    runner = CACHE / "first_work.py"
    runner.write_text(FIRST_WORK_RUNNER)
    bare_script = CACHE / "bare_app.py"
    bare_script.write_text(BARE_APP)
    files = [f"chat-{size}.json", f"chat-{size}.jsonl", f"chat-short-{size}.jsonl", f"claude-code-{size}.jsonl"]
    paths = [generate.ensure(name) for name in files]
    terminal = _Terminal()
    # The counted program ends itself: its pane stays (with the session) for the next one.
    subprocess.run(["tmux", "set-option", "-w", "-t", terminal.name, "remain-on-exit", "on"], check=True)
    work = Path(tempfile.mkdtemp(prefix="suture-firstwork-"))

    def counted(mode: str, shown: str, target: Path, *more: Path) -> float:
        log = work / f"{mode}-{target.name}.log"
        argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}"]
        argv += [sys.executable, str(runner), mode, shown, str(target), *map(str, more)]
        subprocess.run(
            ["tmux", "respawn-pane", "-k", "-t", terminal.name, "exec " + " ".join(map(shlex.quote, argv))], check=True
        )
        t = time.monotonic()
        while time.monotonic() - t < FIRST_WORK_WAIT:
            found = re.search(r"Collected : (\d+)", log.read_text() if log.exists() else "")
            if found:
                return float(found.group(1))
            time.sleep(0.5)
        subprocess.run(["tmux", "respawn-pane", "-k", "-t", terminal.name, "sleep 3600"], check=True)
        return float("nan")

    imports: dict[str, float] = {}
    try:
        bare = counted("bare", "a bare Textual app is on screen", bare_script)
        for i, (name, script) in enumerate(FIRST_WORK_FLOORS.items()):
            target = CACHE / f"first_work_floor_{i}.py"
            target.write_text(script)
            imports[name] = counted("bare", r"\d (user|assistant|system|tool) ", target, paths[1])
        mine = {path: counted("suture", r"\d (user|assistant|system|tool) ", path) for path in paths}
    finally:
        terminal.close()
        shutil.rmtree(work, ignore_errors=True)
    out = [
        row(
            "first screen of a bare Textual app (one Static), machine instructions",
            bare / 1e6,
            None,
            "",
            None,
            unit="M",
            kind="max",
            note="valgrind --tool=callgrind, from the process's start to the first screen, tmux 160x45",
        )
    ]
    for name, count in imports.items():
        out.append(
            row(
                f"{name}, machine instructions vs a bare app",
                count / 1e6,
                bare / 1e6,
                "a bare Textual app's first screen, counted the same way",
                None,
                unit="M",
                note="a floor: see FIRST_WORK_FLOORS (the reading core: suture.live and suture.tui.rows,"
                " what reads and lays out one message)",
            )
        )
    for path in paths:
        out.append(
            row(
                f"suture first screen of {path.name}, machine instructions vs a bare app",
                mine[path] / 1e6,
                bare / 1e6,
                "a bare Textual app, counted the same way",
                1.2,
                unit="M",
                note="the budget of the timed first screen; counted, the tmux launch both share is left out",
            )
        )
    return out


def section_browser(size: str, runs: int) -> list[dict[str, Any]]:
    """The sessions browser (``SessionsApp`` under ``App.run_test``, 160×45) on 300 Claude Code
    sessions with an empty cache: from process start until the first rows are in the list, the
    first verdict, every verdict; which processes scanned (the pool's, started inside the running
    app); then an agent's folder made while it runs, until its session is shown. One cold start
    per process (the cache is filled by it); main() runs the section twice and keeps the best."""
    launched = _since_launch()
    t = time.perf_counter()
    from suture.scan import LISTED
    from suture.sessions import agent_places
    from suture.tui.sessions import SessionsApp, SessionsScreen

    imported = time.perf_counter() - t
    root = generate.fleet("fleet-300")  # made before the clock starts (by an earlier run)
    work = Path(tempfile.mkdtemp(prefix="suture-browser-", dir=generate.DATA))
    os.environ["SUTURE_CACHE_DIR"] = str(work / "cache")  # cold: nothing scanned before
    env = {"HOME": str(work), "CLAUDE_CONFIG_DIR": str(root / ".claude"), "CODEX_HOME": str(work / "codex")}
    try:
        return asyncio.run(_browser(SessionsApp, SessionsScreen, agent_places(env), LISTED, work, launched, imported))
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _browser(
    app_class: Any, screen_class: Any, places: Any, listed: str, work: Path, launched: float, imported: float
) -> list[dict[str, Any]]:
    t, c = time.perf_counter(), time.process_time()
    screen = screen_class([], places, cache=True)
    app = app_class(screen)
    marks: dict[str, tuple[float, float]] = {}

    def mark(name: str) -> None:
        marks[name] = (launched + imported + time.perf_counter() - t, time.process_time() - c)

    async def until(check: Callable[[], bool], what: str, limit: float = 120) -> None:
        start = time.perf_counter()
        while not check():
            if time.perf_counter() - start > limit:
                raise RuntimeError(f"the browser did not show {what} in {limit:.0f} s")
            await asyncio.sleep(0.002)

    async with app.run_test(size=(160, 45)):
        await until(lambda: bool(screen.table.rows), "a row")
        mark("first")
        await until(lambda: any(r.verdict != listed for r in screen.table.rows), "a verdict")
        mark("verdict")
        await until(lambda: screen.finished, "every verdict")
        mark("all")
        progress = screen.progress
        pool = sorted(pid for _, pid in progress.processes if pid != os.getpid())
        n = len(screen.all)
        day = work / "codex" / "sessions" / "2026" / "12" / "03"
        late = time.perf_counter()
        day.mkdir(parents=True)
        shutil.copyfile(BENCH.parent / "sample_sessions" / "codex" / "clean-rollout.jsonl", day / "rollout-late.jsonl")
        await until(lambda: any(r.agent == "codex" and r.verdict != listed for r in screen.all.values()), "it", 30)
        late = time.perf_counter() - late
    first, first_cpu = marks["first"]
    processes = f"{len(pool)} pool processes" if pool else f"this process only ({progress.pool_error or 'no pool'})"
    return [
        row(
            f"browser: first rows of {n} sessions, cold (wall, from process start)",
            first,
            None,
            "",
            1.0,
            kind="max",
            note=f"Python's start-up {launched:.2f} s, importing the app {imported:.2f} s; "
            f"{first_cpu:.2f} s CPU in the app's process from making the app",
        ),
        row(
            f"browser: every verdict of {n} sessions, cold (wall, from process start)",
            marks["all"][0],
            None,
            "",
            None,
            kind="info",
            note=f"the first at {marks['verdict'][0]:.2f} s; scanned by {processes}",
        ),
        row(
            "browser: an agent's folder made while it runs, until its session's verdict (wall)",
            late,
            None,
            "",
            screen_class.LOOK_EVERY + 1.0,
            kind="max",
            note=f"the folder is looked for every {screen_class.LOOK_EVERY:.0f} s",
        ),
    ]


def _wall(fn: Callable[[], Any], runs: int) -> float:
    return best(fn, runs, clock=time.perf_counter)


def _read_all(paths: list[str]) -> int:
    """The floor of a scan: every file's bytes read, in this one process."""
    n = 0
    for path in paths:
        with open(path, "rb") as f:
            n += len(f.read())
    return n


def section_scan(size: str, runs: int) -> list[dict[str, Any]]:
    """``suture scan`` of a fleet of Claude Code sessions (10,000 files; 1,000 with --quick):
    files per second on one core, on every core and on a 2-worker Dask ``LocalCluster``, each
    beside the floor, reading the same bytes in one process; a second scan from the cache; and
    how the cost grows with the files' size and count. Wall-clock figures (whole pools)."""
    from suture.scan_cache import ScanCache
    from suture.scan_pool import cores, scan_all
    from suture.sessions import find

    name = "fleet-1k" if size == "10k" else "fleet-10k"
    root = generate.fleet(name)
    found = sorted(find([root / ".claude"]), key=lambda f: f.path)
    paths = [f.path for f in found]
    n = len(found)
    total = sum(f.size or 0 for f in found)
    mb = total / 1e6
    runs = max(1, min(runs, 2))
    floor = _wall(lambda: _read_all(paths), 3)

    def scan(jobs: int, dask: str | None = None, subset: list[Any] = found) -> list[Any]:
        rows = list(scan_all(subset, jobs=jobs, dask=dask))
        assert len(rows) == len(subset) and not [r for r in rows if r.error], "the scan lost files"
        return rows

    # One core, in this process: CPU time, as the other in-process figures (stable on a shared
    # machine); the pools below are wall-clock against a 1-core run timed the same way.
    cpu_floor = best(lambda: _read_all(paths), 3)
    cpu_one = best(lambda: scan(1), runs)
    one = _wall(lambda: scan(1), 1)
    k = cores()
    every = _wall(lambda: scan(k), runs)
    out = [
        row(
            f"scan {n:,} sessions ({mb:.0f} MB), 1 core (CPU time)",
            cpu_one,
            cpu_floor,
            "read the same bytes, 1 process",
            75.0,
            note=f"{n / cpu_one:,.0f} files/s, {mb / cpu_one:.0f} MB/s; floor {n / cpu_floor:,.0f} files/s; "
            f"wall clock {one:.1f} s ({n / one:,.0f} files/s) with load average {os.getloadavg()[0]:.1f}",
        ),
        row(
            f"scan {n:,} sessions, {k} cores vs 1",
            one / every,
            None,
            "",
            0.75 * k,
            unit="x",
            kind="min",
            note=f"{n / every:,.0f} files/s ({every:.1f} s; ratio to the floor {every / floor:.0f}x)",
        ),
    ]
    try:
        import distributed  # noqa: F401
    except ImportError:
        out.append(row("scan on a 2-worker LocalCluster", float("nan"), None, "", None, note="no fleet extra"))
    else:
        dask = _wall(lambda: scan(2, "local"), 1)
        out.append(
            row(
                f"scan {n:,} sessions on a 2-worker Dask LocalCluster vs 1 core",
                one / dask,
                None,
                "",
                1.2,
                unit="x",
                kind="min",
                note=f"{n / dask:,.0f} files/s ({dask:.1f} s with the cluster's start; ratio to the floor "
                f"{dask / floor:.0f}x)",
            )
        )
    folder = Path(tempfile.mkdtemp(prefix="suture-scan-cache-", dir=generate.DATA))
    try:
        list(scan_all(found, jobs=k, cache=ScanCache(folder)))
        stat_floor = _wall(lambda: list(find([root / ".claude"])), 3)
        cached = _wall(lambda: list(scan_all(find([root / ".claude"]), cache=ScanCache(folder))), 3)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out.append(
        row(
            f"scan {n:,} unchanged sessions again (the cache)",
            cached,
            stat_floor,
            "walk the folders and stat each file",
            20.0,
            note=f"{n / cached:,.0f} files/s: no file read",
        )
    )
    # Growth: the same work per byte whatever the size, the same per file whatever the count.
    by_size = sorted(found, key=lambda f: f.size or 0)
    cpu = best  # per-file costs in CPU time: steady whatever else the machine runs
    third = len(by_size) // 3
    per_mb: dict[str, float] = {}
    notes = []
    for label, part in (("small", by_size[:third]), ("large", by_size[2 * third :])):
        sample = part[:: max(1, len(part) // 150)]
        t = cpu(partial(scan, 1, subset=sample), 1)
        part_mb = sum(f.size or 0 for f in sample) / 1e6
        per_mb[label] = t / part_mb
        median = (sample[len(sample) // 2].size or 0) / 1e3
        notes.append(f"{label} (median {median:.0f} kB): {t / len(sample) * 1e3:.1f} ms a file, {part_mb / t:.1f} MB/s")
    out.append(
        row(
            "scan time per MB: the largest third of files vs the smallest",
            per_mb["large"],
            per_mb["small"],
            "the smallest third's time per MB",
            1.5,
            note="; ".join(notes),
        )
    )
    first = found[: max(1, n // 10)]
    t_first = cpu(lambda: scan(1, subset=first), 1)
    out.append(
        row(
            f"scan time per file: {n:,} files vs {len(first):,} (1 core)",
            cpu_one / n,
            t_first / len(first),
            f"per file among the first {len(first):,}",
            1.3,
            note=f"{cpu_one / n * 1e3:.2f} ms vs {t_first / len(first) * 1e3:.2f} ms a file (CPU)",
        )
    )
    return out


# -- the report -----------------------------------------------------------------------------------


def verdict(r: dict[str, Any]) -> tuple[str, str]:
    figure, floor, budget, kind = r["figure"], r["floor"], r["budget"], r["kind"]
    if figure != figure:  # nan: not measured
        return "-", "SKIP"
    if budget is None:  # a figure for reference (a floor measured on its own)
        return (f"{figure / floor:.3f}x" if kind == "ratio" and floor else ""), "-"
    if kind == "ratio":
        ratio = figure / floor
        return f"{ratio:.3f}x", "PASS" if ratio <= budget else "FAIL"
    if kind == "info":
        return "", ""
    if kind == "max":
        return "", "PASS" if figure <= budget else "FAIL"
    return "", "PASS" if figure >= budget else "FAIL"


def fmt(value: float | None, unit: str) -> str:
    if value is None or value != value:
        return "-"
    if unit == "s":
        return f"{value * 1000:.1f} ms" if value < 10 else f"{value:.2f} s"
    if unit == "ms":
        return f"{value:.1f} ms"
    if unit == "MB":
        return f"{value:.0f} MB"
    if unit == "M":  # millions (of machine instructions)
        return f"{value:,.0f} M"
    return f"{value:.2f}{unit}"


def report(rows: list[dict[str, Any]], header: bool = True) -> str:
    lines = [f"{'benchmark':<64} {'figure':>10} {'floor':>10} {'ratio':>8} {'budget':>9}  verdict"] if header else []
    for r in rows:
        ratio, word = verdict(r)
        if r["kind"] == "ratio":
            budget = f"<={r['budget']}x" if r["budget"] is not None else "-"
        elif r["kind"] == "max":
            budget = f"<={fmt(r['budget'], r['unit'])}" if r["budget"] is not None else "-"
        else:
            budget = f">={r['budget']:.2f}x" if r["budget"] is not None else "-"
        lines.append(
            f"{r['name'][:64]:<64} {fmt(r['figure'], r['unit']):>10} {fmt(r['floor'], r['unit']):>10} "
            f"{ratio:>8} {budget:>9}  {word}"
        )
        if r["floor_name"] and r["floor"] is not None:
            lines.append(f"{'':<4}floor: {r['floor_name']}" + (f"; {r['note']}" if r["note"] else ""))
        elif r["note"]:
            lines.append(f"{'':<4}{r['note']}")
    return "\n".join(lines)


def machine() -> str:
    import orjson

    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"nproc {os.cpu_count()}, CPU {cpu}, Python {sys.version.split()[0]}, orjson {orjson.__version__}, "
        f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def _best_rows(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Row by row, the better of two runs of the same section."""
    if not old:
        return new
    out = []
    for a, b in zip(old, new, strict=True):
        better = max if a["kind"] == "min" else min
        out.append(a if better(a["figure"], b["figure"]) == a["figure"] else b)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="10k messages and fewer runs")
    p.add_argument("--size", choices=("10k", "100k", "1m"), help="the files' size (default 100k; --quick 10k)")
    p.add_argument("--only", default="", help=f"comma-separated sections: {', '.join(SECTIONS)}")
    p.add_argument("--runs", type=int, default=0, help="runs per figure (default 5, quick 3)")
    p.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    p.add_argument("--section", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    size = args.size or ("10k" if args.quick else "100k")
    runs = args.runs or (3 if args.quick else 5)
    if args.section:
        print(json.dumps(globals()[f"section_{args.section}"](size, runs)), flush=True)
        os._exit(0)  # not waiting for threads a section left behind (the app's workers)
    chosen = [s for s in (args.only.split(",") if args.only else SECTIONS) if s]
    print(machine())
    print(
        f"command: python bench/run.py {' '.join(argv if argv is not None else sys.argv[1:])}; best of {runs}\n",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    printed = False
    for section in chosen:
        cmd = [sys.executable, __file__, "--section", section, "--runs", str(runs), "--size", size]
        got: list[dict[str, Any]] = []
        for _ in range(2 if section in ("app", "browser") else 1):
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, cwd=BENCH.parent, timeout=1800)
            except subprocess.TimeoutExpired:
                got = [row(section, float("nan"), None, "", None, note="failed: no result in 30 minutes")]
                break
            if done.returncode != 0:
                got = [row(section, float("nan"), None, "", None, note="failed: " + done.stderr.strip()[-300:])]
                break
            got = _best_rows(got, json.loads(done.stdout.strip().splitlines()[-1]))
        rows.extend(got)
        print(report(got, header=not printed), flush=True)
        printed = True
    judged = [r for r in rows if verdict(r)[1] in ("PASS", "FAIL")]  # (not the figures given for reference)
    failed = [r["name"] for r in judged if verdict(r)[1] == "FAIL"]
    print(
        f"\n{len(judged) - len(failed)} of {len(judged)} within budget"
        + (f"; over: {'; '.join(failed)}" if failed else "")
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 1 if any(verdict(r)[1] == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
