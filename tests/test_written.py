"""``suture.written``: the bytes a message was read from, found in the file as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import suture
from suture.io import InputError
from suture.model import Source
from suture.written import document_lines, written

ROOT = Path(__file__).resolve().parent.parent
# Every transcript among the samples (a recording's requests and shape notes are not transcripts).
SAMPLES = sorted(
    p
    for p in (ROOT / "sample_sessions").rglob("*.json*")
    if p.is_file() and p.name not in ("requests.jsonl", "shape.json")
)

scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False)
strings = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
values = st.recursive(
    scalars | strings,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=4),
    max_leaves=20,
)


def _paths(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every pointer into ``value`` that suture's loaders write, with the value it names."""
    found = []
    if isinstance(value, list):
        for i, item in enumerate(value):
            here = f"{prefix or '$'}[{i}]"
            found.append((here, item))
            found += _paths(item, here)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not key or any(c in key for c in ".[]$") or key.strip() != key:
                continue
            here = f"{prefix}.{key}" if prefix else key
            found.append((here, item))
            found += _paths(item, here)
    return found


def _layouts(value: Any) -> list[bytes]:
    return [
        orjson.dumps(value),
        orjson.dumps(value, option=orjson.OPT_INDENT_2),
        json.dumps(value, indent=4, ensure_ascii=True).encode(),
        json.dumps(value, separators=(" , ", " : "), ensure_ascii=False).encode("utf-8", "surrogatepass"),
        b"\n\t " + json.dumps(value, indent="\t").encode() + b"\n",
    ]


@settings(max_examples=200)
@given(st.lists(values, min_size=1, max_size=5) | st.dictionaries(strings, values, min_size=1, max_size=4))
def test_a_pointer_finds_exactly_its_value_in_any_layout(value: Any) -> None:
    for data in _layouts(value):
        for pointer, expected in _paths(value):
            [found] = written(data, Source(pointer=pointer))
            assert json.loads(found.data) == expected
            assert found.line == data.count(b"\n", 0, data.find(found.data)) + 1 or found.data in data


def test_a_range_of_elements() -> None:
    data = b'{"input": [1, {"a": "]"}, [2, 3], "x"]}'
    [found] = written(data, Source(pointer="input[1..2]"))
    assert found.data == b'{"a": "]"}, [2, 3]'


def test_lines_and_merged_lines() -> None:
    data = b'{"a": 1}\n{"b": 2}\r\n{"c": 3}\n{"d": 4}'
    assert [w.data for w in written(data, Source(line=2))] == [b'{"b": 2}']
    merged = written(data, Source(line=1, pointer="merged with lines 3, 4"))
    assert [(w.what, w.data) for w in merged] == [
        ("line 1", b'{"a": 1}'),
        ("line 3", b'{"c": 3}'),
        ("line 4", b'{"d": 4}'),
    ]
    # A block inside a line: the line is the record as written.
    assert [w.data for w in written(data, Source(line=3, pointer="message.content[0]"))] == [b'{"c": 3}']


@pytest.mark.parametrize("source", [Source(line=9), Source(pointer="$[7]"), Source(pointer="x[1]"), None])
def test_what_the_file_no_longer_holds_is_nothing(source: Source | None) -> None:
    assert written(b'[{"a": 1}]\n', source) == []
    assert written(b'{"a": [1]}', Source(pointer="nope[0]")) == []


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT / "sample_sessions")))
def test_every_message_of_every_sample_is_found_as_written(path: Path) -> None:
    try:
        transcript = suture.load_file(path)
    except InputError:
        pytest.skip("not a transcript")
    data = path.read_bytes()
    for message in transcript.messages:
        if message.source is None:
            continue
        found = written(data, message.source)
        assert found, message.source
        for w in found:
            assert w.data in data
            # A whole JSON value, not a cut (a range of elements: whole values, comma separated).
            orjson.loads(b"[" + w.data + b"]" if ".." in w.what else w.data)
            if message.source.line is not None:
                assert data.splitlines()[w.line - 1].rstrip(b"\r") == w.data


def _span(data: bytes, source: Source) -> tuple[int, int] | None:
    """The first and last line of the record ``written`` finds for a pointer."""
    found = written(data, source)
    return (found[0].line, found[0].line + found[0].data.count(b"\n")) if found else None


@settings(max_examples=200)
@given(
    st.lists(values, min_size=1, max_size=5) | st.dictionaries(strings, values, min_size=1, max_size=4),
    st.randoms(use_true_random=False),
)
def test_the_lines_of_a_documents_records_are_those_written_finds(value: Any, random: Any) -> None:
    # In any order: a loader gives an array's pointers in order, but a document's other parts
    # (a request's system prompt after its messages) come where they come.
    pointers = [Source(pointer=p) for p, _ in _paths(value)]
    random.shuffle(pointers)
    for data in _layouts(value):
        assert document_lines(data, pointers) == [_span(data, p) for p in pointers]


def test_a_document_line_is_none_for_what_has_a_line_or_is_not_there() -> None:
    data = b'[\n  {"a": 1},\n  {"b": [\n    2\n  ]}\n]\n'
    sources = [Source(pointer="$[1]"), Source(line=3), None, Source(pointer="$[5]"), Source(pointer="$[0]")]
    assert document_lines(data, sources) == [(3, 5), None, None, None, (2, 2)]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT / "sample_sessions")))
def test_the_lines_of_every_samples_messages_are_those_written_finds(path: Path) -> None:
    try:
        transcript = suture.load_file(path)
    except InputError:
        pytest.skip("not a transcript")
    data = path.read_bytes()
    sources = [m.source for m in transcript.messages]
    expected = [_span(data, s) if s is not None and s.line is None else None for s in sources]
    assert document_lines(data, sources) == expected
