"""Reading a file in pieces ends where reading it whole does, and every state shown on the way
holds: the incremental reader of a JSON document's message list, the live reader's first read in
pieces, and the row model grown from the rows it keeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import suture.tail
from suture.codec import dumps, loads
from suture.formats import load_file
from suture.pieces import ListReader, NotPieces
from suture.repair import repair
from suture.tail import Partial, Tail
from suture.tui.rows import Grown, RowModel, stable_point
from tests.helpers.records import chat_records
from tests.helpers.same import same_repair, same_rows
from tests.strategies import histories

# Text that looks like the place between two elements, inside strings and inside elements.
_TRICKY = st.sampled_from(('}, {"role": "user"', "}]", '{"a": [}', '\\"}, {\\"', "é", "x" * 50, ""))


@st.composite
def elements(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(("user", "assistant", "tool")))
    shape = draw(st.integers(0, 2))
    if shape == 0:
        return {"role": role, "content": draw(_TRICKY)}
    if shape == 1:
        parts = draw(st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _TRICKY}), max_size=4))
        return {"role": role, "content": parts}
    return {"type": draw(st.sampled_from(("message", "function_call"))), "n": draw(st.integers(-(2**70), 2**70))}


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    items = draw(st.lists(elements(), max_size=25))
    wrap = draw(st.sampled_from(("list", "messages", "input", "contents")))
    value: Any = items
    if wrap != "list":
        before = draw(st.dictionaries(st.sampled_from(("model", "system", "tools")), _TRICKY, max_size=2))
        after = draw(st.dictionaries(st.sampled_from(("max_tokens", "stream")), st.integers(0, 9), max_size=2))
        value = {**before, wrap: items, **after}
    option = orjson.OPT_INDENT_2 if draw(st.booleans()) else 0
    return dumps(value, option)


def read_in_pieces(data: bytes, sizes: list[int]) -> Any:
    reader = ListReader(data)
    reader.start()
    got: list[Any] = []
    k = 0
    while not reader.done:
        piece = reader.read(sizes[k % len(sizes)])
        assert piece, "a read before the end returns at least one element"
        got.extend(piece)
        k += 1
    return reader.document(got, size=len(data)).value


@settings(max_examples=400, deadline=None)
@given(documents(), st.lists(st.integers(1, 400), min_size=1, max_size=5))
def test_a_list_read_in_pieces_is_the_document_read_whole(data, sizes):
    try:
        got = read_in_pieces(data, sizes)
    except NotPieces:
        # Only where a place between elements was not found (text that looks like one, many
        # times): the caller then reads the document whole.
        assert b'}, {\\"' in data or b'}, {"role"' in data or b"}]" in data
        return
    assert got == loads(data)


@pytest.mark.parametrize(
    "data",
    [
        b'[{"role": "user", "content": "a"}] []',  # bytes after the document
        b'{"messages": [{"role": "user"}], "messages": []}',  # a member named twice
        b"[1, 2]",  # not objects
        b'{"model": "m"}',  # no list
        b'[{"role": "user", "content": "a"},',  # cut short
    ],
)
def test_what_cannot_be_vouched_for_is_read_whole(data):
    with pytest.raises(NotPieces):
        read_in_pieces(data, [1])


# -- the live reader's first read, in pieces ---------------------------------------------------


def _states(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Partial], Any]:
    monkeypatch.setattr(suture.tail, "FIRST_PIECE", 300)
    monkeypatch.setattr(suture.tail, "MAX_PIECE", 2000)
    monkeypatch.setattr(suture.tail, "PROGRESS_EVERY", 0.0)
    told: list[Partial] = []
    update = Tail(path).poll(progress=told.append)
    return told, update


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(chat_records(), min_size=1, max_size=60), st.sampled_from(("jsonl", "json", "body")))
def test_a_file_read_in_pieces_ends_as_a_whole_read(tmp_path, monkeypatch, records, kind):
    path = tmp_path / ("s.jsonl" if kind == "jsonl" else "s.json")
    if kind == "jsonl":
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    elif kind == "json":
        path.write_bytes(orjson.dumps(records, option=orjson.OPT_INDENT_2))
    else:
        path.write_bytes(orjson.dumps({"model": "m", "messages": records, "stream": False}))
    told, update = _states(path, monkeypatch)
    whole = load_file(path, live=True)
    assert update.transcript == whole
    same_repair(update.repair, repair(whole.messages))
    shown = [p for p in told if p.transcript is not None]
    assert shown, "at least the last state is told"
    assert shown[-1].done and shown[-1].messages == len(whole.messages)
    if path.stat().st_size > 1500 and len(records) >= 4:
        assert len(shown) >= 2, "a file larger than the first piece shows a state before the last"
    final = update.repair.messages
    for p in shown[:-1]:
        assert not p.done
        assert p.read <= p.size
        assert p.upto is not None and p.repair is not None and p.transcript is not None
        n_in, n_out = p.upto
        # Prefix stability: what a state shows before ``upto`` is what the whole file shows.
        assert p.transcript.messages[:n_in] == whole.messages[:n_in]
        assert p.repair.messages[:n_out] == final[:n_out]


@pytest.mark.parametrize(
    "data",
    [
        b'{"role": "user", "content": "' + b"a" * 400 + b'"}\n',  # one JSONL line, longer than the first piece
        b'{"role": "user", "content": "' + b"a" * 400 + b'"}',  # the same, no newline
        b'{"model": "m", "input": "' + b"a" * 400 + b'"}',  # a document with no message list
    ],
)
def test_a_file_read_whole_after_all_tells_its_state(tmp_path, monkeypatch, data):
    """What cannot be read in pieces is read whole, and the app is still told its state."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    told, update = _states(path, monkeypatch)
    assert [p.done for p in told if p.transcript is not None] == [True]
    assert told[-1].transcript == update.transcript == load_file(path, live=True)


def test_a_large_document_is_read_in_pieces(tmp_path, monkeypatch):
    """The first state is shown having read only the start of the file."""
    records = [{"role": "user" if i % 2 else "assistant", "content": f"message {i} " * 20} for i in range(400)]
    path = tmp_path / "s.json"
    path.write_bytes(orjson.dumps(records))
    told, _ = _states(path, monkeypatch)
    first = next(p for p in told if p.transcript is not None)
    assert first.read < first.size // 4
    assert 0 < first.messages < 100


class _Searched(bytes):
    """Bytes that remember the spans ``find`` was asked to search."""

    def __new__(cls, data: bytes) -> _Searched:
        made = super().__new__(cls, data)
        made.spans = []
        return made

    def find(self, sub: Any, start: Any = 0, end: Any = None) -> int:  # type: ignore[override]
        self.spans.append((len(self) if end is None else min(end, len(self))) - start)
        return super().find(sub, start, end)


def test_a_document_on_one_line_is_not_scanned_whole_for_its_first_line() -> None:
    from suture.io import first_line_is_a_value

    one_line = _Searched(orjson.dumps([{"role": "user", "content": "x" * 100}] * 1000))
    assert not first_line_is_a_value(one_line, within=4096)
    assert one_line.spans and max(one_line.spans) <= 4096
    lines = _Searched(b"\n" + b"\n".join(orjson.dumps({"role": "user", "content": str(i)}) for i in range(3)))
    assert first_line_is_a_value(lines, within=4096)
    assert not first_line_is_a_value(
        _Searched(b'{"role": "user", "content": "' + b"x" * 5000 + b'"}\n{}\n'), within=4096
    )


def test_a_large_one_line_document_is_read_in_pieces(tmp_path, monkeypatch):
    records = [{"role": "user" if i % 2 else "assistant", "content": f"message {i} " * 20} for i in range(400)]
    path = tmp_path / "s.json"
    path.write_bytes(orjson.dumps(records))
    monkeypatch.setattr(suture.tail, "FIRST_LINE_LOOK", 1000)
    told, update = _states(path, monkeypatch)
    first = next(p for p in told if p.transcript is not None)
    assert first.read < first.size // 4
    assert update.transcript == load_file(path, live=True)


def test_a_jsonl_file_with_a_first_line_longer_than_the_look_is_read_as_lines(tmp_path, monkeypatch):
    records = [{"role": "user", "content": "a first line longer than the look " * 10}]
    records += [{"role": "user" if i % 2 else "assistant", "content": f"message {i} " * 20} for i in range(200)]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    monkeypatch.setattr(suture.tail, "FIRST_LINE_LOOK", 100)
    told, update = _states(path, monkeypatch)
    whole = load_file(path, live=True)
    assert update.transcript == whole
    shown = [p for p in told if p.transcript is not None]
    assert len(shown) >= 2 and shown[0].read < shown[0].size // 4  # in pieces, as lines
    for p in shown[:-1]:
        assert p.upto is not None and p.transcript is not None
        assert p.transcript.messages[: p.upto[0]] == whole.messages[: p.upto[0]]


# -- the row model, grown ----------------------------------------------------------------------


def _grown_states(
    history: list[Any], cuts: list[int], each: Callable[[RowModel, RowModel], object] = lambda grown, whole: None
) -> list[tuple[RowModel, RowModel]]:
    """Each state of ``history`` read up to each cut, grown from the state before, with the same
    state built whole; ``each(grown, whole)`` is called as each is made."""
    from suture.model import Transcript
    from tests.helpers.same import next_state

    out: list[tuple[RowModel, RowModel]] = []
    previous = None
    previous_in: list[Any] = []
    for cut in [*sorted(cuts), len(history)]:
        now = history[:cut]
        transcript = Transcript(messages=now, format="chat")
        result, stable = next_state(previous, previous_in, now)
        whole = RowModel(transcript, result)
        out.append((whole if not out else out[-1][0].grown(transcript, result, stable), whole))
        each(*out[-1])
        previous, previous_in = result, now
    return out


@settings(max_examples=200, deadline=None)
@given(histories(max_turns=8), st.lists(st.integers(0, 60), max_size=5))
def test_rows_grown_step_by_step_equal_rows_built_whole(history, cuts):
    def same(grown: RowModel, whole: RowModel) -> None:  # (each searched as it is made)
        same_rows(grown, whole)
        assert grown.search("a") == whole.search("a")

    _grown_states(history, cuts, same)


@settings(max_examples=200, deadline=None)
@given(histories(max_turns=8), st.lists(st.integers(0, 60), max_size=5), st.randoms(use_true_random=False))
def test_a_state_searched_in_any_order_finds_what_the_whole_state_finds(history, cuts, rnd):
    # A large file loads faster than it is searched: states are made before the states they grow
    # from are searched, and each state's search text grows from whichever was searched by then.
    states = _grown_states(history, cuts)
    order = list(range(len(states)))
    rnd.shuffle(order)
    for k in order:
        grown, whole = states[k]
        for needle in ("a", "call", "user"):
            assert grown.search(needle) == whole.search(needle)


def _loaded_states(cuts: list[int]) -> list[tuple[RowModel, RowModel]]:
    """:func:`_grown_states` of a file of 150 records read up to each cut."""
    from suture.formats import load_bytes
    from tests.helpers.progressive import records

    data = b"".join(orjson.dumps(r) + b"\n" for r in records(150))
    return _grown_states(list(load_bytes(data, "chat").messages), cuts)


def _counted_texts(monkeypatch) -> dict[str, int]:
    """How many messages' search texts are made from now on (``["n"]``)."""
    import suture.tui.rows as rows_module

    made = {"n": 0}
    text_of = rows_module.search_text

    def counted(message: Any) -> str:
        made["n"] += 1
        return text_of(message)

    monkeypatch.setattr(rows_module, "search_text", counted)
    return made


def test_the_search_text_grows_from_a_state_searched_after_later_states_were_made(monkeypatch):
    first, second, last = (state for state, _ in _loaded_states([200, 300]))
    made = _counted_texts(monkeypatch)
    first.search("call")  # searched once the later states exist (its search was under way)
    built_first = made["n"]
    last.search("call")
    grown = made["n"] - built_first
    RowModel(last.transcript, last.repair).search("call")
    from_scratch = made["n"] - built_first - grown
    # Only the rows after those the first state holds: not every row of the last.
    assert 0 < grown <= from_scratch - built_first // 2
    assert second.search("call") == RowModel(second.transcript, second.repair).search("call")


def test_a_state_searched_and_let_go_leaves_its_search_text_to_the_states_grown_from_it(monkeypatch):
    # The app shows the newest state of a loading file: a state whose search ended is let go
    # once a newer one is shown, before that one is searched. Its text is not lost with it.
    import gc

    states = _loaded_states([100, 200, 300])
    first, second, last = states[1][0], states[2][0], states[3][0]
    first_rows = len(first)
    del states
    made = _counted_texts(monkeypatch)
    first.search("call")
    second_rows = len(second)
    del first, second
    gc.collect()
    made["n"] = 0
    found, grown = last.search("call"), made["n"]
    assert found == RowModel(last.transcript, last.repair).search("call")
    # Only the rows after those the first state holds are made again (about 240 of 450 rows;
    # all 450 when the first state's text is lost with it).
    assert 0 < grown < len(last) - first_rows // 2
    assert second_rows > first_rows


@settings(max_examples=100, deadline=None)
@given(histories(max_turns=8))
def test_rows_up_to_a_point_are_the_prefix_of_the_whole(history):
    from suture.model import Transcript

    transcript = Transcript(messages=history, format="chat")
    result = repair(history)
    point = stable_point(result, history)
    part = RowModel(transcript, result, upto=point)
    whole = RowModel(transcript, result)
    assert part.partial and part.inputs == point[0] and part.outputs == point[1]
    n = len(part)
    assert list(part.left) == list(whole.left)[:n]
    assert list(part.right) == list(whole.right)[:n]
    assert all(c.input_index < point[0] for c in part.changes)


@given(st.lists(st.integers(), max_size=9000), st.data())
@settings(max_examples=50, deadline=None)
def test_versions_of_a_grown_list_keep_their_items(items, data):
    first = Grown(items)
    cut = data.draw(st.integers(0, len(items)))
    more = data.draw(st.lists(st.integers(), max_size=5000))
    second = first.grown(cut, more)
    third = first.grown(cut, [7])
    assert list(first) == items
    assert list(second) == items[:cut] + more
    assert list(third) == [*items[:cut], 7]
    assert second[cut : cut + 3] == more[:3]
    if items:
        assert first[-1] == items[-1]


def test_an_append_after_a_read_in_pieces_is_read_as_an_append(tmp_path, monkeypatch):
    lines = [{"role": "user" if i % 2 else "assistant", "content": f"message {i} " * 20} for i in range(200)]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    monkeypatch.setattr(suture.tail, "FIRST_PIECE", 300)
    monkeypatch.setattr(suture.tail, "MAX_PIECE", 2000)
    monkeypatch.setattr(suture.tail, "PROGRESS_EVERY", 0.0)
    tail = Tail(path)
    told: list[Partial] = []
    tail.poll(progress=told.append)
    assert sum(p.transcript is not None for p in told) > 2
    with open(path, "ab") as f:
        f.write(orjson.dumps({"role": "user", "content": "one more"}) + b"\n")
    update = tail.poll()
    assert update.kind == "append"
    assert update.transcript == load_file(path, live=True)
