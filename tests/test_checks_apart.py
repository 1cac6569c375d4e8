"""Provider checks worked out in a child process: the same verdicts as worked out here, the
child always ended and reaped, and a child that dies said in one sentence, never waited for."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings

from suture.checks import PROVIDERS, verdict
from suture.checks.apart import Apart, ChecksFailed, verdicts_apart
from suture.formats import load_file
from suture.repair import repair
from suture.sent import as_sent, models
from suture.sent import verdict as sent_verdict
from suture.tui.judged import judge_all, place
from suture.tui.rows import RowModel
from tests.helpers.processes import gone
from tests.strategies import histories

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: the checks run in the calling thread")

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"


def reaped(pid: int) -> bool:
    """Whether ``pid``, a child of this process, has been waited for (no zombie left)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@settings(max_examples=25, deadline=None)
@given(histories(max_turns=6))
def test_verdicts_apart_equal_verdicts_here(history: list) -> None:
    result = repair(history)
    got = list(verdicts_apart(history, result, PROVIDERS))
    assert [v.provider for v in got] == list(PROVIDERS)
    for v in got:
        want = verdict(history, v.provider, repaired=result)
        assert (v.before, v.after) == (want.before, want.after)
        assert v.repair is result


@pytest.mark.parametrize("path", [SESSION, WORKED], ids=["session log", "request file"])
def test_the_apps_verdicts_from_the_child_equal_those_worked_out_here(path: Path) -> None:
    transcript = load_file(path)
    model = RowModel(transcript, repair(transcript.messages))
    got: dict[str, object] = {}
    children: list[Apart] = []
    judge_all(model, PROVIDERS, lambda name, judged: got.__setitem__(name, judged), started=children.append)
    assert list(got) == list(PROVIDERS)
    assert children and children[0].pid != os.getpid() and reaped(children[0].pid)
    sent = as_sent(transcript) if transcript.format in models() else None
    for name in PROVIDERS:
        if sent is not None:
            found = sent_verdict(transcript, name, model.repair, sent)
            want = place(model, name, found.contract, found)
        else:
            want = place(model, name, verdict(transcript.messages, name, repaired=model.repair))
        judged = got[name]
        said = (judged.findings, judged.summary(), judged.title(), judged.headed(), judged.listed(), judged.agent)  # type: ignore[attr-defined]
        assert said == (want.findings, want.summary(), want.title(), want.headed(), want.listed(), want.agent)
    assert (sent is not None) == any(j.session for j in got.values())  # type: ignore[attr-defined]


def test_the_work_is_done_in_another_process() -> None:
    here = os.getpid()

    def work() -> Iterator[int]:
        yield os.getpid()

    apart = Apart(work)
    assert list(apart) == [apart.pid]
    assert apart.pid != here and reaped(apart.pid)


def test_a_failure_in_the_child_is_said_in_a_sentence() -> None:
    def work() -> Iterator[int]:
        yield 1
        raise ValueError("no such rule")

    apart = Apart(work)
    seen: list[int] = []
    with pytest.raises(ChecksFailed, match=r"^ValueError: no such rule$"):
        seen.extend(apart)
    assert seen == [1] and reaped(apart.pid)


def test_a_child_that_dies_is_said_not_waited_for() -> None:
    def work() -> Iterator[int]:
        yield 1
        os.kill(os.getpid(), signal.SIGKILL)  # as the system's out-of-memory killer would
        yield 2

    apart = Apart(work)
    with pytest.raises(ChecksFailed, match=r"ended by SIGKILL before it was done"):
        list(apart)
    assert reaped(apart.pid)


def test_ended_from_another_thread_the_child_goes_at_once() -> None:
    def work() -> Iterator[int]:
        yield 1
        time.sleep(60)  # a long check
        yield 2

    apart = Apart(work)
    got = apart.results()
    assert next(got) == 1
    threading.Timer(0.2, apart.end, kwargs={"wait": False}).start()
    t = time.monotonic()
    assert list(got) == []  # stops quietly: it was asked to
    assert time.monotonic() - t < 10
    assert apart.ended and reaped(apart.pid)
    apart.end()  # again: nothing left to do


def test_cancelled_the_child_is_ended_and_reaped() -> None:
    def work() -> Iterator[int]:
        time.sleep(60)
        yield 1

    stop = threading.Event()
    apart = Apart(work)
    threading.Timer(0.2, stop.set).start()
    assert list(apart.results(stop.is_set)) == []
    assert reaped(apart.pid)


def test_a_closed_iteration_ends_the_child() -> None:
    def work() -> Iterator[int]:
        yield 1
        time.sleep(60)
        yield 2

    apart = Apart(work)
    got = apart.results()
    assert next(got) == 1
    got.close()
    assert reaped(apart.pid)


def test_the_child_leaves_when_its_parent_is_gone() -> None:
    """A parent that dies without ending its child (killed) leaves no checks running."""
    code = (
        "import os, sys, time\n"
        "from suture.checks.apart import Apart\n"
        "def work():\n"
        "    time.sleep(120)\n"
        "    yield 1\n"
        "a = Apart(work)\n"
        "print(a.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert not gone(child)
        parent.kill()
        parent.wait(10)
        for _ in range(200):  # a bound: 10 s
            if gone(child):
                break
            time.sleep(0.05)
        assert gone(child)
    finally:
        parent.kill()
        parent.wait(10)
