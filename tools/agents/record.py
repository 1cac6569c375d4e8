"""Record crash shapes with the real agents: crash, (hand edit,) resume, and write the corpus.

Layout (the corpus contract, see ``sample_sessions/recorded/README.md``)::

    sample_sessions/recorded/<agent>-<version>/<shape>/
        shape.json  session.jsonl  resumed.jsonl  requests.jsonl

Every wait is bounded in time and in polls; the only processes ended are the agent processes this
module started (SIGKILL to the agent's PID, then to the process group it leads, which holds the
tool commands it spawned).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.agents import edits
from tools.agents.drivers import Agent, Run, answered_command, fast_command, slow_command
from tools.agents.mock import Logged, MockProvider, Script, Step
from tools.agents.trim import trim_body

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_sessions" / "recorded"

#: Bounds on every wait (seconds).
START_TIMEOUT = 90.0
EXIT_TIMEOUT = 240.0
POLL = 0.2
SETTLE = 1.5
#: How long after a fast call started its result may take to reach the session file while a slow
#: call of the same response runs: under Codex's ``yield_time_ms`` (30 s), after which the slow
#: call would have an output too.
ANSWER_TIMEOUT = 20.0

PROMPT = "Run the shell command I need, then tell me when it is done."
COMPACT_SUMMARY = "Summary: the user asked for a shell command; it was started and the session ended before its result."


#: A session line holding a tool result holds one of these (Claude Code, Codex, pi).
RESULT_KEYS = ('"tool_result"', '"function_call_output"', '"toolResult"')


class RecordError(RuntimeError):
    """A shape could not be recorded (the agent did not do what the shape needs)."""


def poll_until(cond: Callable[[], bool], timeout: float) -> bool:
    """Call ``cond`` every ``POLL`` seconds until it is true or ``timeout`` passed."""
    for _ in range(max(1, int(timeout / POLL))):
        if cond():
            return True
        time.sleep(POLL)
    return cond()


def descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs, as the process table says now (Linux; none
    where there is no process table to read)."""
    parents: dict[int, list[int]] = {}
    table = Path("/proc")
    if not table.is_dir():
        return []
    for entry in table.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo and len(found) < 10_000:  # (a bound: a table read while it changes)
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.append(child)
                todo.append(child)
    return found


@dataclass
class Context:
    """One recording in progress."""

    agent: Agent
    mock: MockProvider
    home: Path
    work: Path
    markers: Path
    commands: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None
    log_files: list[Path] = field(default_factory=list)

    def marker(self, name: str) -> Path:
        return self.markers / name

    def start(self, run: Run, label: str) -> subprocess.Popen[bytes]:
        self.commands.append(run.shown(self.agent.bin_name))
        out = self.home / f"{label}.out"
        err = self.home / f"{label}.err"
        self.log_files += [out, err]
        with out.open("wb") as fo, err.open("wb") as fe:
            self.proc = subprocess.Popen(
                run.argv,
                env=run.env,
                cwd=run.cwd,
                stdin=subprocess.DEVNULL,
                stdout=fo,
                stderr=fe,
                start_new_session=True,
            )
        return self.proc

    def kill(self) -> None:
        """SIGKILL the agent this context started, the process group it leads, and the processes
        it started in groups of their own (pi runs each tool command in its own group: a killed
        pi left its ``sleep`` running), found before the agent ends (they outlive it, orphaned)."""
        proc = self.proc
        if proc is None:
            return
        started = descendants(proc.pid) if proc.poll() is None else []
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in started:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                group = os.getpgid(pid)
                if group != os.getpgrp():  # (never the recorder's own group)
                    os.killpg(group, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=30)

    def wait_exit(self, timeout: float = EXIT_TIMEOUT) -> bool:
        """Wait for the agent to end by itself; SIGKILL it after ``timeout``. True if it ended by itself."""
        proc = self.proc
        assert proc is not None
        try:
            proc.wait(timeout=timeout)
            ended = True
        except subprocess.TimeoutExpired:
            ended = False
        self.kill()
        return ended

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def session(self) -> Path | None:
        return self.agent.session_file(self.home, self.work)

    def wait_marker(self, name: str, timeout: float = START_TIMEOUT) -> None:
        if (
            not poll_until(lambda: self.marker(name).exists() or not self.alive(), timeout)
            or not self.marker(name).exists()
        ):
            raise RecordError(f"the agent did not start the tool call ({name}): {self.tail()}")

    def wait_request(self, step: str, timeout: float = START_TIMEOUT) -> None:
        def seen(log: list[Logged]) -> bool:
            return any(e.run == "crash" and e.step == step for e in log)

        if not self.mock.wait_for(lambda log: seen(log) or not self.alive(), timeout) or not seen(self.mock.log):
            raise RecordError(f"the agent sent no request answered with {step!r}: {self.tail()}")

    def wait_result(self, text: str, timeout: float = ANSWER_TIMEOUT) -> bool:
        """Wait until a tool result holding ``text`` is in the session file (a line with ``text``
        and a result's key: Claude Code's ``tool_result``, Codex's ``function_call_output``, pi's
        ``toolResult``); False when it is not there after ``timeout`` or the agent ended."""

        def written() -> bool:
            path = self.session()
            if path is None:
                return False
            with contextlib.suppress(OSError):
                for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    if text in line and any(k in line for k in RESULT_KEYS):
                        return True
            return False

        return poll_until(lambda: written() or not self.alive(), timeout) and written()

    def tail(self) -> str:
        parts = []
        for f in self.log_files[-2:]:
            with contextlib.suppress(OSError):
                parts.append(f.read_text(errors="replace")[-600:])
        return " | ".join(p.strip() for p in parts if p.strip()) or "(no output)"


# -- the natural crashes ----------------------------------------------------------------------


def killed_during_tool(ctx: Context) -> None:
    ctx.mock.begin("crash", Script([Step.tool(ctx.agent.shell_call(slow_command(ctx.marker("a"))))], then=Step.hang()))
    ctx.start(ctx.agent.start(ctx.home, ctx.work, ctx.mock.url, PROMPT), "crash")
    ctx.wait_marker("a")
    time.sleep(SETTLE)
    ctx.kill()


def parallel_killed(ctx: Context) -> None:
    calls = [ctx.agent.shell_call(slow_command(ctx.marker(m))) for m in ("a", "b")]
    ctx.mock.begin("crash", Script([Step.tool(*calls)], then=Step.hang()))
    ctx.start(ctx.agent.start(ctx.home, ctx.work, ctx.mock.url, PROMPT), "crash")
    ctx.wait_marker("a")
    poll_until(lambda: ctx.marker("b").exists(), 5.0)
    time.sleep(SETTLE)
    ctx.kill()


def parallel_first_done_killed(ctx: Context) -> None:
    """Two calls in one response, the first fast, the second slow; killed once the first call's
    result is in the session file and the second has started."""
    first, answer = answered_command(ctx.marker("a"))
    calls = [ctx.agent.shell_call(first), ctx.agent.shell_call(slow_command(ctx.marker("b")))]
    ctx.mock.begin("crash", Script([Step.tool(*calls)], then=Step.hang()))
    ctx.start(ctx.agent.start(ctx.home, ctx.work, ctx.mock.url, PROMPT), "crash")
    ctx.wait_marker("a")
    if not ctx.wait_result(answer):
        raise RecordError(
            f"{ctx.agent.name} wrote no result for the first call within {ANSWER_TIMEOUT:.0f} s "
            f"while the second ran: {ctx.tail()}"
        )
    ctx.wait_marker("b")
    time.sleep(SETTLE)
    ctx.kill()


def stream_cut_after_call(ctx: Context) -> None:
    call = ctx.agent.shell_call(fast_command(ctx.marker("a")))
    ctx.mock.begin("crash", Script([], then=Step.cut(call)))
    ctx.start(ctx.agent.start(ctx.home, ctx.work, ctx.mock.url, PROMPT), "crash")
    ctx.wait_exit()


def overloaded_5xx(ctx: Context) -> None:
    call = ctx.agent.shell_call(fast_command(ctx.marker("a")))
    ctx.mock.begin("crash", Script([Step.tool(call)], then=Step.error(529)))
    ctx.start(ctx.agent.start(ctx.home, ctx.work, ctx.mock.url, PROMPT), "crash")
    ctx.wait_exit()


def tool_done_then_killed(ctx: Context) -> None:
    call = ctx.agent.shell_call(fast_command(ctx.marker("a")))
    ctx.mock.begin("crash", Script([Step.tool(call)], then=Step.hang()))
    ctx.start(ctx.agent.start(ctx.home, ctx.work, ctx.mock.url, PROMPT), "crash")
    ctx.wait_request("hang")
    time.sleep(SETTLE)
    ctx.kill()


def two_calls_then_killed(ctx: Context) -> None:
    calls = [Step.tool(ctx.agent.shell_call(fast_command(ctx.marker(m)))) for m in ("a", "b")]
    ctx.mock.begin("crash", Script(calls, then=Step.hang()))
    ctx.start(ctx.agent.start(ctx.home, ctx.work, ctx.mock.url, PROMPT), "crash")
    ctx.wait_request("hang")
    time.sleep(SETTLE)
    ctx.kill()


@dataclass(frozen=True)
class Shape:
    """A crash shape: how to crash, and for a hand-edited variant, the edit made before resume."""

    name: str
    description: str
    crash: Callable[[Context], None]
    hand_edit: str | None = None
    #: The hand edit per agent: a function of the file's lines, or (``steps``) a run of the agent
    #: itself on the crashed session; a hand-edited shape applies to the agents it has one for.
    edits: dict[str, Callable[[list[str]], list[str]]] = field(default_factory=dict)
    steps: dict[str, Callable[[Context, Path], None]] = field(default_factory=dict)
    #: What was done, per agent, where it differs from ``hand_edit``.
    notes: dict[str, str] = field(default_factory=dict)
    natural_for: tuple[str, ...] = ("claude-code", "codex", "pi")

    @property
    def agents(self) -> tuple[str, ...]:
        return (*self.edits, *self.steps) if self.hand_edit is not None else self.natural_for

    def note(self, agent: str) -> str | None:
        return self.notes.get(agent, self.hand_edit)


def claude_compact(ctx: Context, session: Path) -> None:
    """Claude Code's own ``/compact`` on the crashed session (the mock answers with the summary)."""
    ctx.mock.begin("crash", Script([], then=Step.say(COMPACT_SUMMARY)))
    run = ctx.agent.resume(ctx.home, ctx.work, ctx.mock.url, session)
    ctx.start(Run([("/compact" if a == "continue" else a) for a in run.argv], run.env, run.cwd), "compact")
    if not ctx.wait_exit():
        raise RecordError(f"/compact did not finish: {ctx.tail()}")


SHAPES: dict[str, Shape] = {
    s.name: s
    for s in (
        Shape(
            "killed-during-tool",
            "The agent was SIGKILLed while its one shell tool call was running.",
            killed_during_tool,
        ),
        Shape(
            "parallel-killed",
            "The model asked for two shell calls in one response; the agent was SIGKILLed while they ran.",
            parallel_killed,
        ),
        Shape(
            "parallel-first-done-killed",
            "The model asked for two shell calls in one response, the first fast, the second slow; the agent was SIGKILLed once the first call's result was in the session file, while the second ran.",
            parallel_first_done_killed,
            # pi 0.73.1 runs a response's calls together and writes their results only once every
            # one has ended (pi-agent-core's executeToolCallsParallel: Promise.all, then one result
            # message each, in call order): measured, the first result reached the file when the
            # second call ended, never before. Its built-in tools ask for no sequential run.
            natural_for=("claude-code", "codex"),
        ),
        Shape(
            "stream-cut-after-call",
            "Every response stream was cut after a tool call had started, until the agent gave up.",
            stream_cut_after_call,
        ),
        Shape(
            "overloaded-5xx",
            "A tool call ran, then every later request got 529 overloaded until the agent gave up.",
            overloaded_5xx,
        ),
        Shape(
            "tool-done-then-killed",
            "A tool call ran and its result was sent; the agent was SIGKILLed while the provider hung.",
            tool_done_then_killed,
        ),
        Shape(
            "text-before-result",
            "A tool call ran and the agent was killed; the user record holding its result got a text block before the result.",
            tool_done_then_killed,
            hand_edit="a text block inserted before the tool_result block in the user record that holds the result",
            edits={"claude-code": edits.cc_text_before_result},
        ),
        Shape(
            "dangling-call-then-later-turns",
            "The agent was killed during a tool call; a later user prompt and assistant answer were appended after the call.",
            killed_during_tool,
            hand_edit="a user prompt and an assistant text answer appended after the call that has no result",
            edits={
                "claude-code": edits.cc_dangling_then_later_turns,
                "codex": edits.codex_later_turns,
                "pi": edits.pi_later_turns,
            },
        ),
        Shape(
            "orphan-result",
            "A tool call ran and the agent was killed; a result for a call id that no call has was appended.",
            tool_done_then_killed,
            hand_edit="a tool result for an unknown call id appended after the real result",
            edits={
                "claude-code": edits.cc_orphan_result,
                "codex": edits.codex_orphan_output,
                "pi": edits.pi_orphan_result,
            },
        ),
        Shape(
            "repeated-id",
            "Two tool calls ran one after the other and the agent was killed; the second call and its result were given the first call's id.",
            two_calls_then_killed,
            hand_edit="the second call's id (in the call and in its result) replaced by the first call's id",
            edits={"claude-code": edits.cc_repeated_id, "codex": edits.codex_repeated_id, "pi": edits.pi_repeated_id},
        ),
        Shape(
            "entry-like-id",
            "Two tool calls ran one after the other and the agent was killed; the second call and its result were given the first call's id followed by _1.",
            two_calls_then_killed,
            hand_edit="the second call's id (in the call and in its result) replaced by the first call's id and _1",
            edits={"claude-code": edits.cc_entry_like_id},
        ),
        Shape(
            "item-between-call-and-output",
            "A tool call ran and the agent was killed; an assistant message item was inserted between the call and its output.",
            tool_done_then_killed,
            hand_edit="an assistant message response_item inserted between the function_call and its function_call_output",
            edits={"codex": edits.codex_item_between},
        ),
        Shape(
            "result-for-errored-turn",
            "The stream was cut after a tool call started (pi kept the errored turn); a result for that turn's call was appended.",
            stream_cut_after_call,
            hand_edit="a toolResult entry appended for the call of the assistant turn pi marked stopReason error",
            edits={"pi": edits.pi_result_for_errored},
        ),
        Shape(
            "fork-in-chain",
            "The agent was killed during a tool call; a second branch (a prompt and an answer) was appended off the first prompt.",
            killed_during_tool,
            hand_edit="a user prompt whose parent is the first user prompt, and an assistant answer to it, appended at the end",
            edits={"claude-code": edits.cc_fork_in_chain, "pi": edits.pi_fork_in_chain},
        ),
        Shape(
            "compaction",
            "The agent was killed during a tool call; the session was then compacted before resume.",
            killed_during_tool,
            hand_edit="compacted before resume",
            steps={"claude-code": claude_compact},
            edits={"pi": edits.pi_compaction, "codex": edits.codex_compaction},
            notes={
                "claude-code": "compacted by Claude Code itself: claude -p --resume ID /compact (the mock answered the summary request)",
                "codex": "a compacted line appended (replacement_history: the prompt and the call with no output), as Codex writes them",
                "pi": "a compaction entry appended (summary of the first prompt, firstKeptEntryId the assistant turn whose call has no result), as pi writes them",
            },
        ),
    )
}


def applies(agent: Agent, shape: Shape) -> bool:
    return agent.name in shape.agents


# -- recording ------------------------------------------------------------------------------


def _outcome(log: list[Logged]) -> dict[str, Any]:
    first = next((e for e in log if e.run == "resume" and e.provider is not None), None)
    if first is None:
        raise RecordError("the agent sent no request on resume")
    if first.status == 200:
        return {"outcome": "accepted", "status": 200, "error": None}
    return {"outcome": "rejected", "status": first.status, "error": first.error}


def record_shape(
    agent: Agent, shape: Shape, out_root: Path = CORPUS, before_resume: Callable[[Path], None] | None = None
) -> Path:
    """Record ``shape`` with ``agent`` into ``out_root/<agent>-<version>/<shape>/``; return that folder.

    ``before_resume(session)``: run on the session file after the crash and the hand edit, before
    the agent resumes it (the live tier of the write-back repairs it there with ``suture repair
    --in-place``); ``session.jsonl`` is then the file as it left it."""
    if not applies(agent, shape):
        raise RecordError(f"{shape.name} does not apply to {agent.name}")
    if not agent.installed():
        raise RecordError(
            f"{agent.name} {agent.version} is not installed in {agent.prefix} (python -m tools.agents install)"
        )
    home = Path(tempfile.mkdtemp(prefix=f"suture-{agent.name}-"))
    try:
        work = home / "work"
        markers = home / "markers"
        work.mkdir()
        markers.mkdir()
        with MockProvider(seed=f"{agent.folder}/{shape.name}") as mock:
            agent.prepare(home, work, mock.url)
            ctx = Context(agent, mock, home, work, markers)
            try:
                shape.crash(ctx)
            finally:
                ctx.kill()
                mock.release_hangs()
            session = ctx.session()
            if session is None:
                raise RecordError(f"{agent.name} wrote no session file: {ctx.tail()}")
            if agent.name in shape.steps:
                shape.steps[agent.name](ctx, session)
            elif shape.hand_edit is not None:
                lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
                session.write_text("".join(shape.edits[agent.name](lines)), encoding="utf-8")
            if before_resume is not None:
                before_resume(session)
            before = session.read_bytes()
            mock.begin("resume", Script([], then=Step.say("Done.")))
            ctx.start(agent.resume(home, work, mock.url, session), "resume")
            ctx.wait_exit()
            mock.release_hangs()
            after_file = ctx.session() if agent.name != "pi" else session
            after = (after_file or session).read_bytes()
            mock.settle()
            resume = _outcome(mock.log)
            log = list(mock.log)
        folder = out_root / agent.folder / shape.name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        (folder / "session.jsonl").write_bytes(before)
        (folder / "resumed.jsonl").write_bytes(after)
        with (folder / "requests.jsonl").open("w", encoding="utf-8") as f:
            for e in log:
                rec = e.record()
                rec["body"] = trim_body(e.provider or "", e.body)
                f.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        meta = {
            "agent": agent.name,
            "version": agent.version,
            "shape": shape.name,
            "description": shape.description,
            "hand_edit": shape.note(agent.name),
            "provider": agent.provider,
            "resume": resume,
            "recorded": dt.date.today().isoformat(),
            "commands": ctx.commands,
        }
        (folder / "shape.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return folder
    finally:
        shutil.rmtree(home, ignore_errors=True)
