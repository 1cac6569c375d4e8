"""Reading a transcript file that may change while a person looks at it.

:class:`LiveFile` reads, parses, loads and repairs a file, and on each later :meth:`LiveFile.poll`
says what happened since the last good state: nothing (``unchanged``), bytes added at the end
(``append``), anything else (``full``), or a file that cannot be read right now (``error``, while
the last good transcript and repair stay available). A half-written JSON document, a file
replaced by rename midway, or a truncated file are errors or full reloads; the next good write
recovers by itself.

No Textual here: the app calls this from worker threads, tests call it directly.

Appends to a JSONL file are read incrementally by :class:`suture.tail.Tail` (only the new bytes,
repair from the last span start); callers only look at :class:`Update`. What is checked before an
append is taken, and so when an edit further back is seen, is in :mod:`suture.tail`: at once for
an edit that does not grow the file, or for any edit while the file is at most 4 MB; for a
larger file that an edit and an append changed between the same two polls, at the next
``poll(verify=True)``. ``poll(whole=True)`` reads the whole file. ``version`` counts the states
read, so a caller can tell whether what it shows is still the file's latest.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, TypeAlias

from msgspec import Struct, field

from suture.io import InputError, open_file, read_input
from suture.model import LoadProblem, Message, Transcript
from suture.repair import Repair
from suture.tail import Partial, Tail
from suture.tail import UpdateKind as ReadKind

__all__ = ["LiveFile", "LiveKind", "ShownBytes", "Update"]

LiveKind: TypeAlias = ReadKind | Literal["error"]
"""What one read found: what :class:`suture.tail.Tail` read (``full``, ``append``, ``unchanged``), or an error."""

_WHERE = re.compile(r"\bline (\d+)(?:, column (\d+))?")


class Update(Struct, frozen=True):
    """What one read of the file found.

    ``transcript`` and ``repair`` are the current good state: the new one after ``full`` or
    ``append``, the last good one after ``unchanged`` or ``error`` (``None`` when the file was
    never readable). ``added`` is how many input messages the good state gained (negative when it
    lost some); ``error`` says what is wrong (``line``/``column`` where the message names them).
    ``pending_line`` is the line number of a final JSONL line still being written.
    ``stable_input``/``stable_output``: that many input and repaired messages at the start are
    the same objects as before (0 after a full read). ``version`` is the :attr:`LiveFile.version`
    of ``transcript`` (0 when there is none). ``changed``: after a full read, how many places that
    held a message before hold another one now (0 where the file only grew or was cut at its end);
    ``kept``: how many places both hold.
    """

    kind: LiveKind
    transcript: Transcript | None
    repair: Repair | None
    added: int = 0
    error: str | None = None
    line: int | None = None
    column: int | None = None
    pending_line: int | None = None
    problems: list[LoadProblem] = field(default_factory=list)
    stable_input: int = 0
    stable_output: int = 0
    version: int = 0
    changed: int = 0
    """A full read: how many of the messages shown before are not found again where they were,
    between the run both reads share from the start and the run they share at the end (a
    message put in or cut out changes none of the others)."""
    kept: int = 0
    """How many places the two reads share (the shorter one's length)."""
    shared_end: int = 0
    """A full read: how many messages both reads end with, after those changed, put in or cut
    (0 where the file only grew or was cut at its end)."""


def _change_between(earlier: Sequence[Message], now: Sequence[Message]) -> tuple[int, int]:
    """``(changed, shared_end)`` of two reads (see :class:`Update`): the messages between the run
    they share from the start and the run they share at the end, counted at the places both
    have; and the length of that end run."""
    places = min(len(earlier), len(now))
    start = 0
    while start < places and _same_message(earlier[start], now[start]):
        start += 1
    end = 0
    while end < places - start and _same_message(earlier[-1 - end], now[-1 - end]):
        end += 1
    return places - start - end, end


def _same_message(a: Message, b: Message) -> bool:
    """Whether two reads found the same message, wherever in the file each found it (a line cut
    from the end of a JSONL file can leave a file read as one JSON value)."""
    return (a.role, a.content, a.tool_calls, a.tool_call_id, a.name, a.is_error, a.raw) == (
        b.role,
        b.content,
        b.tool_calls,
        b.tool_call_id,
        b.name,
        b.is_error,
        b.raw,
    )


def _digest(data: bytes) -> bytes:
    # Imported when first used (an export over the input): hashlib sets up OpenSSL as it is
    # imported, a few milliseconds the first screen does not wait for.
    import hashlib

    return hashlib.blake2b(data, digest_size=16).digest()


class ShownBytes(Struct, frozen=True):
    """The bytes a state was read from, to read later (in a child process too: no lock of the
    app's is taken): the file, their size and CRC-32 as read, and how many of them the state
    holds (:attr:`suture.tail.Tail.shown_end`)."""

    path: Path
    key: tuple[int, int]
    end: int

    def read(self, grown: bool = True) -> bytes | None:
        """The bytes the state holds, where the file still holds the bytes it was read from
        (``grown``: at its start, the file grown since, as a live session grows); ``None``
        otherwise. Reads the file (only the bytes read then, where ``grown``)."""
        import zlib

        try:
            with open_file(self.path) as f:
                data = f.read(self.key[0] if grown else -1)
        except (InputError, OSError):  # (gone, a folder now, unreadable)
            return None
        return data[: self.end] if (len(data), zlib.crc32(data)) == self.key else None


class LiveFile:
    """A transcript file, read again on demand, that remembers its last good state.

    Reading goes through :class:`suture.tail.Tail`, which reads only the appended bytes of a
    growing JSONL file and falls back to a full read for anything else. ``format`` forces an
    adapter (detection by content otherwise); ``is_read_only`` is passed to
    :func:`suture.repair.repair`. Safe to call from several threads: one read at a time.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        format: str | None = None,
        is_read_only: Callable[[str], bool] | None = None,
    ) -> None:
        self.path = Path(path)
        self.format = format
        self.is_read_only = is_read_only
        self.error: str | None = None
        self._tail = Tail(self.path, format, is_read_only)
        self._ignored: set[bytes] = set()
        self._ignoring = False  # whether the file was seen holding ignored bytes
        self._shown: tuple[Transcript, Repair] | None = None
        self._lock = threading.Lock()
        self.version = 0
        """How many times the good state changed: each ``full`` or ``append`` adds one."""

    @property
    def transcript(self) -> Transcript | None:
        return self._shown[0] if self._shown else None

    @property
    def repair(self) -> Repair | None:
        return self._shown[1] if self._shown else None

    @property
    def unchecked(self) -> bool:
        """Whether an append was taken without checking the bytes before it (a file larger than
        :data:`suture.tail.VERIFY_EVERY_APPEND`): ``poll(verify=True)`` checks them."""
        return self._tail.unchecked

    def read_as_shown(self, transcript: Transcript, most: int | None = None) -> bytes | None:
        """The file's bytes, where ``transcript`` is the state shown and the file still holds the
        bytes it was read from (their size and CRC-32 as read), without a last line still being
        written (which the state leaves out); ``None`` otherwise, and where they were more than
        ``most``. For what is worked out from the bytes as well as the messages (a session log
        written back)."""
        shown = self.bytes_as_shown(transcript, most)
        return shown.read(grown=False) if shown is not None else None

    def bytes_as_shown(self, transcript: Transcript, most: int | None = None) -> ShownBytes | None:
        """Where ``transcript`` is the state shown: the bytes it was read from, to read when they
        are needed (:meth:`ShownBytes.read`; nothing is read here); ``None`` otherwise, and where
        they were more than ``most``."""
        with self._lock:
            if self._shown is None or self._shown[0] is not transcript:
                return None
            key, end = self._tail.key, self._tail.shown_end
        if key is None or end is None or (most is not None and key[0] > most):
            return None
        return ShownBytes(self.path, key, end)

    def ignore(self, data: bytes) -> None:
        """Bytes this process is about to write to the file itself (an export over the input):
        while the file holds exactly them, polls report ``unchanged`` and keep the view (the
        original as read, beside its repair), so a watcher does not tell the write as someone
        else's; the app reads the file whole (``poll(whole=True)``) once written, which ends that,
        as any other content does."""
        with self._lock:
            self._ignored.add(_digest(data))

    def poll(
        self,
        *,
        whole: bool = False,
        verify: bool = False,
        progress: Callable[[Partial], None] | None = None,
        wanted: Callable[[], bool] | None = None,
    ) -> Update:
        """Read what changed since the last good state and say what it was.

        ``whole``: read and load the whole file (the app's ``r``); where it loads to the state
        already shown, the update is ``unchanged`` and the version stays. ``verify``: also check the
        bytes before an append that was taken without checking them (:mod:`suture.tail`); the
        app asks for it when the file has been quiet for a moment and before an export.
        ``progress``: a file read whole is read in pieces, each state told on the way
        (:meth:`suture.tail.Tail.poll`). ``wanted``: says when another read waits, and the
        check ``verify`` asked for is given up for it (the appends stay unchecked)."""
        with self._lock:
            if whole:
                self._ignored.clear()
                self._ignoring = False
            elif self._ignored and self._is_ignored():
                return self._keep("unchanged")
            before = len(self._shown[0].messages) if self._shown else 0
            try:
                found = self._tail.poll(whole=whole, verify=verify, progress=progress, wanted=wanted)
            except InputError as e:
                return self._fail(str(e))
            self.error = None
            if found.kind == "unchanged" and self._shown is not None:
                return self._keep("unchanged", found.pending_line)
            if found.kind == "full" and self._shown is not None and found.transcript == self._shown[0]:
                # Read whole and found what is shown (``r`` on a file nobody wrote, a file put
                # back as it was under a new inode): nothing to show again, and no new version
                # to check.
                return self._keep("unchanged", found.pending_line)
            earlier = self._shown[0].messages if self._shown is not None else ()
            kept = min(len(earlier), len(found.transcript.messages))
            changed = shared_end = 0
            if found.kind == "full":
                changed, shared_end = _change_between(earlier, found.transcript.messages)
            self._shown = (found.transcript, found.repair)
            self.version += 1
            return Update(
                "full" if found.kind == "unchanged" else found.kind,
                found.transcript,
                found.repair,
                added=len(found.transcript.messages) - before,
                pending_line=found.pending_line,
                problems=list(found.transcript.problems),
                stable_input=found.stable_input,
                stable_output=found.stable_output,
                version=self.version,
                changed=changed,
                kept=kept,
                shared_end=shared_end,
            )

    def _is_ignored(self) -> bool:
        """Whether the file holds bytes this process wrote itself; forgets them once it does not."""
        try:
            data = read_input(self.path, streams=False)
        except InputError:
            return False
        digest = _digest(data)
        if digest in self._ignored:
            self._ignored = {digest}
            self._ignoring = True
            return True
        if self._ignoring:  # it held them, and holds something else now
            self._ignored.clear()
            self._ignoring = False
        return False

    def _keep(self, kind: LiveKind, pending_line: int | None = None) -> Update:
        transcript, result = self._shown if self._shown else (None, None)
        problems = list(transcript.problems) if transcript is not None else []
        n_in = len(transcript.messages) if transcript is not None else 0
        n_out = len(result.messages) if result is not None else 0
        return Update(
            kind,
            transcript,
            result,
            pending_line=pending_line,
            problems=problems,
            stable_input=n_in,
            stable_output=n_out,
            version=self.version if transcript is not None else 0,
        )

    def _fail(self, message: str) -> Update:
        for prefix in (f"{self.path}: ", f"{os.fspath(self.path)}: "):
            if message.startswith(prefix):
                message = message[len(prefix) :]
        self.error = message
        where = _WHERE.search(message)
        line = int(where.group(1)) if where else None
        column = int(where.group(2)) if where and where.group(2) else None
        transcript, result = self._shown if self._shown else (None, None)
        version = self.version if transcript is not None else 0
        return Update("error", transcript, result, error=message, line=line, column=column, version=version)
