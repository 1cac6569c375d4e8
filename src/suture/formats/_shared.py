"""Helpers several format adapters share. Not a format itself (the registry skips ``_`` modules)."""

from __future__ import annotations

from typing import Any

from suture.io import Document

__all__ = ["message_records", "type_name"]

_NAMES: dict[type, str] = {
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
}


def type_name(value: Any) -> str:
    """What a person calls a JSON value's type, for a one-line error: "a number", "null", ..."""
    if value is None:
        return "null"
    return _NAMES.get(type(value), type(value).__name__)


def message_records(doc: Document, head: int | None = None) -> tuple[list[Any], str] | None:
    """The records of a document that hold messages, and its shape: ``jsonl`` (one a line, or a
    lone message object), ``array``, or ``body`` (an object with ``messages``). Of JSONL only the
    first ``head`` records where given. None for any other document."""
    if doc.kind == "jsonl":
        return [v for _, v in (doc.records if head is None else doc.records[:head])], "jsonl"
    value = doc.value
    if isinstance(value, list):
        return value, "array"
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list):
            return value["messages"], "body"
        if "role" in value:
            return [value], "jsonl"
    return None
