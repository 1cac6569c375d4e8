"""What a file suture writes is, JSON or JSONL, read from its first line (``-o NAME.json`` must
be one JSON document, ``-o NAME.jsonl`` a value a line)."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from suture.writeback import layout

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@given(st.lists(values, min_size=2, max_size=6))
def test_a_value_a_line_is_jsonl(records: list[Any]) -> None:
    assert layout(b"".join(orjson.dumps(r) + b"\n" for r in records)) == "jsonl"


@given(st.lists(values, min_size=1, max_size=6) | st.dictionaries(st.text(max_size=3), values, min_size=1))
def test_one_document_is_json_or_either_on_one_line(document: Any) -> None:
    indented = orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
    assert layout(indented) == ("json" if b"\n" in indented.strip() else "either")
    assert layout(orjson.dumps(document)) == "either"
