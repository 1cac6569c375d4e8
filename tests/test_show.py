"""suture.show: the one escaping of untrusted text for the terminal and for JSON output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from suture import show

# Characters a terminal acts on or that hide, reorder or forge text.
UNSAFE_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def _unsafe_in_line(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat in UNSAFE_CATEGORIES or (cat == "Zs" and ch != " ")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain id_01", "plain id_01"),
        ("a\nb", "a\\nb"),
        ("tab\there", "tab\\there"),
        ("\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07"),
        ("\x1b[2J", "\\x1b[2J"),
        ("csi\x9b31m", "csi\\x9b31m"),
        ("\u202eevil", "\\u202eevil"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("nb\xa0sp", "nb\\xa0sp"),
        ("lone\udcff", "lone\\udcff"),
        ("日本語 ✓ emoji 🎉", "日本語 ✓ emoji 🎉"),
    ],
)
def test_line(raw: str, shown: str) -> None:
    assert show.line(raw) == shown


def test_prose_keeps_joiners_and_spaces_but_folds_whitespace() -> None:
    family = "👨\u200d👩\u200d👧"
    assert show.prose(f"a\n\n b\t{family}") == f"a b {family}"
    assert show.prose("x\x1b[31m\u202e") == "x\\x1b[31m\\u202e"
    assert show.line(family) == "👨\\u200d👩\\u200d👧"


def test_block_keeps_lines() -> None:
    assert show.block("a\r\nb\tc\rd\x1b[2J\u2028") == "a\nb    c\\rd\\x1b[2J\\u2028"


def test_path_shows_bytes_that_are_not_utf8() -> None:
    name = os.fsdecode(b"caf\xe9\n.json")
    assert show.path(name) == "caf\\xe9\\n.json"
    assert show.path_json(name) == "caf\\xe9\n.json"


@given(st.text())
def test_line_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    shown = show.line(text)
    assert not any(_unsafe_in_line(ch) for ch in shown)
    if all(not _unsafe_in_line(ch) for ch in text):
        assert shown == text


@given(st.text())
def test_prose_is_one_line_and_block_keeps_only_newlines(text: str) -> None:
    for shown, allowed in ((show.prose(text), "\u200c\u200d"), (show.block(text), "\n\u200c\u200d")):
        bad = [ch for ch in shown if unicodedata.category(ch) in UNSAFE_CATEGORIES and ch not in allowed]
        assert not bad, (text, shown)
    assert "\n" not in show.prose(text)
    assert show.block(text).count("\n") == text.replace("\r\n", "\n").count("\n")


def test_every_format_character_of_this_python_is_escaped() -> None:
    """If a newer Unicode adds format characters, this names them."""
    missing = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in {"Cf", "Zl", "Zp"}
        and code not in (0x200C, 0x200D)
        and show.prose(chr(code)) == chr(code)
    ]
    assert missing == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_dumps_is_the_same_value_with_nothing_raw(value: object) -> None:
    data = show.dumps(value)
    assert json.loads(data) == value
    text = data.decode("utf-8")
    assert not any(unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"} and ch != "\n" for ch in text)


def test_dumps_of_what_orjson_refuses() -> None:
    value = {"half an emoji": "\ud83d", "big": 2**70}
    assert json.loads(show.dumps(value)) == value


def test_inert_json_only_touches_strings() -> None:
    value = {"k\x85": ["\u202e", "\u2028", "é", "ok", "tag\U000e0041", "\x7f"]}
    data = show.inert_json(orjson.dumps(value))
    assert b"\xc2\x85" not in data and b"\\u0085" in data
    assert orjson.loads(data) == value
    assert b"\\udb40\\udc41" in data and b"\x7f" not in data


def test_text_with_nothing_to_escape_compiles_no_class_of_characters() -> None:
    # Each class of characters to escape is compiled when first needed (about a millisecond of
    # every start otherwise): printable text, and text whose only whitespace is newlines and
    # tabs, need none.
    body = (
        "from suture import show\n"
        "said = show.prose('a\\n\\tb'), show.line('x'), show.block('y'), show.inert_json(b'{}')\n"
        "before = show._pattern.cache_info().currsize\n"
        "show.prose('a\\u200bb')\n"
        "print(said, before, show._pattern.cache_info().currsize)\n"
    )
    done = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["('a", "b',", "'x',", "'y',", "b'{}')", "0", "1"]
