"""JSON in and out without loss: every value a transcript holds comes back as it was written.

Two things a fast JSON library alone would lose:

- **Integers beyond 64 bits** (``18446744073709551616``). orjson reads them as floats (the
  digits after the 17th are gone) and refuses to write them. :func:`loads` reads every integer
  exactly (msgspec does, at orjson's speed), and :func:`dumps` writes it digit for digit.
- **Lone surrogate escapes** (``"\\ud83d"``: Node writes one when a string is cut inside an
  emoji). orjson and msgspec refuse the whole document or line. :func:`loads` then reads that
  document or line alone with Python's own JSON reader, which keeps the code point, and
  :func:`dumps` writes it back as the same six-character escape (lowercase hex, as Node and
  Python write it).

Everything else goes through orjson as before: a document without such values is read and written
exactly as orjson reads and writes it, byte for byte, and a document that is not JSON is refused
with orjson's message (:class:`orjson.JSONDecodeError`), so callers keep their error texts.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import msgspec
import orjson

__all__ = ["JSONDecodeError", "dumps", "loads"]

JSONDecodeError = orjson.JSONDecodeError

_fast_decode = msgspec.json.decode

# A JSON escape of a UTF-16 surrogate (\uD800-\uDFFF): the only way a lone one gets into a file
# that is valid UTF-8.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_LONE = re.compile("[\ud800-\udfff]")


def loads(data: bytes | str) -> Any:
    """The value of one JSON document, every integer and string exactly as written.

    Raises :class:`orjson.JSONDecodeError` (with orjson's message, line and column) for text
    that is not JSON; accepts exactly what orjson accepts, and lone surrogate escapes."""
    try:
        return _fast_decode(data)
    except (msgspec.DecodeError, RecursionError):
        return loads_slowly(data)


def loads_slowly(data: bytes | str) -> Any:
    """:func:`loads` for what msgspec did not read: the same value, or orjson's error. For a loop
    that calls msgspec itself and comes here only when it fails."""
    try:
        # Also what msgspec refuses and orjson reads: nesting deeper than Python's recursion
        # limit and shallower than orjson's (1024 levels).
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        error = e
    if isinstance(data, str):
        text: str | None = data if "\\u" in data or _LONE.search(data) is not None else None
    else:
        text = None
        if _SURROGATE_ESCAPE.search(data) is not None:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
    if text is not None:
        value = _loads_keeping_surrogates(text)
        if value is not _FAILED:
            return value
    raise error


_FAILED = object()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number is infinity when parsed as double")
    return value


def _loads_keeping_surrogates(text: str) -> Any:
    """Python's reader, held to what orjson accepts (no NaN, no infinity): it differs from
    orjson only in keeping lone surrogates (and integers of any size)."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return _FAILED


def dumps(value: Any, option: int = 0) -> bytes:
    """``orjson.dumps(value, option=option)``, and the same bytes with integers beyond 64 bits
    and lone surrogates written as well (orjson refuses both). Understands ``OPT_INDENT_2``,
    ``OPT_APPEND_NEWLINE`` and ``OPT_NON_STR_KEYS`` in that case; anything else orjson cannot
    write raises its :class:`orjson.JSONEncodeError`."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError as e:
        if not _is_loss(e):
            raise
    out = _Writer(option & ~orjson.OPT_APPEND_NEWLINE).write(value, 0)
    return out + b"\n" if option & orjson.OPT_APPEND_NEWLINE else out


def _is_loss(error: orjson.JSONEncodeError) -> bool:
    """Whether orjson refused a value only because of an integer or a lone surrogate it cannot
    write (other errors, an unsupported type or nesting too deep, stand)."""
    message = str(error)
    return "64-bit" in message or "surrogates" in message


class _Writer:
    """Writes what orjson refuses, as orjson would have laid it out: orjson writes every part it
    can (a subtree without such values in one call), this writes the rest around them."""

    def __init__(self, option: int) -> None:
        self.option = option
        self.pretty = bool(option & orjson.OPT_INDENT_2)

    def write(self, value: Any, level: int) -> bytes:
        try:
            out = orjson.dumps(value, option=self.option)
        except orjson.JSONEncodeError as e:
            if not _is_loss(e):
                raise
        else:
            # Raw newlines in orjson's output are layout only (a string's are escaped).
            return out.replace(b"\n", b"\n" + b"  " * level) if self.pretty and level else out
        if isinstance(value, str):
            return _string(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value).encode()
        if isinstance(value, dict):
            items = [(self._key(k), self.write(v, level + 1)) for k, v in value.items()]
            if not self.pretty:
                return b"{" + b",".join(k + b":" + v for k, v in items) + b"}"
            inner = b"  " * (level + 1)
            body = b",\n".join(inner + k + b": " + v for k, v in items)
            return b"{\n" + body + b"\n" + b"  " * level + b"}"
        if isinstance(value, (list, tuple)):
            parts = [self.write(v, level + 1) for v in value]
            if not self.pretty:
                return b"[" + b",".join(parts) + b"]"
            inner = b"  " * (level + 1)
            return b"[\n" + b",\n".join(inner + p for p in parts) + b"\n" + b"  " * level + b"]"
        return orjson.dumps(value, option=self.option)  # raises orjson's own error

    def _key(self, key: Any) -> bytes:
        if isinstance(key, str):
            return _string(key)
        # A key orjson writes only with OPT_NON_STR_KEYS (an int, say): as orjson writes it.
        return orjson.dumps({key: None}, option=self.option & orjson.OPT_NON_STR_KEYS)[1:-6]


def _string(text: str) -> bytes:
    """A JSON string as orjson writes one, lone surrogates as ``\\udXXX`` escapes."""
    if _LONE.search(text) is None:
        return orjson.dumps(text)
    out = [b'"']
    start = 0
    for m in _LONE.finditer(text):
        if m.start() > start:
            out.append(orjson.dumps(text[start : m.start()])[1:-1])
        out.append(b"\\u%04x" % ord(m.group()))
        start = m.end()
    if start < len(text):
        out.append(orjson.dumps(text[start:])[1:-1])
    out.append(b'"')
    return b"".join(out)
