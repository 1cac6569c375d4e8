"""JSON values and documents for the loaders' tests: transcript-shaped values to fuzz with, paths
into a value, and the near-valid exercise (one place of a real-looking sample broken) that every
format's tests run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import strategies as st

from suture.formats import dump, get, load_bytes
from suture.io import Document, InputError, parse_document
from suture.model import Transcript
from suture.repair import repair
from suture.validity import violations

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
keys = st.sampled_from(
    [
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "id",
        "name",
        "type",
        "function",
        "arguments",
        "text",
        "messages",
        "input",
        "contents",
        "parts",
        "call_id",
        "output",
        "tool_use_id",
        "message",
        "toolCallId",
        "toolName",
        "functionCall",
        "functionResponse",
        "system",
        "uuid",
        "sessionId",
        "payload",
        "parentId",
        "is_error",
        "image_url",
        "url",
        "data",
        "source",
    ]
) | st.text(max_size=6)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(keys, children, max_size=6),
    max_leaves=40,
)


def key_paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path of keys and indices into a JSON value, ``()`` (the value itself) first."""
    out = [here]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += key_paths(inner, (*here, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            out += key_paths(inner, (*here, index))
    return out


def _records(doc: Document) -> list[tuple[Any, int | None]]:
    """The records of a document, each with its line in a JSONL file: the lines, or the history
    list of a JSON document (the array itself, or a request body's input, contents or messages)."""
    if doc.kind == "jsonl":
        return [(value, line) for line, value in doc.records]
    value = doc.value
    if isinstance(value, list):
        return [(v, None) for v in value]
    if isinstance(value, dict):
        for key in ("input", "contents", "messages", "items"):
            if isinstance(value.get(key), list):
                return [(v, None) for v in value[key]]
        if "payload" in value:
            return [(value, 1)]  # a rollout of one line
    return []


def _rewritten_before(records: list[tuple[Any, int | None]]) -> int:
    """Codex: the line of the last compaction or rollback; the history before it is replaced."""
    last = 0
    for value, line in records:
        if isinstance(value, dict) and line is not None:
            payload = value.get("payload")
            event = payload.get("type") if isinstance(payload, dict) else None
            if value.get("type") == "compacted" or (value.get("type") == "event_msg" and event == "thread_rolled_back"):
                last = line
    return last


def assert_every_record_kept(doc: Document, t: Transcript) -> None:
    """Every record of the file is in the history (as a message's record, or one item of a
    message's list of records), is named by a load problem or as skipped (a record the agent does
    not read back, kept aside in ``Transcript.skipped``), or is one the format documents as no
    history (a Codex line other than a response item, an item a later compaction replaced)."""
    kept: set[int] = set()
    for m in t.messages:
        kept.add(id(m.raw))
        if isinstance(m.raw, list):
            kept.update(id(r) for r in m.raw)
    problem_lines = {p.line for p in t.problems} | {s.source.line for s in t.skipped}
    records = _records(doc)
    rewritten = _rewritten_before(records) if t.format == "codex" else 0
    for value, line in records:
        if id(value) in kept or (line is not None and line in problem_lines):
            continue
        if t.format == "codex":
            payload = value.get("payload") if isinstance(value, dict) else None
            if id(payload) in kept or (line or 0) < rewritten:
                continue
            if isinstance(value, dict) and (value.get("type") != "response_item" or "payload" not in value):
                continue  # session meta, events, turn context: what the terminal showed, not history
            if isinstance(payload, dict) and payload.get("type") == "ghost_snapshot":
                continue
        raise AssertionError(f"record {value!r} (line {line}) is neither history nor a load problem")


def break_at(root: Any, path: tuple[Any, ...], value: Any, drop: bool) -> None:
    """Break one place of a JSON value in place: the item at ``path`` dropped, or replaced by ``value``."""
    holder = root
    for key in path[:-1]:
        holder = holder[key]
    if drop:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value


def exercise_near_valid(path: Path, fmt: str, data: st.DataObject, value: Any, drop: bool) -> None:
    """Break one place of a sample (replace a value or drop it) and load it as ``fmt``: it must
    load or raise InputError; what loads keeps every record, repairs into a history with no
    violation, dumps and loads again as its own format still valid, and converting it to any
    format either works (and reads back valid) or raises InputError."""
    doc = parse_document(path.read_bytes())
    root = orjson.loads(orjson.dumps(doc.value if doc.kind == "json" else [v for _, v in doc.records]))
    where = data.draw(st.sampled_from([p for p in key_paths(root) if p]))
    break_at(root, where, value, drop)
    raw = orjson.dumps(root) if doc.kind == "json" else b"".join(orjson.dumps(r) + b"\n" for r in root)
    try:
        broken = parse_document(raw)
        adapter = get(fmt)
        if adapter.sniff(broken) == 0:
            return  # no longer this format: load_bytes(raw, fmt) says so
        t = adapter.load(broken)
    except InputError:
        return
    assert_every_record_kept(broken, t)
    repaired = repair(t.messages).messages
    assert violations(repaired) == []
    written = dump(repaired, t)
    if written.strip():  # an empty history is an empty file in some formats
        again = load_bytes(written, t.format if t.raw_is(t.format) else t.raw_format)
        assert violations(again.messages) == []
    for target in ("chat", "responses", "gemini", "vercel", "codex"):
        try:
            data_out = dump(repaired, t, target)
        except InputError:
            continue
        if data_out.strip():  # an empty history is an empty file in some formats
            assert violations(load_bytes(data_out, target).messages) == []
