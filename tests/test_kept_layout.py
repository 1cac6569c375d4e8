"""A JSON document suture repairs is written in the layout it was read in: its indent (two
spaces, four, a tab), one line or many, the space after a key's colon, its final newline. So a
diff of input and output shows what the repair changed, not every line; a document whose value
the repair leaves as it is comes out byte for byte as it went in. ``suture repair`` (``-o``,
``--in-place``, ``--out-dir``) and the app's export write it so; a conversion (``--to``) and
JSONL are written as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from suture import codec
from suture.formats import dump, get, load_bytes
from suture.io import InputError, Layout, json_layout
from suture.model import Message, Transcript
from suture.repair import repair
from suture.tui.app import SutureApp, default_export_path
from tests.helpers.app import SIZE, export, ready, suture_repair
from tests.helpers.cli import run
from tests.strategies import histories

ROOT = Path(__file__).resolve().parent.parent
MOVED = ROOT / "sample_sessions" / "chat" / "moved-result.json"  # needs a repair
CLEAN = ROOT / "sample_sessions" / "chat" / "clean.json"  # needs none

# Layouts as Python's json module writes them (keyword arguments of json.dumps).
LAYOUTS: dict[str, dict[str, Any]] = {
    "2 spaces": {"indent": 2},
    "4 spaces": {"indent": 4},
    "tab": {"indent": "\t"},
    "4 spaces, no space after a colon": {"indent": 4, "separators": (",", ":")},
    "one line": {"separators": (",", ":")},  # as JSON.stringify writes it
    "one line, spaced": {},  # as json.dumps writes it by default
}
ENDS = (b"\n", b"")
FORMATS = ("chat", "messages", "responses", "gemini", "vercel")
PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def written(value: Any, layout: str, end: bytes = b"\n") -> bytes:
    """``value`` as Python's json module writes it in ``layout``, then ``end``."""
    return json.dumps(value, ensure_ascii=False, **LAYOUTS[layout]).encode() + end


def repaired(data: bytes, fmt: str | None = None) -> tuple[bytes, bool]:
    """What ``suture repair`` writes for ``data`` (in its own format), and whether the repair
    changed the history."""
    transcript = load_bytes(data, fmt)
    result = repair(transcript.messages)
    return dump(result.messages, transcript, data=data), bool(result.changes)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, Any]:
    """A format and a history written in it as one JSON document (its value), damaged or valid."""
    fmt = draw(st.sampled_from(FORMATS))
    messages: list[Message] = draw(histories(min_turns=1))
    if draw(st.booleans()):
        messages = list(repair(messages).messages)  # a history with nothing to repair
    try:
        value = codec.loads(get(fmt).dump(messages, Transcript(messages, "neutral")))
    except InputError:  # a history the format cannot express
        assume(False)
    assume(isinstance(value, list | dict) and value)
    return fmt, value


@PROPS
@given(documents(), st.sampled_from(sorted(LAYOUTS)), st.sampled_from(ENDS))
def test_a_repaired_document_is_written_in_the_layout_it_was_read_in(
    document: tuple[str, Any], layout: str, end: bytes
) -> None:
    fmt, value = document
    data = written(value, layout, end)
    try:
        out, changed = repaired(data, fmt)
    except InputError:  # a history this format's reader does not take back
        assume(False)
    event("repaired" if changed else "nothing to repair")
    # Exactly what the writer of the input writes for what the repair made: so where that is the
    # value the input holds, the very bytes of the input.
    assert out == written(json.loads(out), layout, end)
    if json.loads(out) == value:
        assert out == data


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("end", ENDS)
def test_the_samples_keep_their_layout(layout: str, end: bytes) -> None:
    for sample in sorted((ROOT / "sample_sessions").glob("*/*.json")):
        value = json.loads(sample.read_bytes())
        data = written(value, layout, end)
        try:
            transcript = load_bytes(data)
        except InputError:
            continue  # not a transcript on its own (a sample's sidecar)
        if get(transcript.format).export_format != transcript.format:
            continue  # a session log: written back as JSONL, or as another format's request
        out, changed = repaired(data)
        assert out == written(json.loads(out), layout, end), sample
        assert changed or out == data, sample


def test_a_document_in_the_layout_suture_writes_needs_no_relaying() -> None:
    data = MOVED.read_bytes()
    transcript = load_bytes(data)
    result = repair(transcript.messages)
    assert json_layout(data) == Layout()
    assert dump(result.messages, transcript, data=data) == dump(result.messages, transcript)


@pytest.mark.parametrize(
    ("data", "layout"),
    [
        (b'[\n    {"a": 1}\n]', None),  # an element on a line of its own: not followed
        (b"[\n{\n}\n]", None),  # no indent
        (b'[\n\t  {\n\t  "a": 1\n\t  }\n]', None),  # tabs and spaces
        (b'[\n  {\n     "a": 1\n  }\n]\n', None),  # one level indented by 2, the next by 3 more
        (b'{"role": "user", "content": "hi"}\n{"role": "user", "content": "hi"}\n', None),  # JSONL
        (b'"a string"', None),
        (b'[{"a: b":"c"}]', Layout(None, b":", after=b"")),  # a colon in a key is no separator
        (b'[{"a\\": b":"c", "d": "e"}]\n', Layout(None, b":")),
        (b'[{"a":"b", "c": "d"}]\n', Layout(None, b":")),  # the first colon says
        (b'[\r\n    {\r\n        "a": 1\r\n    }\r\n]\r\n', Layout(b"    ", newline=b"\r\n", after=b"\r\n")),
        (b'\n\n{\n\t"messages":[]\n}\n\n', Layout(b"\t", b":", before=b"\n\n", after=b"\n\n")),
    ],
)
def test_the_layout_found_in_a_files_bytes(data: bytes, layout: Layout | None) -> None:
    assert json_layout(data) == layout


def test_a_lone_surrogate_escape_keeps_its_bytes_in_any_layout() -> None:
    value = json.loads(MOVED.read_bytes())
    value[1]["content"] = "cut \ud83d, and the text \\ud83d"
    data = json.dumps(value, indent=4).encode()  # (ASCII: the surrogate as its escape)
    assert b'"cut \\ud83d, and the text \\\\ud83d"' in data
    out, changed = repaired(data)
    assert changed
    two = dump(repair(load_bytes(data).messages).messages, load_bytes(data))[:-1]  # suture's own layout
    assert b'"cut \\ud83d, and the text \\\\ud83d"' in out
    assert [line.lstrip(b" ") for line in out.split(b"\n")] == [line.lstrip(b" ") for line in two.split(b"\n")]
    assert [len(line) - len(line.lstrip(b" ")) for line in out.split(b"\n")] == [
        2 * (len(line) - len(line.lstrip(b" "))) for line in two.split(b"\n")
    ]
    assert out.endswith(b"]")  # no final newline, as the input


def test_a_conversion_is_written_as_before() -> None:
    data = written(json.loads(MOVED.read_bytes()), "4 spaces")
    transcript = load_bytes(data)
    result = repair(transcript.messages)
    converted = dump(result.messages, transcript, to="messages", data=data)
    assert converted == dump(result.messages, transcript, to="messages")
    assert converted.startswith(b'{\n  "')  # suture's own layout: the input's is another format's


def _value(path: Path) -> Any:
    return json.loads(path.read_bytes())


def test_suture_repair_writes_each_output_in_its_inputs_layout(tmp_path: Path) -> None:
    value = _value(MOVED)
    expected = json.loads(run("repair", MOVED).stdout)  # the repair of the sample as it is
    inputs = {
        "four.json": written(value, "4 spaces"),
        "tab.json": written(value, "tab", b""),
        "line.json": written(value, "one line, spaced"),
    }
    for name, data in inputs.items():
        (tmp_path / name).write_bytes(data)

    done = run("repair", tmp_path / "four.json", "-o", tmp_path / "four-out.json")
    assert done.returncode == 0, done.stderr
    out = (tmp_path / "four-out.json").read_bytes()
    assert json.loads(out) == expected
    assert out == written(expected, "4 spaces")

    done = run("repair", tmp_path / "tab.json", tmp_path / "line.json", "--out-dir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "tab.json").read_bytes() == written(expected, "tab", b"")
    assert (tmp_path / "out" / "line.json").read_bytes() == written(expected, "one line, spaced")

    done = run("repair", "--in-place", tmp_path / "four.json")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "four.json").read_bytes() == written(expected, "4 spaces")
    assert (tmp_path / "four.json.bak").read_bytes() == inputs["four.json"]


def test_suture_repair_in_place_leaves_a_document_with_nothing_to_repair_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "clean.json"
    data = written(_value(CLEAN), "tab")
    path.write_bytes(data)
    done = run("repair", "--in-place", path)
    assert done.returncode == 0, done.stderr
    assert (
        "no changes needed" in done.stderr
        and "left as it is: what repair writes is what it holds, byte for byte" in done.stderr
    )
    assert path.read_bytes() == data
    assert not (tmp_path / "clean.json.bak").exists()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("spaced.json", b'[ {"role" :"user", "content":"hi"} ]'),
        ("escaped.json", b'[{"role": "user", "content": "caf\\u00e9"}]\n'),
        ("body.json", b'{"model": "m", "temperature": 1e0, "messages": [{"role": "user", "content": "hi"}]}'),
    ],
    ids=["space-before-colon", "escaped", "number"],
)
def test_suture_repair_in_place_leaves_a_layout_it_does_not_keep_as_it_is_when_nothing_changes(
    tmp_path: Path, name: str, data: bytes
) -> None:
    """A layout suture's writer does not keep (a space before a colon, ``\\u00e9``), with nothing to
    repair: the same JSON written otherwise is no change, so nothing is written and no copy made."""
    path = tmp_path / name
    path.write_bytes(data)
    done = run("repair", "--in-place", path)
    assert done.returncode == 0, done.stderr
    assert "left as it is: what repair writes holds the same JSON, laid out otherwise" in done.stderr
    assert path.read_bytes() == data
    assert not (tmp_path / f"{name}.bak").exists()


async def test_the_apps_export_writes_what_suture_repair_writes(tmp_path: Path) -> None:
    path = tmp_path / "four.json"
    path.write_bytes(written(_value(MOVED), "4 spaces"))
    out = suture_repair(path)
    assert out == written(json.loads(out), "4 spaces") and json.loads(out) != _value(MOVED)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app)
    assert default_export_path(path).read_bytes() == out


@pytest.mark.parametrize(
    ("dumped", "spaced"),
    [({}, True), ({"separators": (",", ":")}, False)],
    ids=["python-json-dumps", "compact"],
)
def test_a_line_the_repair_adds_to_jsonl_is_spaced_as_the_file_s_lines_are(
    tmp_path: Path, dumped: dict[str, Any], spaced: bool
) -> None:
    """A chat JSONL file Python's ``json.dumps`` wrote (a space after each colon and comma): the
    synthetic result the repair adds is written so too, so a diff shows one line in the same
    style; a compact file gets a compact line."""
    calls = [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "user", "content": "next"},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(m, **dumped) + "\n" for m in messages))
    done = run("repair", path, "-o", tmp_path / "out.jsonl")
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "out.jsonl").read_bytes().splitlines()
    assert lines[:2] + lines[3:] == path.read_bytes().splitlines()
    added = json.loads(lines[2])
    assert added["role"] == "tool" and lines[2] == json.dumps(added, **dumped).encode()
    assert (b'", "' in lines[2]) is spaced
