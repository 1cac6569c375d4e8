"""An export changes only what the repair changed: a JSONL request file (chat, Anthropic
messages, AI SDK) is written over its own lines, so a diff of input and output shows the records
the repair changed, moved, added or dropped, and no other line (blank lines and ``\\r\\n`` line
ends stay). ``suture repair`` and the app's export write the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from suture import codec
from suture.formats import dump, get, load_bytes
from suture.io import InputError
from suture.model import Message, Transcript
from suture.repair import repair
from suture.tui.app import SutureApp, default_export_path
from tests.helpers.app import SIZE, export, ready, suture_repair
from tests.strategies import histories

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("chat", "messages", "vercel")
PROPS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


def _lines(data: bytes) -> list[bytes]:
    """The lines of a file, without the empty piece after its last newline."""
    lines = data.split(b"\n")
    return lines[:-1] if data.endswith(b"\n") else lines


def _values(data: bytes) -> list[Any]:
    return [codec.loads(line) for line in _lines(data) if line.strip()]


def check_only_repaired_lines(data: bytes, out: bytes, plain: bytes, kept: set[int]) -> None:
    """``out``, the repair written over ``data``, holds the records of ``plain`` (the same repair
    written fresh), in their order; a record the repair left alone (on a line of ``kept``, counted
    from 1) is its input line, byte for byte; every blank line of the input is kept; lines end as
    the input's do."""
    assert _values(out) == _values(plain)
    crlf = data.split(b"\n", 1)[0].endswith(b"\r")
    written = _lines(out)
    records = {line.removesuffix(b"\r") for line in written}
    values = [codec.dumps(v) for v in _values(out)]
    for number in kept:
        line = _lines(data)[number - 1].removesuffix(b"\r")
        if codec.dumps(codec.loads(line)) in values:  # not a record a new one joined (a result before text)
            # a record the repair left alone is its line as read (a last line that had no line end
            # gets the file's, when another line follows it now)
            assert line in records
    for k, line in enumerate(written):
        if line.strip() and (k < len(written) - 1 or out.endswith(b"\n")):
            assert line.endswith(b"\r") == crlf, line
    assert sorted(x for x in written if not x.strip()) == sorted(x for x in _lines(data) if not x.strip())
    if data.endswith(b"\n"):
        assert out.endswith(b"\n")


def _spaced(record: Any) -> bytes:
    """A record as Python's json module writes it (spaces after ``:`` and ``,``), which suture's
    own writer does not: a line suture wrote again differs from it."""
    return json.dumps(record).encode()


@st.composite
def jsonl_files(draw: st.DrawFn, fmt: str) -> bytes:
    """A JSONL file of ``fmt`` holding a history, with blank lines between its records (at least
    one), ``\\r\\n`` line ends or ``\\n``, and a newline after its last line or not."""
    messages: list[Message] = draw(histories())
    try:
        value = codec.loads(get(fmt).dump(messages, Transcript(messages, "neutral")))
    except InputError:  # a history the format cannot express
        assume(False)
    assume(isinstance(value, list) and len(value) >= 2)  # one record alone is one JSON document
    blanks = st.lists(st.sampled_from([b"", b" ", b"\t", b"  "]), max_size=2)
    lines: list[bytes] = []
    for record in value:
        lines += draw(blanks)
        lines.append(_spaced(record))
    lines += draw(blanks)
    if not any(not line.strip() for line in lines):
        lines.insert(draw(st.integers(0, len(lines))), b"")
    end = b"\r\n" if draw(st.booleans()) else b"\n"
    data = end.join(lines)
    return data + end if draw(st.booleans()) or not lines[-1].strip() else data


def _repaired(data: bytes, fmt: str) -> tuple[bytes, bytes, set[int]]:
    """A file's repair written over its bytes (as ``suture repair`` writes it), written fresh,
    and the lines (counted from 1) whose every message the repair left alone."""
    transcript = load_bytes(data, fmt)
    assert transcript.format == fmt
    result = repair(transcript.messages)
    alone = {i for j, i in enumerate(result.origin) if i is not None and result.messages[j] == transcript.messages[i]}
    lines: dict[int, bool] = {}
    for i, m in enumerate(transcript.messages):
        assert m.source is not None and m.source.line is not None
        lines[m.source.line] = lines.get(m.source.line, True) and i in alone
    kept = {number for number, left in lines.items() if left}
    for number in kept:
        assert codec.loads(_lines(data)[number - 1]) is not None  # the line a message names is a record
    return dump(result.messages, transcript, data=data), dump(result.messages, transcript), kept


@pytest.mark.parametrize("fmt", FORMATS)
@PROPS
@given(data=st.data())
def test_a_repaired_jsonl_file_changes_only_the_lines_the_repair_changes(fmt: str, data: st.DataObject) -> None:
    before = data.draw(jsonl_files(fmt))
    out, plain, kept = _repaired(before, fmt)
    check_only_repaired_lines(before, out, plain, kept)


def test_a_last_line_without_a_line_end_split_in_two_ends_as_the_files_lines() -> None:
    # The last record (no line end after it) holds results and text: the repair writes it as two
    # records, both from that line. The first is followed by a line now, so it ends \r\n as the
    # file's lines do; the second is still last, with no line end.
    call = {"type": "tool_use", "id": "z", "name": "bash", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "z"}
    data = b"\r\n" + _spaced({"role": "assistant", "content": [call]}) + b"\r\n"
    data += _spaced({"role": "user", "content": [result, result, {"type": "text", "text": "0"}]})
    out, plain, kept = _repaired(data, "messages")
    check_only_repaired_lines(data, out, plain, kept)
    assert len(_lines(out)) == 4 and not out.endswith(b"\n")


# -- what suture repair and the app's export write --------------------------------------------


def _from_array(path: Path) -> bytes:
    return b"\n".join(_spaced(r) for r in orjson.loads(path.read_bytes())) + b"\n"


def _respaced(path: Path) -> bytes:
    return b"\n".join(_spaced(orjson.loads(line)) for line in path.read_bytes().splitlines()) + b"\n"


SAMPLES = {
    "chat": _from_array(ROOT / "sample_sessions" / "chat" / "worked-example.json"),
    "messages": _from_array(ROOT / "sample_sessions" / "messages" / "interrupted-and-restarted.json"),
    "vercel": _respaced(ROOT / "sample_sessions" / "vercel" / "broken-restarted-ids.jsonl"),
}


def _with_blank_lines_and_crlf(data: bytes) -> bytes:
    lines = data.splitlines()
    return b"\r\n".join([lines[0], b"", *lines[1:3], b"  ", *lines[3:], b""]) + b"\r\n"


@pytest.mark.parametrize("fmt", FORMATS)
async def test_suture_repair_and_the_app_export_write_the_same_bytes(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"{fmt}.jsonl"
    data = _with_blank_lines_and_crlf(SAMPLES[fmt])
    path.write_bytes(data)
    written = suture_repair(path)
    out, plain, kept = _repaired(data, fmt)
    assert written == out and written != data  # the sample needs a repair
    assert kept  # the sample has records the repair leaves alone
    check_only_repaired_lines(data, written, plain, kept)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app)
    assert default_export_path(path).read_bytes() == written


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_line_the_repair_changes_must_be_the_record_read_there(fmt: str) -> None:
    data = SAMPLES[fmt]
    transcript = load_bytes(data, fmt)
    result = repair(transcript.messages)
    out = dump(result.messages, transcript, data=data).splitlines()
    # Every line the repair changes or drops is another record now (the sample changes some).
    lines = [
        line if line in out else _spaced({"role": "user", "content": "written since"}) for line in data.splitlines()
    ]
    with pytest.raises(InputError, match="the file changed since it was read"):
        dump(result.messages, transcript, data=b"\n".join(lines) + b"\n")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_line_cut_off_at_the_end_is_left_out_and_the_last_record_ends_its_line(tmp_path: Path, fmt: str) -> None:
    whole = tmp_path / f"{fmt}.jsonl"
    whole.write_bytes(SAMPLES[fmt])
    cut = tmp_path / f"{fmt}-cut.jsonl"
    cut.write_bytes(SAMPLES[fmt] + b'{"role": "user", "con')
    assert suture_repair(cut, "--skip-bad-lines") == suture_repair(whole)
