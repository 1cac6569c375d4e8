"""Work done in a child process, so the interpreter that draws a view stays free.

The provider checks of a long history take seconds of pure Python. Run on a thread of the app's
own process they hold the interpreter lock the drawing thread needs, and keys wait. An
:class:`Apart` forks a child that sees the history as it is (copy-on-write: nothing is sent to
it), runs the work it is given, and sends back each result as soon as it has it (pickled, over a
pipe); the caller's thread waits on the pipe without holding the lock.

Forking a process that runs threads is sound here because of what the child does and does not
do: it only computes and writes to its pipe, then leaves with ``os._exit`` (no clean-up of the
parent's, no flush of its buffers). What it runs is imported before the fork (a lock another
thread held while importing would never be released in the child); the locks of suture's own
that a check takes are made anew in the child (``os.register_at_fork`` in
:mod:`suture.checks`); the signal handlers it inherits (a terminal's resize, the event loop's
wake-up pipe) are put back to the system's, so a signal to the child never reaches the parent's
loop. The child also leaves as soon as its parent is gone (a pipe it holds ends).

:func:`verdicts_apart` is the library's use of it: each provider's
:class:`~suture.checks.Verdict`. Where there is no ``fork`` (Windows), the work runs in the
calling thread instead.

No Textual here: the app runs it from a worker thread and ends it from its own.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import select
import signal
import struct
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from suture.checks import Verdict, verdict
from suture.model import Message
from suture.repair import Repair

__all__ = ["Apart", "ChecksFailed", "verdicts_apart"]

T = TypeVar("T")

_FRAME = struct.Struct("<BQ")  # what it is (an item, a failure, the end), then its length
_ITEM, _FAILED, _END = 0, 1, 2
_POLL = 0.25
"""Seconds between two looks at ``cancelled`` while the child works."""


class ChecksFailed(Exception):
    """The work broke in the child (the message says how), or the child ended without a word."""


class Apart(Generic[T]):
    """``work()``'s items, worked out in a forked child and read here as it sends them.

    Iterate to get them; :meth:`end` (from any thread, any number of times) ends the child at
    once and reaps it, and an iteration under way then stops quietly. Iteration that ends by
    itself reaps the child too: no child outlives its :class:`Apart` as a process or a zombie.
    ``with Apart(...) as a:`` ends it on leaving."""

    def __init__(self, work: Callable[[], Iterable[T]]) -> None:
        self._lock = threading.Lock()
        self._ended = False
        self._reaped = False
        self._status = 0
        self.pid = 0
        if not hasattr(os, "fork"):  # pragma: no cover - systems without fork
            self._here: Callable[[], Iterable[T]] | None = work
            return
        self._here = None
        read_end, write_end = os.pipe()
        alive_read, alive_write = os.pipe()  # the child's way to see its parent is gone
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
            os.close(read_end)
            os.close(alive_write)
            _child(work, write_end, alive_read)
        os.close(write_end)
        os.close(alive_read)
        self.pid = pid
        self._fd = read_end
        self._alive = alive_write

    def __enter__(self) -> Apart[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()

    @property
    def ended(self) -> bool:
        """Whether :meth:`end` was called (the child ended before it was done)."""
        return self._ended

    def end(self, wait: bool = True) -> None:
        """End the child now (if it still runs) and reap it; ``wait=False`` (for a thread that
        must not wait while the system frees the child's memory) leaves the reaping to the
        iteration under way, which stops at once."""
        with self._lock:
            self._ended = True
            if wait:
                self._reap(kill=True)
            elif not self._reaped and self.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)

    def _reap(self, kill: bool) -> None:
        # Under the lock. Until it is reaped the child keeps its process id, so the kill cannot
        # reach another process.
        if self._reaped or not self.pid:
            return
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        _, self._status = os.waitpid(self.pid, 0)
        os.close(self._alive)
        self._reaped = True

    def _why_ended(self) -> str:
        """Why the child's pipe ended before its work was done, in a few words."""
        with self._lock:
            self._reap(kill=False)
        status = self._status
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            return f"the checks' process was ended by {name} before it was done"
        return f"the checks' process ended (exit status {os.WEXITSTATUS(status)}) before it was done"

    def results(self, cancelled: Callable[[], bool] = lambda: False) -> Iterator[T]:
        """Each item as the child sends it; stops (ending the child) once ``cancelled()`` says
        so or :meth:`end` is called. Raises :class:`ChecksFailed` when the work breaks or the
        child dies before it is done."""
        if self._here is not None:  # pragma: no cover - systems without fork
            for item in self._here():
                if cancelled() or self._ended:
                    return
                yield item
            return
        done = False
        try:
            while True:
                head = self._read(_FRAME.size, cancelled)
                if head is None:
                    return
                kind, size = _FRAME.unpack(head)
                body = self._read(size, cancelled)
                if body is None:
                    return
                if kind == _END:
                    done = True
                    return
                if kind == _FAILED:
                    raise ChecksFailed(body.decode("utf-8", "replace"))
                yield pickle.loads(body)
        finally:
            os.close(self._fd)
            with self._lock:
                self._reap(kill=not done)

    def __iter__(self) -> Iterator[T]:
        return self.results()

    def _read(self, n: int, cancelled: Callable[[], bool]) -> bytes | None:
        """``n`` bytes from the child, waiting without the interpreter lock; ``None`` once
        cancelled or ended."""
        chunks: list[bytes] = []
        left = n
        while left:
            if cancelled() or self._ended:
                return None
            ready, _, _ = select.select([self._fd], [], [], _POLL)
            if not ready:
                continue
            chunk = os.read(self._fd, min(left, 1 << 20))
            if not chunk:
                if self.ended:  # (by another thread, meanwhile)
                    return None
                raise ChecksFailed(self._why_ended())
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)


def _child(work: Callable[[], Iterable[Any]], out: int, alive: int) -> None:  # pragma: no cover - in the child
    """Run ``work`` and send what it gives; never returns."""
    code = 0
    try:
        gc.disable()  # short-lived: nothing to collect, and a collection would copy every page
        signal.set_wakeup_fd(-1)
        for sig in signal.valid_signals():
            with contextlib.suppress(OSError, ValueError, TypeError):
                if callable(signal.getsignal(sig)):
                    signal.signal(sig, signal.SIG_DFL)
        threading.Thread(target=_leave_with_parent, args=(alive,), daemon=True).start()
        try:
            for item in work():
                _send(out, _ITEM, pickle.dumps(item, pickle.HIGHEST_PROTOCOL))
        except Exception as e:
            _send(out, _FAILED, f"{type(e).__name__}: {e}".encode("utf-8", "replace"))
            code = 1
        else:
            _send(out, _END, b"")
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _leave_with_parent(alive: int) -> None:  # pragma: no cover - in the child
    """(A thread of the child.) Leave once the parent's end of ``alive`` is closed."""
    with contextlib.suppress(OSError):
        while os.read(alive, 1):
            pass
    os._exit(1)


def _send(fd: int, kind: int, data: bytes) -> None:  # pragma: no cover - in the child
    view = memoryview(_FRAME.pack(kind, len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def verdicts_apart(
    messages: Sequence[Message],
    repaired: Repair,
    providers: Iterable[str],
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[Verdict]:
    """Each provider's :class:`~suture.checks.Verdict` for ``messages`` and their repair, in the
    order of ``providers``, each as soon as it is worked out in a child process. Stops, ending
    the child, when ``cancelled()`` says so or the iterator is closed."""
    names = list(providers)

    def work() -> Iterator[tuple[str, list[Any], list[Any]]]:
        for name in names:
            found = verdict(messages, name, repaired=repaired)
            yield name, found.before, found.after

    with Apart(work) as apart:
        for name, before, after in apart.results(cancelled):
            yield Verdict(name, before, after, repaired)
