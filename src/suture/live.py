"""Reading a transcript file that may change while a person looks at it.

:class:`LiveFile` reads, parses, loads and repairs a file, and on each later :meth:`LiveFile.poll`
says what happened since the last good state: nothing (``unchanged``), bytes added at the end
(``append``), anything else (``full``), or a file that cannot be read right now (``error``, while
the last good transcript and repair stay available). A half-written JSON document, a file
replaced by rename midway, or a truncated file are errors or full reloads; the next good write
recovers by itself.

No Textual here: the app calls this from worker threads, tests call it directly.

The interface is meant to survive an incremental reader for append-only JSONL (read only the new
bytes, repair from the last span start): callers only look at :class:`Update`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from suture.formats import detect, get
from suture.io import InputError, parse_document, read_input
from suture.model import LoadProblem, Transcript
from suture.repair import Repair, repair

__all__ = ["LiveFile", "Update", "UpdateKind"]

UpdateKind = Literal["full", "append", "unchanged", "error"]

_WHERE = re.compile(r"\bline (\d+)(?:, column (\d+))?")


@dataclass(frozen=True, slots=True)
class Update:
    """What one read of the file found.

    ``transcript`` and ``repair`` are the current good state: the new one after ``full`` or
    ``append``, the last good one after ``unchanged`` or ``error`` (``None`` when the file was
    never readable). ``added`` is how many input messages the good state gained (negative when it
    lost some); ``error`` says what is wrong (``line``/``column`` where the message names them).
    ``pending_line`` is the line number of a final JSONL line still being written.
    """

    kind: UpdateKind
    transcript: Transcript | None
    repair: Repair | None
    added: int = 0
    error: str | None = None
    line: int | None = None
    column: int | None = None
    pending_line: int | None = None
    problems: list[LoadProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.kind != "error"


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class LiveFile:
    """A transcript file, read again on demand, that remembers its last good state.

    ``format`` forces an adapter (detection by content otherwise); ``is_read_only`` is passed to
    :func:`suture.repair.repair`. Not thread-safe: call it from one worker at a time.
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
        self.transcript: Transcript | None = None
        self.repair: Repair | None = None
        self.error: str | None = None
        self._size = 0
        self._digest = b""
        self._ignored: set[bytes] = set()

    def ignore(self, data: bytes) -> None:
        """Bytes this process is about to write to the file itself (an export over the input):
        the next poll that finds exactly them reports ``unchanged`` and keeps the view."""
        self._ignored.add(_digest(data))

    def poll(self) -> Update:
        """Read the file again and say what changed since the last good state.

        Reading is cheap next to parsing and repairing, which happen only when the bytes differ."""
        try:
            data = read_input(self.path)
        except InputError as e:
            return self._fail(str(e))
        digest = _digest(data)
        if self.transcript is not None and digest == self._digest:
            self.error = None
            return self._keep("unchanged")
        if digest in self._ignored:
            self._ignored.discard(digest)
            self._size, self._digest = len(data), digest
            self.error = None
            return self._keep("unchanged")
        appended = (
            self.transcript is not None and len(data) > self._size and _digest(data[: self._size]) == self._digest
        )
        try:
            doc = parse_document(data)
            adapter = get(self.format) if self.format else detect(doc).adapter
            if self.format and adapter.sniff(doc) == 0:
                raise InputError(f"this file is not in the {self.format} format")
            transcript = adapter.load(doc)
            result = repair(transcript.messages, self.is_read_only)
        except InputError as e:
            return self._fail(str(e))
        except RecursionError:
            return self._fail("nested too deeply to be a transcript")
        before = len(self.transcript.messages) if self.transcript is not None else 0
        self.transcript, self.repair, self.error = transcript, result, None
        self._size, self._digest = len(data), digest
        pending = data.count(b"\n") + 1 if doc.pending else None
        return Update(
            "append" if appended else "full",
            transcript,
            result,
            added=len(transcript.messages) - before,
            pending_line=pending,
            problems=list(transcript.problems),
        )

    def _keep(self, kind: UpdateKind) -> Update:
        problems = list(self.transcript.problems) if self.transcript is not None else []
        return Update(kind, self.transcript, self.repair, problems=problems)

    def _fail(self, message: str) -> Update:
        prefix = f"{self.path}: "
        if message.startswith(prefix):
            message = message[len(prefix) :]
        self.error = message
        where = _WHERE.search(message)
        line = int(where.group(1)) if where else None
        column = int(where.group(2)) if where and where.group(2) else None
        return Update("error", self.transcript, self.repair, error=message, line=line, column=column)
