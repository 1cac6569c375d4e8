"""Reading an append-only JSONL transcript again at the cost of what was appended.

:class:`Tail` loads a file once, then on each :meth:`Tail.poll` reads only the bytes after the
last complete line it read, parses the new lines, turns them into neutral messages through the
format adapter's ``extend`` hook (:class:`Extends`) and repairs again from the start of the last
span (:func:`suture.repair.repair_from`; the contract's prefix stability, docs/contract.md, makes that exact). A final
line with no newline is read again on the next poll, so a line a writer is still adding to is
never taken in half.

The result is what a full load and a full repair of the file's current bytes give: anything the
incremental path cannot vouch for is read again whole. That is

- another file at the path (another device or inode: replaced by rename, or a symbolic link
  pointed elsewhere), a smaller file, or a file rewritten in place (see below);
- a JSON document rather than JSONL, or a format whose adapter has no ``extend`` hook;
- anything unusual in the new bytes (a line that is not JSON, bytes that are not UTF-8, a NUL
  near the start of a small file, a record the adapter rejects, another format detected):
  the full load then gives exactly the result, or the error, a first load would.

What is checked, and so what is guaranteed (on a local file system, where every write sets the
file's change time, ``st_ctime``, to the current time):

- Every byte read is summed into a CRC-32 as it is read, so the sum of everything read so far
  costs only the new bytes. The file's size, modification and change times are noted before
  each read.
- A poll that finds size and both times as noted reads nothing: no write happened since.
  Times that were less than two seconds old when noted prove nothing (a second write can fall
  in the same clock tick): the file is then read again and checked against the sum.
- A file of the same size whose times moved (an in-place edit of the same length, ``touch``)
  is read again and checked against the sum: any difference is a full read.
- A file that grew: the 4 KB before the new bytes must be unchanged, and while what was read
  before is at most 4 MB (``VERIFY_EVERY_APPEND``) it is read again and checked against the sum
  before the new bytes are taken (about a millisecond a megabyte). Beyond that an append costs
  only the new bytes, and an edit further back made between the same two polls as an append
  (``open(f, "w")`` writing a longer file, say) is seen at the next ``poll(verify=True)``,
  which checks the whole file whenever an append was taken unchecked. The app asks for one
  once the file has been quiet for a moment, and before every export.
- ``poll(whole=True)`` reads and loads the whole file whatever it finds.

Apart from such an unchecked append until the next verifying poll, a change is missed only if
the rewritten bytes have the same length and CRC-32 as before, which no edit that is not made
for the purpose does (one chance in four billion).

Format detection runs again on every poll that found new bytes, as a full load would detect the
file's format anew; it costs what the formats' ``sniff`` read (most read a bounded head of the
file). Pass ``format`` to skip it.

No Textual here; the app's live reload calls it from a worker thread.
"""

from __future__ import annotations

import codecs
import mmap
import os
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, Literal, Protocol, runtime_checkable

import msgspec
import orjson
from msgspec import Struct

from suture.codec import loads_slowly
from suture.formats import Adapter, detect, get
from suture.io import Document, InputError, first_line_is_a_value, gc_paused, open_file, parse_document
from suture.model import Transcript
from suture.repair import Repair, repair, repair_from, reused

__all__ = ["FIRST_PIECE", "MAX_PIECE", "VERIFY_EVERY_APPEND", "Extends", "Partial", "Tail", "TailUpdate"]

# Bytes before the end of the last complete line read that must still be there, unchanged, for
# new bytes to count as appended.
_GUARD = 4096
# parse_document looks for NUL bytes in this many first bytes of a file.
_BINARY_PROBE = 8192
VERIFY_EVERY_APPEND = 4 << 20
"""Up to this many bytes read, every append first reads them again and checks their sum."""
# File times younger than this when noted may share a clock tick with a write that followed.
_RACY_NS = 2_000_000_000
_BLOCK = 1 << 20


def _loads(line: bytes) -> Any:
    """One JSONL line's value, without loss (as :func:`suture.io.parse_document` reads it)."""
    try:
        return msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return loads_slowly(line)


@runtime_checkable
class Extends(Protocol):
    """The hook an adapter defines to load appended JSONL records without reading the rest again.

    ``extend(transcript, doc, start)``: ``transcript`` is what this adapter's ``load`` made of
    a JSONL document holding ``doc.records[:start]``; ``doc`` is the whole document now (every
    record, every problem, the pending fragment). Return what ``load(doc)`` would return and the
    index of the first of its messages that is not the same as in ``transcript`` (messages
    before it must be equal; ``len(transcript.messages)`` when only messages were added), or
    ``None`` when the new records need the whole document read again (a full load follows).
    """

    def extend(self, transcript: Transcript, doc: Document, start: int) -> tuple[Transcript, int] | None: ...


UpdateKind = Literal["full", "append", "unchanged"]

FIRST_PIECE = 256 << 10
"""A file larger than this is read in pieces when its reader wants progress (``poll(progress=)``):
the first piece is about this size, enough for a first screen."""
FIRST_LINE_LOOK = 16 << 20
"""How far into a large file its first read looks for the end of the first line (a file whose
first line is a whole value is JSONL): no further, so that a JSON document on one line, a gigabyte
maybe, is not scanned whole before its first screen. A JSONL file with a longer first line is
found to be one once its start is not a list to read in pieces."""
MAX_PIECE = 32 << 20
"""The largest piece read at once after the first (each is about a quarter of what was read)."""
PROGRESS_EVERY = 0.1
"""Seconds between two reports of how much is read, when no new state is shown."""


class Partial(Struct, frozen=True):
    """A state of a file being read in pieces (``Tail.poll(progress=)``).

    ``read`` of ``size`` bytes are read, holding ``messages`` messages. ``transcript`` and
    ``repair`` are the state of what is read (``None`` in a report of progress alone);
    ``upto``: the input and output index before which nothing read later can change the rows
    (``None`` in the last state, which is the file read whole); ``stable``: how many input and
    output messages at the start are those of the state told before (0: none).
    """

    read: int
    size: int
    messages: int
    transcript: Transcript | None = None
    repair: Repair | None = None
    upto: tuple[int, int] | None = None
    stable: tuple[int, int] = (0, 0)

    @property
    def done(self) -> bool:
        return self.transcript is not None and self.upto is None


class _Told:
    """Tells a progress callback of the states of a file read in pieces, and of how much is read
    in between (at most every PROGRESS_EVERY seconds). Keeps, across the states it does not
    tell, how much of the last told state still holds."""

    def __init__(self, progress: Callable[[Partial], None], size: int) -> None:
        self.progress = progress
        self.size = size
        self.last = 0.0
        self.stable: tuple[int, int] | None = None  # None: nothing told yet
        self.at = 0
        self.shown = 0

    def state(self, update: TailUpdate, read: int, *, first: bool = False, partial: bool = False) -> None:
        """A new state, read up to ``read``: told at once when ``first`` or ``partial`` (a state
        of a partly read document, made anew), else when none was told for a while."""
        if self.stable is not None:
            if partial or update.kind == "full":
                self.stable = (0, 0)
            else:
                self.stable = (
                    min(self.stable[0], update.stable_input),
                    min(self.stable[1], update.stable_output),
                )
        self.at = read
        now = time.monotonic()
        if not (first or partial) and now - self.last < PROGRESS_EVERY:
            return
        from suture.repair import reused

        messages = update.transcript.messages
        point = reused(update.repair, messages, len(messages))
        stable = self.stable or (0, 0)
        self.progress(
            Partial(read, self.size, len(messages), update.transcript, update.repair, point or (0, 0), stable)
        )
        self.stable = (len(messages), len(update.repair.messages))
        self.last = now

    def read(self, read: int, messages: int) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY:
            self.progress(Partial(read, self.size, messages))
            self.last = now

    def done(self, update: TailUpdate, *, fresh: bool = False) -> None:
        """Tell of the last state (the file read whole). ``fresh``: made anew, not from the
        states told before."""
        stable = (0, 0) if fresh or self.stable is None else self.stable
        messages = update.transcript.messages
        self.progress(Partial(self.size, self.size, len(messages), update.transcript, update.repair, None, stable))


def _line_end(data: mmap.mmap, at: int) -> int:
    """One past the first newline at or after ``at`` (the end of the data where there is none)."""
    if at >= len(data):
        return len(data)
    found = data.find(b"\n", at)
    return len(data) if found < 0 else found + 1


def _newlines(data: Any) -> int:
    """How many newlines ``data`` (bytes or an mmap) holds."""
    if isinstance(data, bytes):
        return data.count(b"\n")
    view = memoryview(data)
    return sum(bytes(view[k : k + _BLOCK]).count(b"\n") for k in range(0, len(view), _BLOCK))


class TailUpdate(Struct, frozen=True):
    """What one :meth:`Tail.poll` found.

    ``kind`` is ``full`` (read whole), ``append`` (only new bytes read) or ``unchanged``.
    ``stable_input`` input messages and ``stable_output`` repaired messages at the start are as
    they were before this poll (a view need draw again only what follows them; both are 0 after
    a full read). ``pending_line`` is the line number of a final line still being written.
    """

    kind: UpdateKind
    transcript: Transcript
    repair: Repair
    stable_input: int = 0
    stable_output: int = 0
    pending_line: int | None = None


class _State(Struct):
    """A loaded prefix of the file: the transcript and repair of its complete lines."""

    transcript: Transcript
    repair: Repair
    records: list[tuple[int, Any]]
    problems: list[Any]
    adapter: Adapter


class Tail:
    """A transcript file read incrementally while it grows. Not thread-safe: one caller at a time.

    ``format`` forces an adapter (detection by content otherwise); ``is_read_only`` is passed to
    the repair. :meth:`poll` raises :class:`~suture.io.InputError` (one line, starting with the
    path) when the file cannot be read or loaded; the last good state stays in ``transcript`` and
    ``repair``.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        format: str | None = None,
        is_read_only: Callable[[str], bool] | None = None,
    ) -> None:
        self.path = Path(path)
        self._name = os.fspath(path)  # as load_file names it in its errors
        self.format = format
        self.is_read_only = is_read_only
        self.transcript: Transcript | None = None
        self.repair: Repair | None = None
        self._ident: tuple[int, int] | None = None
        self._stat: tuple[int, int, int] | None = None  # size, mtime, ctime noted before the last read
        self._racy = True  # whether those times were too young to prove anything
        self._unchecked = False  # an append was taken without reading what came before again
        self._size = 0
        self._crc = 0  # of the whole file where appends cannot be read alone, else of [0, _committed)
        self._committed = 0  # offset just past the last complete line read
        self._lines = 0  # newlines before _committed
        self._guard = b""  # the bytes just before _committed
        self._fragment = b""  # the bytes after _committed
        self._base: _State | None = None  # state of the complete lines, when appends can follow
        self._shown_from = 0  # first input message of the shown state that _base does not hold
        self._pending = False  # whether the bytes after _committed are a line still being written

    @property
    def unchecked(self) -> bool:
        """Whether an append was taken without reading the bytes before it again: a
        ``poll(verify=True)`` would read them."""
        return self._unchecked

    @property
    def key(self) -> tuple[int, int] | None:
        """The size and CRC-32 of the bytes the current state was read from (``None`` before the
        first read): another reader of the file that finds the same is showing the same state."""
        if self.transcript is None:
            return None
        if self._base is None:
            return self._size, self._crc
        return self._size, zlib.crc32(self._fragment, self._crc)

    @property
    def shown_end(self) -> int | None:
        """How many bytes at the start of the file the current state holds: all that were read,
        but a last line still being written, which the state leaves out (``None`` before the first
        read). With :attr:`key`: the bytes a state was read from, as a reader cut them."""
        if self.transcript is None:
            return None
        return self._committed if self._pending else self._size

    # -- the first read, in pieces ---------------------------------------------------------------

    def _in_pieces(self, f: BinaryIO, st: os.stat_result, progress: Callable[[Partial], None]) -> TailUpdate:
        """The file read whole as :meth:`_full` reads it, a piece at a time, ``progress`` told
        of each state shown on the way. A JSONL file is read as a file that grows: its first
        piece whole, then each next piece as an append (so every state is what a full read of
        the bytes so far gives). A JSON document's message list is read in pieces
        (:mod:`suture.pieces`), and each state shown is what the formats read of the elements
        read so far; the last is the document read whole."""
        size = st.st_size
        with mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) as data:
            head = data[:_BINARY_PROBE]
            if not head.strip() or head.startswith(b"\xef\xbb\xbf") or b"\x00" in head:
                return self._whole(data[:], st, _Told(progress, size))  # the errors a whole read gives
            if first_line_is_a_value(data, within=FIRST_LINE_LOOK):
                return self._lines_in_pieces(data, st, progress)
            return self._document_in_pieces(data, st, progress)

    def _lines_in_pieces(self, data: mmap.mmap, st: os.stat_result, progress: Callable[[Partial], None]) -> TailUpdate:
        size = len(data)
        told = _Told(progress, size)
        with gc_paused():
            return self._lines_each(data, st, told)

    def _lines_each(self, data: mmap.mmap, st: os.stat_result, told: _Told) -> TailUpdate:
        size = len(data)
        end = _line_end(data, FIRST_PIECE)
        update = self._full(data[:end], st)
        told.state(update, end, first=True)
        while end < size:
            step = min(max(FIRST_PIECE, end // 4), MAX_PIECE)
            cut = _line_end(data, end + step)
            appended = self._append(self._guard + data[end:cut]) if self._base is not None else None
            # What only a full read can say (a fork of a session's branch, a line an append cannot
            # take): the bytes so far read whole; the next pieces are appends to that again.
            update = appended if appended is not None else self._full(data[:cut], st)
            end = cut
            told.state(update, end)
        told.done(update)
        return update

    def _document_in_pieces(
        self, data: mmap.mmap, st: os.stat_result, progress: Callable[[Partial], None]
    ) -> TailUpdate:
        from suture.pieces import ListReader, NotPieces

        size = len(data)
        reader = ListReader(data)
        try:
            reader.start()
        except NotPieces:
            if first_line_is_a_value(data):  # a JSONL file whose first line is longer than FIRST_LINE_LOOK
                return self._lines_in_pieces(data, st, progress)
            return self._whole(data[:], st, _Told(progress, size))
        told = _Told(progress, size)
        elements: list[Any] = []
        paused = gc_paused()
        paused.__enter__()
        try:
            shown = 0
            while not reader.done:
                elements.extend(reader.read(FIRST_PIECE if not elements else MAX_PIECE // 8))
                if len(elements) >= 2 * shown or reader.done:
                    # Geometric: what the formats read again for each state shown adds up to
                    # about twice what they read of the whole.
                    if not reader.done and self._preview(reader.partial(elements, size=size), told, reader.position):
                        shown = len(elements)
                else:
                    told.read(reader.position, len(elements))
            doc = reader.document(elements, size=size)
        except NotPieces:
            return self._whole(data[:], st, told)
        finally:
            paused.__exit__(None, None, None)
        update = self._full(data, st, doc)
        told.done(update, fresh=True)
        return update

    def _whole(self, data: Any, st: os.stat_result, told: _Told) -> TailUpdate:
        """The file read whole after all (what it holds cannot be read in pieces: a single line,
        a document without a message list), ``told`` of its state as the last one."""
        update = self._full(data, st)
        told.done(update, fresh=True)
        return update

    def _preview(self, doc: Document, told: _Told, position: int) -> bool:
        """Tell of the state of a partly read document; False when the formats cannot read it yet."""
        try:
            with gc_paused():
                adapter = get(self.format) if self.format else detect(doc).adapter
                if self.format and adapter.sniff(doc) == 0:
                    return False
                transcript = adapter.load(doc)
                result = repair(transcript.messages, self.is_read_only)
        except (InputError, RecursionError):
            return False
        told.state(TailUpdate("full", transcript, result), position, partial=True)
        return True

    # -- reading -------------------------------------------------------------------------------

    def poll(
        self,
        *,
        whole: bool = False,
        verify: bool = False,
        progress: Callable[[Partial], None] | None = None,
        wanted: Callable[[], bool] | None = None,
    ) -> TailUpdate:
        """Read what changed since the last poll (everything, the first time).

        ``whole``: read and load the whole file, whatever changed. ``verify``: also check the
        bytes before any append that was taken without checking them (the module docstring
        says when that is); that check is given up, the appends left unchecked, as soon as
        ``wanted()`` says another read is waiting (reading a million messages' bytes again
        takes most of a second, and an append would wait for it). ``progress``: a file read whole is read in pieces (when larger than
        :data:`FIRST_PIECE`), and ``progress`` is called with what is read so far
        (:class:`Partial`) while it is, the last time with the state this poll returns (the only
        time for a smaller file; never for an append or an unchanged file)."""
        try:
            with open_file(self.path) as f:
                st = os.fstat(f.fileno())
                if not whole and self.transcript is not None and (st.st_dev, st.st_ino) == self._ident:
                    update = self._same_file(f, st, verify, wanted)
                    if update is not None:
                        self._note(st)
                        return update
                    f.seek(0)
                if progress is not None and st.st_size > FIRST_PIECE:
                    return self._in_pieces(f, st, progress)
                data = f.read()
        except FileNotFoundError:
            raise InputError(f"{self.path}: no such file") from None
        except IsADirectoryError:
            raise InputError(f"{self.path}: is a folder, not a transcript file") from None
        except PermissionError:
            raise InputError(f"{self.path}: permission denied") from None
        except OSError as e:
            raise InputError(f"{self.path}: cannot read ({e.strerror or e})") from None
        update = self._full(data, st)
        if progress is not None:
            _Told(progress, len(data)).done(update, fresh=True)
        return update

    def _note(self, st: os.stat_result) -> None:
        """Note the file's size and times as they were before a read that succeeded."""
        self._stat = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        now = time.time_ns()
        self._racy = now - st.st_ctime_ns < _RACY_NS or now - st.st_mtime_ns < _RACY_NS

    def _same_file(
        self, f: BinaryIO, st: os.stat_result, verify: bool, wanted: Callable[[], bool] | None = None
    ) -> TailUpdate | None:
        """The update for the file read before, or None when only a full read can say."""
        touched = self._racy or self._stat != (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if not touched and not (verify and self._unchecked):
            return self._unchanged()  # no write since the last read
        if self._base is None:
            if st.st_size != self._size:
                return None
            # Read whole: a JSON document (or a format read whole) changes as a whole.
            data = f.read()
            return self._unchanged() if zlib.crc32(data) == self._crc else self._full(data, st)
        if st.st_size < self._size:
            return None  # truncated
        grew = st.st_size > self._size
        needed = (touched and not grew) or self._committed <= VERIFY_EVERY_APPEND
        if needed or (verify and (touched or self._unchecked)):
            same = self._prefix_is_unchanged(f, None if needed else wanted)
            if same is None:  # given up for another read: the appends stay unchecked
                if not grew:
                    return self._unchanged()
                self._unchecked = True
            elif not same:
                return None
            else:
                self._unchecked = False
        elif grew:
            self._unchecked = True
        f.seek(self._committed - len(self._guard))
        return self._append(f.read())

    def _prefix_is_unchanged(self, f: BinaryIO, wanted: Callable[[], bool] | None = None) -> bool | None:
        """Whether the bytes before ``_committed`` still sum to what they did when read; None
        when ``wanted()`` said another read waits before the sum was done."""
        fd = f.fileno()
        left = self._committed
        crc = 0
        buffer = bytearray(min(_BLOCK, left) or 1)
        view = memoryview(buffer)
        while left:
            if wanted is not None and wanted():
                return None
            n = os.preadv(fd, [view[: min(left, len(buffer))]], self._committed - left)
            if not n:
                return False  # shorter than before
            crc = zlib.crc32(view[:n], crc)
            left -= n
        return crc == self._crc

    def _unchanged(self) -> TailUpdate:
        assert self.transcript is not None and self.repair is not None
        n_in, n_out = len(self.transcript.messages), len(self.repair.messages)
        return TailUpdate("unchanged", self.transcript, self.repair, n_in, n_out, self._pending_line())

    def _pending_line(self) -> int | None:
        return self._lines + 1 if self._pending else None

    def _full(self, data: Any, st: os.stat_result, parsed: Document | None = None) -> TailUpdate:
        """The state of ``data`` (bytes, or an mmap of the file), read whole; ``parsed``: its
        document, already parsed."""
        try:
            with gc_paused():
                doc = parsed if parsed is not None else parse_document(data, live=True)
                adapter = get(self.format) if self.format else detect(doc).adapter
                if self.format and adapter.sniff(doc) == 0:
                    raise InputError(f"this file is not in the {self.format} format")
                transcript = adapter.load(doc)
                result = repair(transcript.messages, self.is_read_only)
        except InputError as e:
            message = str(e)
            raise InputError(f"{self._name}: {message}") from None
        except RecursionError:
            raise InputError(f"{self._name}: nested too deeply to be a transcript") from None
        self.transcript, self.repair = transcript, result
        self._ident = (st.st_dev, st.st_ino)
        self._note(st)
        self._unchecked = False
        self._size = len(data)
        committed = data.rfind(b"\n") + 1
        self._committed = committed
        self._lines = _newlines(data)
        self._guard = data[max(0, committed - _GUARD) : committed]
        self._fragment = data[committed:]
        self._shown_from = len(transcript.messages)
        self._pending = doc.kind == "jsonl" and bool(doc.pending)
        self._base = None
        # Appends can follow when the file is JSONL, its adapter can extend, and the last line is
        # complete or pending (a final line that parsed is read again with what follows it, so
        # the complete lines' state would be needed: take the next change whole instead).
        complete = doc.kind == "jsonl" and (not self._fragment.strip() or bool(doc.pending))
        if complete and isinstance(adapter, Extends):
            self._base = _State(transcript, result, list(doc.records), list(doc.problems), adapter)
            self._crc = zlib.crc32(memoryview(data)[:committed])
        else:
            self._crc = zlib.crc32(data)
        return TailUpdate("full", transcript, result, pending_line=self._pending_line())

    def _append(self, data: bytes) -> TailUpdate | None:
        """The state after appended bytes, or None when only a full load can say."""
        base = self._base
        assert base is not None and self.transcript is not None and self.repair is not None
        guard = self._guard
        if data[: len(guard)] != guard:
            return None  # rewritten
        chunk = data[len(guard) :]
        committed = self._committed
        if len(chunk) == len(self._fragment) and chunk == self._fragment:
            self._size = committed + len(chunk)
            return self._unchanged()
        if committed < _BINARY_PROBE and b"\x00" in chunk[: _BINARY_PROBE - committed]:
            return None
        end = chunk.rfind(b"\n") + 1
        complete, fragment = chunk[:end], chunk[end:]
        try:
            complete.decode("utf-8")
            # A character cut off at the end of the line being written is not an error yet (io).
            codecs.getincrementaldecoder("utf-8")().decode(fragment, final=False)
        except UnicodeDecodeError:
            return None
        new_records: list[tuple[int, Any]] = []
        line = self._lines
        for text in complete.split(b"\n")[:-1]:
            line += 1
            if not text.strip():
                continue
            try:
                new_records.append((line, _loads(text)))
            except orjson.JSONDecodeError:
                return None  # a bad line: the full load names it as it always does
        provisional: tuple[int, Any] | None = None
        pending = b""
        if fragment.strip():
            try:
                provisional = (line + 1, _loads(fragment))
            except orjson.JSONDecodeError:
                pending = fragment
        size = committed + len(chunk)

        records = base.records
        n_old = len(records)
        records.extend(new_records)
        try:
            step = self._extend(base, records, n_old, pending, provisional, size)
        except InputError:
            step = None
        if step is None:
            del records[n_old:]  # the complete lines' state stays as it was
            return None
        new_base, shown_t, shown_r, changed, shown_changed = step
        stable_input = min(changed, self._shown_from)
        point = reused(base.repair, shown_t.messages, stable_input)
        stable_output = point[1] if point is not None else 0

        self._base = new_base
        self.transcript, self.repair = shown_t, shown_r
        self._shown_from = shown_changed
        self._size = size
        self._lines = line
        self._committed = committed + end
        self._crc = zlib.crc32(complete, self._crc)
        self._guard = (guard + complete)[-_GUARD:] if end else guard
        self._fragment = fragment
        self._pending = bool(pending)
        return TailUpdate("append", shown_t, shown_r, stable_input, stable_output, self._pending_line())

    def _extend(
        self,
        base: _State,
        records: list[tuple[int, Any]],
        n_old: int,
        pending: bytes,
        provisional: tuple[int, Any] | None,
        size: int,
    ) -> tuple[_State, Transcript, Repair, int, int] | None:
        """The complete lines' new state, and the state shown (with a final line that parsed)."""
        doc = Document("jsonl", records=records, problems=base.problems, pending=pending, size=size)
        shown_doc = doc
        if provisional is not None:
            shown_doc = Document("jsonl", records=[*records, provisional], problems=base.problems, size=size)
        if not self._detected(base.adapter, shown_doc):
            return None
        hook: Extends = base.adapter  # type: ignore[assignment]
        with gc_paused():
            step = hook.extend(base.transcript, doc, n_old)
            if step is None:
                return None
            transcript, changed = step
            result = repair_from(base.repair, transcript.messages, changed, self.is_read_only)
            new_base = _State(transcript, result, records, base.problems, base.adapter)
            if provisional is None:
                return new_base, transcript, result, changed, len(transcript.messages)
            more = hook.extend(transcript, shown_doc, len(records))
            if more is None:
                return None
            shown_t, shown_changed = more
            shown_r = repair_from(result, shown_t.messages, shown_changed, self.is_read_only)
        return new_base, shown_t, shown_r, min(changed, shown_changed), shown_changed

    def _detected(self, adapter: Adapter, doc: Document) -> bool:
        """Whether a full load of ``doc`` would pick ``adapter`` again."""
        try:
            if self.format:
                return adapter.sniff(doc) > 0
            return detect(doc).adapter is adapter
        except InputError:
            return False
