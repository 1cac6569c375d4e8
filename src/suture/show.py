"""The one way suture shows untrusted text: transcript content, ids, tool names, file names.

A transcript or a file name can hold anything: escape sequences that set the clipboard, retitle
the window or clear the screen (ESC, and the C1 controls some terminals obey on their own), a
newline that forges an output line, bidirectional overrides that reorder what follows them,
invisible characters that make two different ids look alike. Every place that puts such text
on a terminal (each command's human output, every ``suture: error:`` line, the app's rows,
details, input boxes and notifications) passes it through one of these functions:

- :func:`line`: an id, a tool name, a file name, an error message: one line, nothing invisible.
- :func:`prose`: a one-line summary of transcript text: whitespace runs become one space.
- :func:`block`: transcript text shown over several lines: newlines kept, tabs as spaces.
- :func:`path`: a file name as given on the command line (bytes that are not UTF-8 as ``\\xNN``).
- :func:`dumps` and :func:`inert_json`: JSON for a terminal or a script, with the C1 controls and
  invisible characters that JSON allows raw written as ``\\u`` escapes (the same JSON value).

What is escaped is shown as Python writes it in a string literal (``\\n``, ``\\x1b``,
``\\u202e``), the same in the command line and the app, so an id can be read, compared and
searched for as shown. Text with nothing to escape is returned as is, at the cost of one
``str.isprintable`` call. This module imports nothing from the app.
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import Any

import orjson

__all__ = ["block", "dumps", "escape_char", "inert_json", "line", "path", "path_json", "prose"]

# Every character that is a control (C0, DEL, C1), a format character (bidi overrides and
# isolates, zero-width spaces, the byte order mark, soft hyphen, tag characters, and the rest of
# Unicode's Cf category), a line or paragraph separator, or a lone surrogate. A test checks
# that this covers every Cf character of the running Python's Unicode database.
_CONTROLS = "\x00-\x1f\x7f-\x9f"
_FORMAT_BMP = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
_FORMAT_ASTRAL = (
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_FORMAT = _FORMAT_BMP + _FORMAT_ASTRAL
_SEPARATORS = "\u2028\u2029"
_SURROGATES = "\ud800-\udfff"
# Joiners shape scripts and emoji sequences in running text; in a name they only hide a difference.
_JOINERS = "\u200c\u200d"
# Spaces other than U+0020: ordinary in prose, a disguise in a name.
_SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"

_ALWAYS = _CONTROLS + _FORMAT + _SEPARATORS + _SURROGATES
_LINE = f"[{_ALWAYS}{_JOINERS}{_SPACES}]"
_PROSE = f"[{_ALWAYS}]"
_BLOCK = f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_FORMAT}{_SEPARATORS}{_SURROGATES}]"
_WHITESPACE = re.compile(r"\s+")


@cache
def _pattern(source: str) -> re.Pattern[str]:
    """``source`` compiled when first used. A class of characters across Unicode takes about a
    millisecond to compile, and most text (printable, or printable once its whitespace is one
    space) never needs one: compiled at import, they would make every start of the app wait."""
    return re.compile(source)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_char(ch: str) -> str:
    """One character as a string literal writes it: ``\\n``, ``\\x1b``, ``\\u202e``, ``\\U000e0041``."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _sub(match: re.Match[str]) -> str:
    return escape_char(match.group())


def line(text: str) -> str:
    """``text`` as one line a terminal shows as it is: every control character (newline and tab
    too), format character, separator, joiner, space other than U+0020 and lone surrogate is
    written as its escape. For ids, tool names, file names and messages that quote them."""
    if text.isprintable():
        return text
    return _pattern(_LINE).sub(_sub, text)


def prose(text: str) -> str:
    """Transcript text as a one-line summary: each run of whitespace (newlines too) becomes one
    space, then what :func:`line` escapes is escaped, except joiners (emoji and scripts need them)."""
    if text.isprintable():
        return text
    text = _WHITESPACE.sub(" ", text)
    if text.isprintable():  # (most often: it had newlines, and nothing else to escape)
        return text
    return _pattern(_PROSE).sub(_sub, text)


def block(text: str) -> str:
    """Transcript text shown over several lines: newlines kept (``\\r\\n`` as ``\\n``), a tab as
    four spaces, everything else :func:`prose` escapes escaped."""
    if text.isprintable():
        return text
    return _pattern(_BLOCK).sub(_sub, text.replace("\r\n", "\n").replace("\t", "    "))


def path_json(name: str | os.PathLike[str]) -> str:
    """A file name as text: bytes that are not UTF-8 (the operating system hands them to Python
    as lone surrogates) written as ``\\xNN``. Fit for JSON, which escapes the rest itself."""
    raw = os.fsencode(name)
    return raw.decode("utf-8", "backslashreplace")


def path(name: str | os.PathLike[str]) -> str:
    """A file name for a terminal: :func:`path_json`, then :func:`line`."""
    return line(path_json(name))


# What JSON leaves raw that a terminal may act on or that hides or reorders text: DEL, the C1
# controls, format characters (bidi, zero-width, tags), line and paragraph separators.
_RAW_IN_JSON = f"[\x7f-\x9f{_FORMAT}{_SEPARATORS}]"
_RAW_IN_JSON_BMP = f"[\x7f-\x9f{_FORMAT_BMP}{_SEPARATORS}]"
# The first bytes of those characters in UTF-8 (text with none of them has nothing to escape),
# and of the ones beyond U+FFFF, which a class of its own finds ten times faster without.
_LEAD_BYTES = (b"\x7f", b"\xc2", b"\xd8", b"\xdb", b"\xdc", b"\xe0", b"\xe1", b"\xe2", b"\xef", b"\xf0", b"\xf3")
_ASTRAL_LEADS = (b"\xf0", b"\xf3")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def inert_json(data: bytes) -> bytes:
    """UTF-8 JSON text with the characters above written as ``\\u`` escapes: the same JSON
    value, safe to print. (Outside strings JSON text is ASCII, so only strings change.)"""
    if not any(lead in data for lead in _LEAD_BYTES):
        return data
    text = data.decode("utf-8", "backslashreplace")  # (bytes that are not UTF-8 shown as \\xNN)
    pattern = _RAW_IN_JSON if any(lead in data for lead in _ASTRAL_LEADS) else _RAW_IN_JSON_BMP
    return _pattern(pattern).sub(_json_escape, text).encode("utf-8")


def dumps(value: Any, *, indent: bool = True) -> bytes:
    """``value`` as JSON (indented by default, with a final newline) that is safe on a terminal.

    A string holding a lone surrogate, which orjson refuses, is written as its ``\\ud83d``
    escape, so the output is the same value, never an exception."""
    option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        data = orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        import json

        text = json.dumps(value, indent=2 if indent else None, ensure_ascii=True, default=str)
        return (text + "\n").encode("ascii")
    return inert_json(data)
