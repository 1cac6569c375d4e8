"""Tolerant reading of transcript files and atomic writing of outputs.

Reading never writes: the input is opened read-only, once. Parsing tells JSON from JSONL by
content; in JSONL a final line with no newline that does not parse is *pending* (a writer may
still be adding to it), any other bad line is a named problem. Writing goes to a temporary file
in the destination's folder, is flushed and fsynced, then renamed over the destination, so a
reader (or a crash) sees either the old file or the whole new one.
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from suture.model import LoadProblem

__all__ = [
    "Document",
    "InputError",
    "gc_paused",
    "open_atomic",
    "parse_document",
    "read_input",
    "write_atomic",
]

_BOM = b"\xef\xbb\xbf"


class InputError(Exception):
    """Input a person gave that suture cannot use. Its message is one line, fit to show as is."""


@dataclass(slots=True)
class Document:
    """A file's bytes parsed once, before any format looks at them.

    ``kind`` is ``"json"`` (one value in ``value``) or ``"jsonl"`` (``records``: 1-based line
    number and value, blank lines skipped). ``pending`` holds a final JSONL fragment with no
    newline that does not parse yet; ``problems`` names the lines that could not be parsed.
    ``pretty`` says whether a JSON file was indented, so a dump can follow it.
    """

    kind: str
    value: Any = None
    records: list[tuple[int, Any]] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    pending: bytes = b""
    pretty: bool = False
    size: int = 0


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while a large acyclic structure is built (parsed
    JSON, neutral messages). Each collection would walk the whole growing heap again, with
    nothing to free: with it running, loading a big file takes two to three times as long.
    Nests, and leaves the collector as it found it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def read_input(path: str | os.PathLike[str]) -> bytes:
    """The bytes of an input file, or an :class:`InputError` that says why not."""
    p = Path(path)
    try:
        if p.is_dir():
            raise InputError(f"{p}: is a folder, not a transcript file")
        with open(p, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except PermissionError:
        raise InputError(f"{p}: permission denied") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a folder, not a transcript file") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror or e})") from None


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


def parse_document(data: bytes) -> Document:
    """Parse a file's bytes as JSON, or failing that as JSONL. Raises :class:`InputError`."""
    if not data or data.isspace():  # (what strip() would say, without copying the bytes)
        raise InputError("the file is empty" if not data else "the file holds only whitespace")
    if data.startswith(_BOM):
        raise InputError("the file starts with a UTF-8 byte order mark, which JSON does not allow; remove it")
    if b"\x00" in data[:8192]:
        raise InputError("this is a binary file, not a JSON or JSONL transcript")
    if _first_line_is_a_value(data):
        # Then the bytes cannot be one JSON document: skip parsing them whole, which reads them all.
        return _jsonl_or_not_utf8(data, None)
    try:
        with gc_paused():
            value = orjson.loads(data)
    except orjson.JSONDecodeError as whole:
        return _jsonl_or_not_utf8(data, whole)
    # As data.strip()[:4096] would give, without copying the whole file.
    start = _NON_SPACE.search(data).start()  # type: ignore[union-attr]  # not all whitespace
    head = data[start : start + 1]
    pretty = head in (b"[", b"{") and b"\n" in data[start : min(start + 4096, _content_end(data))]
    return Document("json", value=value, pretty=pretty, size=len(data))


def _jsonl_or_not_utf8(data: bytes, whole: orjson.JSONDecodeError | None) -> Document:
    """JSONL, or an InputError that names the first byte that is not UTF-8 if there is one.

    orjson checks the UTF-8 of every line it parses, so the whole file needs decoding (a pass
    that costs a third of parsing it) only when some line did not parse."""
    try:
        with gc_paused():
            doc = _parse_jsonl(data, whole)
    except InputError:
        bad = _decode_error(data)
        if bad:
            raise InputError(bad) from None
        raise
    if doc.problems or doc.pending:
        bad = _decode_error(data, doc.pending)
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


def _first_line_is_a_value(data: bytes) -> bool:
    """Whether the first line that is not blank is a whole JSON value with more text after it."""
    start = 0
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            return False
        if data[start:end].strip():
            break
        start = end + 1
    if _NON_SPACE.search(data, end + 1) is None:
        return False
    try:
        orjson.loads(data[start:end])
    except orjson.JSONDecodeError:
        return False
    return True


def _parse_jsonl(data: bytes, whole: orjson.JSONDecodeError | None) -> Document:
    lines = data.split(b"\n")
    pending = b""
    if lines and lines[-1].strip() == b"":
        lines.pop()
        last_complete = True
    else:
        last_complete = False
    records: list[tuple[int, Any]] = []
    problems: list[LoadProblem] = []
    loads = orjson.loads
    n = len(lines)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            records.append((i + 1, loads(line)))
        except orjson.JSONDecodeError as e:
            if i == n - 1 and not last_complete:
                pending = line
                continue
            msg = str(e).split(": line ")[0]
            problems.append(LoadProblem(i + 1, f"not valid JSON at column {e.colno}: {msg}"))
    first_failed = bool(problems) and (
        not records or (problems[0].line is not None and problems[0].line < records[0][0])
    )
    if not records or first_failed:
        # Not JSONL either: one JSON document that is broken (truncated, say). Say where.
        if whole is None:
            try:
                orjson.loads(data)
            except orjson.JSONDecodeError as e:
                whole = e
        assert whole is not None
        raise InputError(_json_error(whole, data))
    return Document("jsonl", records=records, problems=problems, pending=pending, size=len(data))


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    An existing file keeps its permission bits. Returns the path written.
    """
    with open_atomic(path) as f:
        f.write(data)
    return Path(path)


@contextlib.contextmanager
def open_atomic(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file whose content replaces ``path`` when the ``with`` block ends (written to a
    temporary file in the same folder, flushed, fsynced and renamed over it), or is removed,
    leaving ``path`` as it was, when the block raises. For outputs written as they are made.

    An existing file keeps its permission bits; a device or a pipe is written in place."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        st = os.stat(target)
        mode = stat.S_IMODE(st.st_mode)
    except FileNotFoundError:
        mode = None
    else:
        if not stat.S_ISREG(st.st_mode):
            # A device or a pipe (-o /dev/null, /dev/stdout): renaming over it would replace it.
            with open(target, "wb") as f:
                yield f
            return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".suture-tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
