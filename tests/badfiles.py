"""The corpus of bad inputs, generated (never hand-edited).

``make_corpus(folder)`` writes one file per case and returns ``{case: path}``. Every case is
something a person can point suture at: it must end in one clear message (exit code 2 from the
command line), never a traceback. Run this module to write the corpus somewhere to look at it:
``python tests/badfiles.py /tmp/bad``.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

GOOD_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}],
}
GOOD_RESULT = {"role": "tool", "tool_call_id": "c1", "content": "ok"}


def _json(value: object) -> bytes:
    return orjson.dumps(value)


def _jsonl(*records: object) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def _chat(*messages: object) -> bytes:
    return _json([{"role": "user", "content": "hi"}, *messages])


# Case name -> bytes of the file. Cases needing something other than bytes are made below.
CASES: dict[str, Callable[[], bytes]] = {
    "empty": lambda: b"",
    "whitespace-only": lambda: b"  \n\n\t \n",
    "not-utf8": lambda: b'[{"role": "user", "content": "caf\xe9"}]',
    "bom": lambda: b"\xef\xbb\xbf" + _json([{"role": "user", "content": "hi"}]),
    "utf-16": lambda: '[{"role": "user", "content": "hi"}]'.encode("utf-16"),
    "utf-16-no-bom": lambda: '[{"role": "user", "content": "hi"}]'.encode("utf-16-le"),
    "truncated-json": lambda: _json([{"role": "user", "content": "hi"}, GOOD_CALL, GOOD_RESULT])[:-17],
    "truncated-pretty-json": lambda: orjson.dumps(
        [{"role": "user", "content": "hi"}, GOOD_CALL], option=orjson.OPT_INDENT_2
    )[:-30],
    "jsonl-broken-middle-line": lambda: (
        _jsonl({"role": "user", "content": "hi"}, GOOD_CALL)
        + b'{"role": "tool", "tool_call_id": "c1", "content": "o\n'
        + _jsonl({"role": "assistant", "content": "done"})
    ),
    "nan": lambda: b'[{"role": "user", "content": "hi", "score": NaN}]',
    "infinity": lambda: b'[{"role": "user", "content": "hi", "score": Infinity}]',
    "huge-number": lambda: b'[{"role": "user", "content": "hi", "score": 1e999}]',
    "nested-100000-deep": lambda: b"[" * 100_000 + b"]" * 100_000,
    "nested-100000-deep-in-content": lambda: b'[{"role": "user", "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}]",
    "50mb-single-string": lambda: b'"' + b"a" * (50 * 1024 * 1024) + b'"',
    "content-a-number": lambda: _chat({"role": "assistant", "content": 42}),
    "tool-calls-an-object": lambda: _chat({"role": "assistant", "content": None, "tool_calls": {"id": "c1"}}),
    "call-id-an-integer": lambda: _chat(
        {"role": "assistant", "tool_calls": [{"id": 7, "type": "function", "function": {"name": "read"}}]}
    ),
    "result-id-an-integer": lambda: _chat(GOOD_CALL, {"role": "tool", "tool_call_id": 7, "content": "ok"}),
    "role-missing": lambda: _chat({"content": "no role here"}),
    "role-null": lambda: _chat({"role": None, "content": "null role"}),
    "role-a-number": lambda: _chat({"role": 3, "content": "numeric role"}),
    "message-a-string": lambda: _json(["just a string"]),
    "function-a-string": lambda: _chat(
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": "read"}]}
    ),
    "call-name-a-list": lambda: _chat(
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": ["read"]}}]}
    ),
    "binary": lambda: bytes(range(256)) * 64,
    "png": lambda: b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
    "json-number": lambda: b"42",
    "json-object-not-transcript": lambda: _json({"hello": "world"}),
    "list-of-numbers": lambda: _json([1, 2, 3]),
}


def make_corpus(folder: Path) -> dict[str, Path]:
    """Write every case into ``folder``; return case name -> path (some paths are not files)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, make in CASES.items():
        path = folder / f"{name}.json"
        path.write_bytes(make())
        paths[name] = path
    paths["missing"] = folder / "no-such-file.json"
    folder_case = folder / "a-folder.json"
    folder_case.mkdir(exist_ok=True)
    paths["folder"] = folder_case
    link = folder / "dangling-link.json"
    if not link.is_symlink():
        os.symlink(folder / "gone.json", link)
    paths["dangling-link"] = link
    # A socket cannot be opened for reading, even by root: the honest "unreadable file" here.
    sock_path = folder / "unreadable.json"
    if not sock_path.exists():
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(sock_path))
        sock.close()
    paths["unreadable"] = sock_path
    # A device that never ends (read, it would fill the memory) and a FIFO no one writes to.
    paths["device"] = Path("/dev/zero")
    fifo = folder / "fifo.json"
    if not fifo.exists():
        os.mkfifo(fifo)
    paths["fifo"] = fifo
    return paths


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "bad-corpus")
    for case, path in make_corpus(target).items():
        print(f"{case:32} {path}")
