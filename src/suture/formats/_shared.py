"""Helpers several format adapters share. Not a format itself (the registry skips ``_`` modules)."""

from __future__ import annotations

from typing import Any

__all__ = ["type_name"]

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
