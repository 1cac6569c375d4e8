"""Tolerant reading of transcript files and atomic writing of outputs.

Reading never writes: the input is opened read-only, once, and never with an open that could
block (a FIFO no one writes to is given up after a while, a device is not read, a stream that
does not end is refused past a limit). Parsing tells JSON from JSONL by content; in JSONL a line
that does not parse is a named problem, the last one included when it is cut off (a writer that
crashed mid-line). Only the live reader (``parse_document(data, live=True)``) keeps a final line
with no newline that does not parse aside as *pending*: a writer may still be adding to it.
Values are read without loss (:mod:`suture.codec`): integers beyond 64 bits and lone surrogate
escapes come back exactly as written.

Writing first follows the destination's links to the file they point at (:func:`output_target`),
so a link stays a link; every write of a command is prepared before any is made
(:func:`write_files`). A regular file is written to a temporary file in its folder, flushed and
fsynced, then renamed over it, so a reader (or a crash) sees either the old file or the whole new
one; a device, a FIFO or a ``/dev/fd`` link (``/dev/stderr``) is written straight through.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import gc
import os
import re
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

import msgspec
import orjson
from msgspec import Struct, field

from suture import show
from suture.codec import loads, loads_slowly
from suture.model import LoadProblem

__all__ = [
    "INPUT_WAIT",
    "OUTPUT_WAIT",
    "STDOUT",
    "STREAM_LIMIT",
    "Document",
    "InputError",
    "Layout",
    "Target",
    "file_key",
    "first_line_is_a_value",
    "gc_paused",
    "json_layout",
    "keeping_built",
    "open_atomic",
    "open_file",
    "output_target",
    "parse_document",
    "read_input",
    "same_file",
    "write_atomic",
    "write_files",
]

_BOM = b"\xef\xbb\xbf"


class InputError(Exception):
    """Input a person gave that suture cannot use. Its message is one line, fit to show as is."""


class Document(Struct):
    """A file's bytes parsed once, before any format looks at them.

    ``kind`` is ``"json"`` (one value in ``value``) or ``"jsonl"`` (``records``: 1-based line
    number and value, blank lines skipped). ``pending`` holds a final JSONL fragment with no
    newline that does not parse yet, when parsed for the live reader (otherwise it is one of the
    ``problems``, which name the lines that could not be parsed).
    ``pretty`` says whether a JSON file was indented, so a dump can follow it.
    """

    kind: str
    value: Any = None
    records: list[tuple[int, Any]] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    pending: bytes = b""
    pretty: bool = False
    size: int = 0


_keep_built = False


@contextlib.contextmanager
def keeping_built() -> Iterator[None]:
    """While in it, what is built with the collector paused (:func:`gc_paused`) is taken out of
    the collector's sight (``gc.freeze``) before the collector resumes: for a process that keeps
    what it loads (the app keeps a transcript until a reload replaces it, and frees it then by
    reference counting, as it holds no reference cycles). Otherwise the first collection after
    the collector resumes walks every object built meanwhile, on whichever thread allocates
    next: seconds at a million messages, every key waiting."""
    global _keep_built
    was, _keep_built = _keep_built, True
    try:
        yield
    finally:
        _keep_built = was


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while a large acyclic structure is built (parsed
    JSON, neutral messages). Each collection would walk the whole growing heap again, with
    nothing to free: with it running, loading a big file takes two to three times as long.
    Nests, and leaves the collector as it found it (see :func:`keeping_built` for what a
    process that keeps what it built does on the way out)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _keep_built:
            gc.freeze()
        gc.enable()


INPUT_WAIT = 10.0
"""Seconds a read from a FIFO or pipe waits for its first byte before giving up."""

STREAM_LIMIT = 4 << 30
"""Most bytes read from a FIFO or pipe: a stream that goes on longer is refused."""


def _open_reading(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A descriptor opened without blocking (a FIFO with no writer would block a plain open)
    and its status. Raises :class:`InputError`."""
    shown = show.path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(f"{shown}: no such file") from None
    except PermissionError:
        raise InputError(f"{shown}: permission denied") from None
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise InputError(f"{shown}: is a socket, not a transcript file") from None
        raise InputError(f"{shown}: cannot read ({e.strerror or e})") from None
    try:
        return fd, os.fstat(fd)
    except OSError as e:
        os.close(fd)
        raise InputError(f"{shown}: cannot read ({e.strerror or e})") from None


def _not_a_file(shown: str, fd: int, mode: int) -> InputError:
    if stat.S_ISDIR(mode):
        return InputError(f"{shown}: is a folder, not a transcript file")
    if stat.S_ISFIFO(mode):
        return InputError(f"{shown}: is a FIFO or a pipe, not a file; save what it carries to a file first")
    if stat.S_ISSOCK(mode):
        return InputError(f"{shown}: is a socket, not a transcript file")
    what = "a terminal" if os.isatty(fd) else "a device"
    return InputError(f"{shown}: is {what}, not a transcript file")


def open_file(path: str | os.PathLike[str]) -> BinaryIO:
    """A regular file opened for reading, never blocking on the way: a FIFO, a device, a socket
    or a folder is an :class:`InputError` that says so. For readers that come back to a file
    (the app's live reload), where a stream could not be read again."""
    fd, st = _open_reading(path)
    if not stat.S_ISREG(st.st_mode):
        error = _not_a_file(show.path(path), fd, st.st_mode)
        os.close(fd)
        raise error
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_input(
    path: str | os.PathLike[str],
    *,
    streams: bool = True,
    wait: float = INPUT_WAIT,
    limit: int = STREAM_LIMIT,
) -> bytes:
    """The bytes of an input file, or an :class:`InputError` that says why not.

    With ``streams``, a FIFO or pipe (``/dev/stdin`` fed by ``|``) is read to its end: its first
    byte is awaited at most ``wait`` seconds and more than ``limit`` bytes are refused. A device
    (``/dev/zero``, a terminal) is never read."""
    if not streams:
        with open_file(path) as f:
            return _read_all(f, path)
    fd, st = _open_reading(path)
    shown = show.path(path)
    try:
        if stat.S_ISREG(st.st_mode):
            os.set_blocking(fd, True)
            with os.fdopen(os.dup(fd), "rb") as f:
                return _read_all(f, path)
        if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
            return _read_stream(fd, shown, wait, limit)
        raise _not_a_file(shown, fd, st.st_mode)
    finally:
        os.close(fd)


def _read_all(f: BinaryIO, path: str | os.PathLike[str]) -> bytes:
    try:
        return f.read()
    except OSError as e:
        if e.errno == errno.EISDIR:
            raise InputError(f"{show.path(path)}: is a folder, not a transcript file") from None
        raise InputError(f"{show.path(path)}: cannot read ({e.strerror or e})") from None


def _read_stream(fd: int, shown: str, wait: float, limit: int) -> bytes:
    """A FIFO or pipe read to its end: the first byte awaited at most ``wait`` seconds (a FIFO
    that no one writes to), at most ``limit`` bytes."""
    import select

    deadline = time.monotonic() + wait
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise InputError(f"{shown}: nothing came through it in {wait:g} s (a FIFO that no one writes to?)")
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if ready:
            break
    os.set_blocking(fd, True)
    chunks: list[bytes] = []
    total = 0
    while True:
        try:
            chunk = os.read(fd, 1 << 20)
        except OSError as e:
            raise InputError(f"{shown}: cannot read ({e.strerror or e})") from None
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise InputError(f"{shown}: more than {_size(limit)} without an end; not a transcript suture can read")
        chunks.append(chunk)


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:g} {unit}"
        n //= 1024
    return f"{n} bytes"  # pragma: no cover


def _decode_error(data: bytes, pending: bytes = b"") -> str | None:
    """Where ``data`` first fails to be UTF-8, or None. A character cut off at the very end of a
    pending last line is not an error: the writer has not finished writing it yet."""
    cut = len(data) - len(pending) if pending and data.endswith(pending) else len(data)
    offset = 0
    try:
        (data if cut == len(data) else data[:cut]).decode("utf-8")
        if cut != len(data):
            offset = cut
            codecs.getincrementaldecoder("utf-8")().decode(pending, final=False)
    except UnicodeDecodeError as e:
        start = offset + e.start
        line = data.count(b"\n", 0, start) + 1
        return f"not UTF-8 text: byte 0x{data[start]:02x} at line {line} (offset {start})"
    return None


def _json_error(e: orjson.JSONDecodeError, data: bytes, line_offset: int = 0) -> str:
    """orjson's message, without its own position, with line and column."""
    msg = str(e.msg if hasattr(e, "msg") else e).split(": line ")[0]
    return f"not valid JSON at line {e.lineno + line_offset}, column {e.colno}: {msg}"


def parse_document(data: bytes, *, live: bool = False) -> Document:
    """Parse a file's bytes as JSON, or failing that as JSONL. Raises :class:`InputError`.

    ``live``: the bytes are a file a writer may still be adding to, so a final JSONL line with
    no newline that does not parse is ``pending`` rather than a problem."""
    if not data or data.isspace():  # (what strip() would say, without copying the bytes)
        raise InputError("the file is empty" if not data else "the file holds only whitespace")
    if data.startswith(_BOM):
        raise InputError("the file starts with a UTF-8 byte order mark, which JSON does not allow; remove it")
    if b"\x00" in data[:8192]:
        raise InputError(_wide_text(data) or "this is a binary file, not a JSON or JSONL transcript")
    if first_line_is_a_value(data):
        # Then the bytes cannot be one JSON document: skip parsing them whole, which reads them all.
        return _jsonl_or_not_utf8(data, None, live)
    try:
        with gc_paused():
            value = loads(data)
    except orjson.JSONDecodeError as whole:
        return _jsonl_or_not_utf8(data, whole, live)
    # As data.strip()[:_HEAD] would give, without copying the whole file.
    start = _NON_SPACE.search(data).start()  # type: ignore[union-attr]  # not all whitespace
    head = data[start : start + 1]
    pretty = head in (b"[", b"{") and b"\n" in data[start : min(start + _HEAD, _content_end(data))]
    return Document("json", value=value, pretty=pretty, size=len(data))


_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def _wide_text(data: bytes) -> str | None:
    """What to say of UTF-16 or UTF-32 text (Windows tools write it), which has zero bytes and so
    would pass for binary: its name and how to convert it. None for anything else."""
    name = _wide_name(data)
    if name is None:
        return None
    return f"the file is {name} text; suture reads UTF-8: convert it first (iconv -f {name} -t UTF-8)"


def _wide_name(data: bytes) -> str | None:
    found = [name for bom, name in _WIDE_BOMS if data.startswith(bom)]
    if found:
        return found[0]
    # No byte order mark: ASCII text (as JSON starts) with a zero byte beside each character.
    sample = data[: min(len(data), 64) // 2 * 2]
    for zeros, name in ((1, "UTF-16LE"), (0, "UTF-16BE")):
        if sample[zeros::2].count(0) == len(sample) // 2 and _ASCII_TEXT.fullmatch(sample[1 - zeros :: 2]):
            return name
    return None


_ASCII_TEXT = re.compile(rb"[\t\n\r\x20-\x7e]+")


def _jsonl_or_not_utf8(data: bytes, whole: orjson.JSONDecodeError | None, live: bool) -> Document:
    """JSONL, or an InputError that names the first byte that is not UTF-8 if there is one.

    orjson checks the UTF-8 of every line it parses, so the whole file needs decoding (a pass
    that costs a third of parsing it) only when some line did not parse."""
    try:
        with gc_paused():
            doc, cut = _parse_jsonl(data, whole, live)
    except InputError:
        bad = _decode_error(data)
        if bad:
            raise InputError(bad) from None
        raise
    if doc.problems or cut:
        # A character cut off at the end of a cut-off last line is part of that line's damage.
        bad = _decode_error(data, cut)
        if bad:
            raise InputError(bad) from None
    return doc


_NON_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def _content_end(data: bytes) -> int:
    """One past the last byte that is not whitespace (``len(data.rstrip())``, without the copy)."""
    end = len(data)
    while end:
        chunk = data[max(0, end - 65536) : end]
        kept = chunk.rstrip()
        if kept:
            return end - len(chunk) + len(kept)
        end -= len(chunk)
    return 0


def first_line_is_a_value(data: Any, within: int | None = None) -> bool:
    """Whether the first line that is not blank is a whole JSON value with more text after it.

    ``within``: a line that does not end within that many bytes of its start counts as no such
    value, its end not looked for (a JSON document on one line is not scanned whole for that)."""
    start = 0
    while True:
        end = data.find(b"\n", start, len(data) if within is None else start + within)
        if end < 0:
            return False
        if data[start:end].strip():
            break
        start = end + 1
    if _NON_SPACE.search(data, end + 1) is None:
        return False
    try:
        loads(data[start:end])
    except orjson.JSONDecodeError:
        return False
    return True


# -- the layout of a JSON document -------------------------------------------------------------

_HEAD = 4096
"""How many bytes from its start say how a JSON document is laid out (whether it is ``pretty``,
its :func:`json_layout`): a large file is not read further for that."""

# A whole JSON string (one cut off where the bytes looked at end is a lone quote), or a quote or
# colon outside strings.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[":]')
# A member's key at the start of an indented line, and the space after its colon.
_KEY_SPACE = re.compile(rb'\n([ \t]*"[^"\\\n]*(?:\\.[^"\\\n]*)*"): ')
# The escape of a lone surrogate as suture.codec writes it (\udXXX, after an even number of
# backslashes), and the escape of a private-use character it stands in as (\ueXXX: orjson
# writes such a character as itself, never as an escape) while msgspec lays a document out.
_LONE_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\ud")
_STAND_IN = re.compile(rb"(?<!\\)((?:\\\\)*)\\ue")


class Layout(Struct, frozen=True):
    """How a JSON document is laid out, as far as :meth:`write` follows it (:func:`json_layout`
    finds it in a file's bytes).

    ``indent`` is one level's indentation (``b"  "``, ``b"    "``, ``b"\\t"``), ``None`` for a
    document on one line; ``colon`` follows a member's key (``b": "`` or ``b":"``; on one line,
    items are then parted by ``b", "`` or ``b","`` alike, as Python's ``json.dumps`` and
    JavaScript's ``JSON.stringify`` write them); ``newline`` ends a line (``b"\\n"`` or
    ``b"\\r\\n"``); ``before`` and ``after`` are the whitespace around the document (``after`` is
    ``b"\\n"`` for a final newline, ``b""`` for none). The default is how suture writes a document.
    """

    indent: bytes | None = b"  "
    colon: bytes = b": "
    newline: bytes = b"\n"
    before: bytes = b""
    after: bytes = b"\n"

    def write(self, data: bytes) -> bytes:
        """``data``, one JSON document as orjson writes it (two-space indent or one line, with or
        without a final newline), laid out so. Only whitespace between values changes: every
        value keeps its bytes (a number, an escape in a string). A document msgspec cannot lay
        out (nested deeper than it reads) is returned as it is."""
        end = _content_end(data)
        body = memoryview(data)[:end]  # (msgspec reads it where it is: no copy of a large file)
        pretty = data[1:2] == b"\n"  # orjson's two-space indent (else one line)
        if self.indent is None:
            kept = not pretty and self.colon == b":"
            laid = None if kept else _laid_out(body, 0 if self.colon == b": " else -1)
        else:
            kept = pretty and self.indent == b"  " and self.colon == b": " and self.newline == b"\n"
            laid = None if kept else self._indented(body, pretty)
        if kept:
            return data if not self.before and data[end:] == self.after else b"".join((self.before, body, self.after))
        return data if laid is None else b"".join((self.before, laid, self.after))

    def _indented(self, body: memoryview, pretty: bool) -> bytes | None:
        indent = self.indent
        assert indent is not None
        laid = bytes(body) if pretty and indent == b"  " else _laid_out(body, len(indent))
        if laid is None:
            return None
        if indent.startswith(b"\t"):
            laid = _tabs(laid)
        if self.colon == b":":
            laid = _KEY_SPACE.sub(rb"\n\1:", laid)
        if self.newline != b"\n":
            laid = laid.replace(b"\n", self.newline)  # (a raw newline is layout: a string's is escaped)
        return laid


def _laid_out(data: bytes | memoryview, indent: int) -> bytes | None:
    """``msgspec.json.format(data, indent=indent)``: values' bytes as they are, only whitespace
    between them made anew. None where msgspec cannot (nesting too deep)."""
    try:
        return msgspec.json.format(data, indent=indent)
    except (msgspec.DecodeError, RecursionError):
        pass
    # msgspec refuses a lone surrogate's escape: lay the document out with a stand-in for each.
    try:
        return _STAND_IN.sub(rb"\1\\ud", msgspec.json.format(_LONE_ESCAPE.sub(rb"\1\\ue", bytes(data)), indent=indent))
    except (msgspec.DecodeError, RecursionError):
        return None


def _tabs(data: bytes) -> bytes:
    """``data`` with tabs for the spaces it is indented by. (A raw tab in JSON is layout only:
    one in a string is escaped.)"""
    data = data.replace(b"\n ", b"\n\t")
    while b"\t " in data:
        data = data.replace(b"\t ", b"\t\t")
    return data


def json_layout(data: bytes) -> Layout | None:
    """How ``data``, the bytes of a file, lays out its JSON document: found in its first
    :data:`_HEAD` bytes and the whitespace around it, so a large file is not read again.

    None where ``data`` is not one JSON array or object (JSONL, say), or lays it out in a way
    :class:`Layout` does not follow: lines not indented by one unit a level (a mix of tabs and
    spaces), an element written whole on its own line."""
    found = _NON_SPACE.search(data)
    if found is None or data[found.start()] not in b"[{" or first_line_is_a_value(data):
        return None
    start, end = found.start(), _content_end(data)
    head = data[start : min(start + _HEAD, end)]
    colon = _colon(head)
    if b"\n" not in head:
        return Layout(None, colon or b":", b"\n", data[:start], data[end:])
    lines = head.split(b"\n")
    if lines[0].rstrip(b"\r") not in (b"[", b"{"):
        return None
    second = lines[1]
    indent = second[: len(second) - len(second.lstrip(b" \t"))]
    if not indent or indent.strip(indent[:1]):
        return None
    for line in lines[1:-1]:  # the last may be cut off where the head ends
        text = line.lstrip(b" \t")
        lead = line[: len(line) - len(text)]
        if lead != indent * (len(lead) // len(indent)):
            return None
        text = text.rstrip(b"\r").removesuffix(b",")
        if text[:1] in (b"[", b"{") and text not in (b"[", b"{", b"[]", b"{}"):
            return None  # an element on one line: a layout of its own
    newline = b"\r\n" if lines[0].endswith(b"\r") else b"\n"
    return Layout(indent, colon or b": ", newline, data[:start], data[end:])


def one_line_layout(line: bytes) -> Layout | None:
    """How a JSON value written on one line (a JSONL record) is spaced, for another written beside
    it: a space after each colon and comma (``{"role": "user", …}``, as Python's ``json.dumps``
    writes), or None for none (as ``JSON.stringify`` and suture write)."""
    return Layout(None, b": ", b"\n", b"", b"") if _colon(line[:_HEAD]) == b": " else None


def _colon(head: bytes) -> bytes | None:
    """What follows the first colon outside a string in ``head``: ``b": "`` or ``b":"``. None
    where there is none, or what follows it is neither."""
    for m in _TOKEN.finditer(head):
        if m.group() == b'"':
            return None  # a string cut off where the head ends
        if m.group() == b":":
            after = head[m.end() : m.end() + 1]
            return b": " if after == b" " else None if after in (b"", b"\t", b"\n", b"\r") else b":"
    return None


def _parse_jsonl(data: bytes, whole: orjson.JSONDecodeError | None, live: bool) -> tuple[Document, bytes]:
    """The JSONL document, and its last line when that is cut off (no newline, not JSON)."""
    lines = data.split(b"\n")
    pending = b""
    if lines and lines[-1].strip() == b"":
        lines.pop()
        last_complete = True
    else:
        last_complete = False
    records: list[tuple[int, Any]] = []
    problems: list[LoadProblem] = []
    decode = msgspec.json.decode  # suture.codec.loads, without a call per line around it
    n = len(lines)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            records.append((i + 1, decode(line)))
            continue
        except (msgspec.DecodeError, RecursionError):
            pass
        try:
            records.append((i + 1, loads_slowly(line)))
        except orjson.JSONDecodeError as e:
            if i == n - 1 and not last_complete:
                pending = line
                if live:
                    continue
            what = f"not valid JSON at column {e.colno}: {str(e).split(': line ')[0]}"
            if pending:
                what = f"cut off: the file ends inside this line ({what})"
            problems.append(LoadProblem(i + 1, what))
    first_failed = bool(problems) and (
        not records or (problems[0].line is not None and problems[0].line < records[0][0])
    )
    if not records or first_failed:
        # Not JSONL either: one JSON document that is broken (truncated, say). Say where.
        if whole is None:
            try:
                loads(data)
            except orjson.JSONDecodeError as e:
                whole = e
        assert whole is not None
        raise InputError(_json_error(whole, data))
    doc = Document("jsonl", records=records, problems=problems, pending=pending if live else b"", size=len(data))
    return doc, pending


# -- writing ---------------------------------------------------------------------------------

STDOUT = "-"
"""The output name that means standard output."""

OUTPUT_WAIT = 10.0
"""Seconds a write to a FIFO waits for a reader to open it before giving up."""

_FD_LINK = re.compile(r"/(?:proc/(?:self|thread-self|(\d+)(?:/task/\d+)?)|dev)/fd/(\d+)")
_MAX_LINKS = 40


class Target(Struct, frozen=True):
    """Where a write would go, found by following every link before anything is written.

    ``kind`` is ``stdout`` (``-``), ``fd`` (a ``/dev/fd/N`` or ``/proc/self/fd/N`` link, such as
    ``/dev/stderr``: written to descriptor N, where it points now), ``file`` (a regular file,
    replaced atomically), ``new`` (no file there yet), ``device`` or ``fifo`` (written straight
    through). ``path`` is the file that receives the bytes once links are followed, so a link
    stays a link. Two targets, or a target and an input, with one ``key`` are the same file.
    """

    given: str
    kind: str
    path: str
    key: tuple[object, ...]
    fd: int | None = None
    mode: int | None = None

    @property
    def shown(self) -> str:
        """The name as given, fit for a terminal."""
        return show.path(self.given)

    @property
    def is_stdout(self) -> bool:
        return self.kind == "stdout" or (self.kind == "fd" and self.fd == 1)

    @property
    def is_device(self) -> bool:
        """A character device (a terminal, /dev/null): writing two things there is no clash."""
        return self.key[0] == "chr"


def _stat_key(st: os.stat_result) -> tuple[object, ...]:
    return ("chr" if stat.S_ISCHR(st.st_mode) else "inode", st.st_dev, st.st_ino)


def file_key(path: str | os.PathLike[str]) -> tuple[object, ...]:
    """Which file ``path`` is, to compare with a :class:`Target`'s ``key``: device and inode
    where it exists (links followed), else its absolute path with the folders' links resolved."""
    try:
        return _stat_key(os.stat(path))
    except OSError:
        head, tail = os.path.split(os.path.abspath(os.fspath(path)))
        return ("path", os.path.join(os.path.realpath(head), tail))


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two names are one file (by :func:`file_key`)."""
    return file_key(a) == file_key(b)


NO_OUTPUT_NAME = "the output's name is empty: give a file name, or - for standard output"
"""What an output named by an empty string (``-o ''``) is told."""


def output_target(given: str | os.PathLike[str] | None, planned: bool = False) -> Target:
    """Follow ``given`` (None or ``-``: standard output) to where a write would land, without
    writing. Raises :class:`InputError` for what cannot be written: a folder, a socket, a block
    device, a descriptor that is not open, a missing folder (unless ``planned``: a folder that
    will be made before the write), a loop of links."""
    if given is None or os.fspath(given) == STDOUT:
        try:
            st = os.fstat(sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            raise InputError("cannot write to stdout: it is closed") from None
        return Target(STDOUT, "stdout", STDOUT, _stat_key(st), fd=None)
    name = os.fspath(given)
    if not name:
        raise InputError(NO_OUTPUT_NAME)
    shown = show.path(name)
    p = os.path.abspath(name)
    for _ in range(_MAX_LINKS):
        head, tail = os.path.split(p)
        head = os.path.realpath(head)
        p = os.path.join(head, tail)
        fd_link = _FD_LINK.fullmatch(p)
        if fd_link and (fd_link.group(1) is None or int(fd_link.group(1)) == os.getpid()):
            fd = int(fd_link.group(2))
            try:
                st = os.fstat(fd)
            except OSError:
                raise InputError(f"{shown}: file descriptor {fd} is not open") from None
            return Target(name, "fd", p, _stat_key(st), fd=fd)
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            if not planned and not os.path.isdir(head):
                raise InputError(f"{shown}: cannot write: no such folder {show.path(head)}") from None
            return Target(name, "new", p, ("path", p))
        except OSError as e:
            raise InputError(f"{shown}: cannot write ({e.strerror or e})") from None
        if not stat.S_ISLNK(st.st_mode):
            break
        p = os.path.join(head, os.readlink(p))
    else:
        raise InputError(f"{shown}: too many levels of links")
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        raise InputError(f"{shown}: is a folder, not a file")
    if stat.S_ISREG(mode):
        return Target(name, "file", p, _stat_key(st), mode=stat.S_IMODE(mode))
    if stat.S_ISCHR(mode):
        return Target(name, "device", p, _stat_key(st))
    if stat.S_ISFIFO(mode):
        return Target(name, "fifo", p, _stat_key(st))
    if stat.S_ISSOCK(mode):
        raise InputError(f"{shown}: is a socket; suture writes to files, FIFOs and terminals")
    raise InputError(f"{shown}: is a block device; suture does not write to disks")


class _Pending(Struct):
    """A write prepared and not yet visible: a temporary file to rename, or a descriptor to
    write to (``owned`` when this write opened it)."""

    target: Target
    data: bytes
    tmp: str | None = None
    fd: int | None = None
    owned: bool = False
    in_place: bool = False


def _read_only(target: Target) -> bool:
    mode = target.mode or 0
    return not mode & 0o222 or not os.access(target.path, os.W_OK)


def _new_mode(target: Target) -> int:
    if target.mode is not None:
        return target.mode
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


_TEMPORARY = ".suture-tmp"
_LEFT = re.compile(r"([1-9][0-9]{0,9})\.[a-z0-9_]{8}")
_left_in: dict[str, dict[str, list[tuple[int, str]]]] = {}
"""Per folder, per file name: the temporary files earlier writes left there (their PID, path),
listed the first time this process writes in the folder (a folder of many outputs is listed
once, not once per output)."""
_left_lock = threading.Lock()


def _temporary_file(folder: str, name: str) -> tuple[int, str]:
    """A new temporary file for writing ``name`` in ``folder``: ``.NAME.PID.XXXXXXXX.suture-tmp``,
    renamed over ``name`` once whole. Those an earlier write of ``name`` left there, its process
    killed before the rename (its PID no longer runs), are removed first. (A process of another
    PID namespace writing the same file into a shared folder at the same time would see its
    rename fail: it loses nothing, and one of the two writes would have been lost anyway.)"""
    where = os.path.abspath(folder or ".")
    with _left_lock:
        if where not in _left_in:
            _left_in[where] = _left_behind(where)
        left = _left_in[where].pop(name, [])
    for pid, path in left:
        with contextlib.suppress(OSError):
            if not _running(pid) and stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
    return tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=_TEMPORARY, dir=folder)


def _left_behind(folder: str) -> dict[str, list[tuple[int, str]]]:
    """The temporary files of ``folder`` named as :func:`_temporary_file` names them, by the name
    of the file each was to become (read from the right: a name may hold dots)."""
    found: dict[str, list[tuple[int, str]]] = {}
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            left = entry.name
            if not (left.startswith(".") and left.endswith(_TEMPORARY)):
                continue
            parts = left[1 : -len(_TEMPORARY)].rsplit(".", 2)
            if len(parts) == 3 and parts[0] and (named := _LEFT.fullmatch(f"{parts[1]}.{parts[2]}")):
                found.setdefault(parts[0], []).append((int(named.group(1)), entry.path))
    return found


def _running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one that is not ours to signal does; and
    any, where signal 0 does not only ask: on Windows it ends the process)."""
    if pid == os.getpid() or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # (not ours to signal; a number no process can have)
        return True
    return True


def _temporary(target: Target, data: bytes) -> str:
    folder, name = os.path.split(target.path)
    fd, tmp = _temporary_file(folder, name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _new_mode(target))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _open_fifo(target: Target, wait: float) -> int:
    """A FIFO opened for writing once a reader has it open; never blocks longer than ``wait``."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(target.path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            if e.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            if time.monotonic() >= deadline:
                raise InputError(
                    f"{target.shown}: a FIFO that no one reads (waited {wait:g} s); nothing written"
                ) from None
            time.sleep(0.05)
            continue
        os.set_blocking(fd, True)
        return fd


def _prepare(target: Target, data: bytes, wait: float) -> _Pending:
    kind = target.kind
    if kind == "stdout":
        return _Pending(target, data)
    if kind == "fd":
        return _Pending(target, data, fd=target.fd)
    if kind == "fifo":
        return _Pending(target, data, fd=_open_fifo(target, wait), owned=True)
    if kind == "device":
        fd = os.open(target.path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC)
        os.set_blocking(fd, True)
        return _Pending(target, data, fd=fd, owned=True)
    if kind == "file" and _read_only(target):
        raise InputError(
            f"{target.shown}: is read-only; suture does not replace it (make it writable, or write elsewhere)"
        )
    try:
        return _Pending(target, data, tmp=_temporary(target, data))
    except OSError as e:
        if kind != "file" or e.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
    # The folder cannot hold a temporary file but the file itself can be written: in place.
    fd = os.open(target.path, os.O_WRONLY | os.O_CLOEXEC)
    return _Pending(target, data, fd=fd, owned=True, in_place=True)


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _commit(pending: _Pending) -> None:
    target, data = pending.target, pending.data
    if pending.tmp is not None:
        os.replace(pending.tmp, target.path)
        pending.tmp = None
        _fsync_folder(os.path.dirname(target.path))
        return
    if target.kind == "stdout":
        stream = sys.stdout
        stream.flush()
        if stream.isatty():
            data = show.inert_json(data)
        try:
            fd = stream.fileno()
        except (OSError, ValueError):  # a stream with no descriptor (a test's capture)
            stream.buffer.write(data)
            stream.buffer.flush()
            return
        _write_fd(fd, data)  # (unbuffered: nothing is left to fail again at exit)
        return
    assert pending.fd is not None
    if pending.in_place:
        os.ftruncate(pending.fd, 0)
        _write_fd(pending.fd, data)
        os.fsync(pending.fd)
        return
    if os.isatty(pending.fd):
        data = show.inert_json(data)
    _write_fd(pending.fd, data)


def _fsync_folder(folder: str) -> None:
    try:
        dir_fd = os.open(folder or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def write_files(writes: Sequence[tuple[Target, bytes]], wait: float = OUTPUT_WAIT) -> list[str]:
    """Write each ``(target, data)``, all or nothing as far as the system allows.

    Every write is prepared first (temporary files written and fsynced, FIFOs and devices
    opened); if any preparation fails, nothing is written. Then the writes to streams go out
    and the temporary files are renamed over their targets. A regular file whose folder cannot
    hold a temporary file is written in place. On a terminal, JSON's raw C1 and invisible
    characters are written as escapes (:func:`suture.show.inert_json`: the same value).

    Returns a one-line note per write that was not atomic. Raises :class:`InputError` (the
    target named) for a target that cannot be written; ``BrokenPipeError`` as it comes.
    """
    pending: list[_Pending] = []
    current: Target | None = None
    try:
        for target, data in writes:
            current = target
            pending.append(_prepare(target, data, wait))
        for item in sorted(pending, key=lambda p: p.tmp is not None):  # streams first, renames last
            current = item.target
            _commit(item)
    except BrokenPipeError:
        raise
    except OSError as e:
        assert current is not None
        if current.kind == "stdout":
            raise InputError(f"cannot write to stdout ({e.strerror or e})") from None
        raise InputError(f"{current.shown}: cannot write ({e.strerror or e})") from None
    finally:
        for item in pending:
            if item.owned and item.fd is not None:
                with contextlib.suppress(OSError):
                    os.close(item.fd)
            if item.tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(item.tmp)
    return [
        f"{p.target.shown}: written in place, not atomically (its folder does not allow a temporary file)"
        for p in pending
        if p.in_place
    ]


def backup_name(path: str | os.PathLike[str]) -> str:
    """``NAME.bak`` beside ``path``, or ``NAME.bak.2``, ``.3``, ... where that is taken (the
    copy never replaces a file; its name does not end in ``.jsonl``, so no agent lists it as
    a session of its own)."""
    for k in range(1, 1000):
        name = f"{os.fspath(path)}.bak" if k == 1 else f"{os.fspath(path)}.bak.{k}"
        if not os.path.lexists(name):
            return name
    raise InputError(f"{show.path(os.fspath(path))}: every backup name from .bak to .bak.999 is taken; remove some")


def write_atomic(path: str | os.PathLike[str], data: bytes, wait: float = OUTPUT_WAIT) -> list[str]:
    """Write ``data`` to ``path`` as :func:`write_files` does: through links to the file they
    point at, atomically for a regular file, straight through for a device, FIFO or descriptor
    link. Returns the notes of :func:`write_files`."""
    return write_files([(output_target(path), data)], wait)


@contextlib.contextmanager
def open_atomic(path: str | os.PathLike[str], wait: float = OUTPUT_WAIT) -> Iterator[BinaryIO]:
    """A binary file whose content replaces ``path`` when the ``with`` block ends (written to a
    temporary file in the same folder, flushed, fsynced and renamed over it), or is removed,
    leaving ``path`` as it was, when the block raises. For outputs written as they are made.

    The destination is found as :func:`write_files` finds it: links followed (a link stays a
    link), a device, a FIFO or a descriptor link written straight through as the block writes, a
    read-only file refused, a file whose folder takes no temporary file written in place. An
    existing file keeps its permission bits."""
    target = output_target(path)
    if target.kind == "stdout":
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    if target.kind in ("fd", "fifo", "device"):
        pending = _prepare(target, b"", wait)
        assert pending.fd is not None
        with os.fdopen(pending.fd if pending.owned else os.dup(pending.fd), "wb") as f:
            yield f
        return
    if target.kind == "file" and _read_only(target):
        raise InputError(
            f"{target.shown}: is read-only; suture does not replace it (make it writable, or write elsewhere)"
        )
    folder, name = os.path.split(target.path)
    try:
        fd, tmp = _temporary_file(folder, name)
    except OSError as e:
        if target.kind != "file" or e.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        with open(target.path, "r+b") as f:  # the folder takes no temporary file: in place
            f.truncate(0)
            yield f
        return
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _new_mode(target))
        os.replace(tmp, target.path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)
