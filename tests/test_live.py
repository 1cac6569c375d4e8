"""suture.live: reading a file that changes, keeping the last good state."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import suture.live
from suture.live import LiveFile

pytestmark = pytest.mark.filterwarnings("error")


def _line(record: dict[str, object]) -> bytes:
    return orjson.dumps(record) + b"\n"


USER = {"role": "user", "content": "hi"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "a", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
}
RESULT = {"role": "tool", "tool_call_id": "a", "content": "ok"}


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_line(USER) + _line(CALL))
    return path


def test_first_poll_is_full_and_repairs(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    update = live.poll()
    assert update.kind == "full"
    assert update.transcript is not None and update.repair is not None
    assert len(update.transcript.messages) == 2
    assert update.added == 2
    # The call has no result: repair adds one.
    assert len(update.repair.messages) == 3


def test_unchanged_then_append(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    assert live.poll().kind == "unchanged"
    with open(jsonl, "ab") as f:
        f.write(_line(RESULT))
    update = live.poll()
    assert update.kind == "append"
    assert update.added == 1
    assert update.repair is not None and not update.repair.changes
    # The call before the append stays the same object: only what follows needs drawing again.
    assert update.stable_input >= 1


def test_rewrite_is_full_and_truncation_counts_down(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    jsonl.write_bytes(_line(USER))
    update = live.poll()
    assert update.kind == "full"
    assert update.added == -1
    assert (update.changed, update.kept) == (0, 1)  # cut at its end: the message left is the one shown


def test_replace_by_rename(jsonl: Path, tmp_path: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    other = tmp_path / "new.jsonl"
    other.write_bytes(_line(CALL) + _line(RESULT) + _line(USER) + _line(USER))
    os.replace(other, jsonl)
    update = live.poll()
    assert update.kind == "full"
    assert update.added == 2
    assert (update.changed, update.kept) == (2, 2)  # other messages at both places, and two more
    # Another file now: read whole, even when it only adds to the end.
    other.write_bytes(jsonl.read_bytes() + _line(USER))
    os.replace(other, jsonl)
    update = live.poll()
    assert update.kind == "full" and update.added == 1


def test_half_written_json_keeps_last_good_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps([USER, CALL, RESULT]))
    live = LiveFile(path)
    good = live.poll()
    path.write_bytes(b'[{"role": "user", "content": "hi"},\n {"role": "assi')
    bad = live.poll()
    assert bad.kind == "error"
    assert bad.transcript is good.transcript
    assert bad.repair is good.repair
    assert bad.error is not None and "line 2" in bad.error
    assert bad.line == 2 and bad.column is not None
    assert str(path) not in bad.error
    path.write_bytes(orjson.dumps([USER, CALL, RESULT, USER]))
    again = live.poll()
    assert again.kind == "full"
    assert again.added == 1
    assert live.error is None


def test_missing_file_is_an_error_then_recovers(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    data = jsonl.read_bytes()
    jsonl.unlink()
    missing = live.poll()
    assert missing.kind == "error" and missing.error == "no such file"
    assert missing.transcript is not None
    jsonl.write_bytes(data)
    # Same bytes as the last good state: nothing to redraw, but the error is over.
    assert live.poll().kind == "unchanged"
    assert live.error is None


def test_file_put_back_as_a_new_file_is_unchanged(jsonl: Path) -> None:
    """A file deleted and written again with the same bytes, under another inode (an editor's
    save by rename): nothing to show again, whatever inode the new file gets."""
    live = LiveFile(jsonl)
    live.poll()
    version = live.version
    data = jsonl.read_bytes()
    jsonl.unlink()
    (jsonl.parent / "holds-the-old-inode").write_bytes(b"x")
    assert live.poll().kind == "error"
    fresh = jsonl.parent / "fresh"
    fresh.write_bytes(data)
    fresh.rename(jsonl)
    assert live.poll().kind == "unchanged"
    assert live.error is None and live.version == version


def test_never_readable(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b"{not json")
    update = LiveFile(path).poll()
    assert update.kind == "error"
    assert update.transcript is None and update.repair is None


def test_pending_jsonl_line_is_reported(jsonl: Path) -> None:
    with open(jsonl, "ab") as f:
        f.write(b'{"role": "tool", "tool_ca')
    update = LiveFile(jsonl).poll()
    assert update.kind == "full"
    assert update.pending_line == 3
    assert update.transcript is not None and len(update.transcript.messages) == 2


def test_bad_line_is_a_problem_not_an_error(jsonl: Path) -> None:
    with open(jsonl, "ab") as f:
        f.write(b"{oops}\n" + _line(RESULT))
    update = LiveFile(jsonl).poll()
    assert update.kind == "full"
    assert [p.line for p in update.problems] == [3]


def test_ignored_bytes_do_not_reload(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    first = live.poll()
    mine = _line(USER) + _line(CALL) + _line(RESULT)
    live.ignore(mine)
    jsonl.write_bytes(mine)
    update = live.poll()
    assert update.kind == "unchanged"
    assert update.transcript is first.transcript
    # Only that write is ignored: the next change reloads.
    with open(jsonl, "ab") as f:
        f.write(_line(USER))
    assert live.poll().kind == "append"


def test_read_only_names_reach_repair(jsonl: Path) -> None:
    update = LiveFile(jsonl, is_read_only={"ls"}.__contains__).poll()
    assert update.repair is not None
    synthetic = update.repair.messages[2]
    assert isinstance(synthetic.content, str) and "safe to run again" in synthetic.content


def test_forced_format_that_does_not_fit(jsonl: Path) -> None:
    update = LiveFile(jsonl, format="chat").poll()
    assert update.kind == "full"
    path = jsonl.with_suffix(".json")
    path.write_bytes(b'{"unrelated": true}')
    bad = LiveFile(path, format="chat").poll()
    assert bad.kind == "error"


# -- rewrites: whatever the file holds is what is shown -------------------------------------------

SECRET = {"role": "user", "content": "my key is sk-live-0123456789"}
REDACTED = {"role": "user", "content": "my key is [redacted-0123456]"}


def _texts(update: object) -> list[object]:
    transcript = getattr(update, "transcript", None)
    assert transcript is not None
    return [m.content for m in transcript.messages]


def _fresh(path: Path) -> list[object]:
    from suture.formats import detect
    from suture.io import parse_document

    doc = parse_document(path.read_bytes(), live=True)
    return [m.content for m in detect(doc).adapter.load(doc).messages]


def test_same_length_redaction_in_place_is_seen(tmp_path: Path) -> None:
    assert len(orjson.dumps(SECRET)) == len(orjson.dumps(REDACTED))
    path = tmp_path / "s.jsonl"
    filler = b"".join(_line({"role": "user", "content": "x" * 3000}) for _ in range(4))  # past the last 4 KB
    path.write_bytes(_line(SECRET) + _line(CALL) + _line(RESULT) + filler)
    live = LiveFile(path)
    live.poll()
    with open(path, "r+b") as f:  # an edit in place: same inode, same size, far from the end
        f.write(_line(REDACTED))
    update = live.poll()
    assert update.kind == "full"
    assert _texts(update)[0] == REDACTED["content"]
    assert live.poll().kind == "unchanged"


def test_open_w_rewrite_that_grows_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    filler = [{"role": "user", "content": "x" * 3000} for _ in range(4)]  # more than the 4 KB guard
    path.write_bytes(_line(SECRET) + b"".join(_line(r) for r in filler))
    live = LiveFile(path)
    live.poll()
    with open(path, "w") as f:  # truncate and write again: same inode, and it ends as before
        f.write((_line(REDACTED) + b"".join(_line(r) for r in filler) + _line(USER)).decode())
    update = live.poll()
    assert update.kind == "full"
    assert _texts(update) == _fresh(path)
    assert _texts(update)[0] == REDACTED["content"]


def _edited_further_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, LiveFile]:
    """A file read once with every append taken unchecked, then its first line edited (same
    size) and a line appended in one write, not read yet."""
    import suture.tail

    monkeypatch.setattr(suture.tail, "VERIFY_EVERY_APPEND", 0)
    path = tmp_path / "s.jsonl"
    filler = [{"role": "user", "content": "x" * 3000} for _ in range(4)]
    path.write_bytes(_line(SECRET) + b"".join(_line(r) for r in filler))
    live = LiveFile(path)
    live.poll()
    with open(path, "r+b") as f:
        f.write(_line(REDACTED))
        f.seek(0, os.SEEK_END)
        f.write(_line(USER))
    return path, live


def test_an_edit_further_back_than_the_checked_size_is_seen_when_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond VERIFY_EVERY_APPEND an append costs only its own bytes; an edit made with it further
    back is caught by the next verifying poll (the app asks for one when the file is quiet)."""
    path, live = _edited_further_back(tmp_path, monkeypatch)
    live.poll()  # may take the append alone
    update = live.poll(verify=True)
    assert update.kind == "full"
    assert _texts(update) == _fresh(path)
    assert live.poll(verify=True).kind == "unchanged"
    # Appends alone stay appends, and a verifying poll after them finds nothing to reload.
    with open(path, "ab") as f:
        f.write(_line(USER))
    assert live.poll().kind == "append"
    assert live.poll(verify=True).kind == "unchanged"


def test_whole_reads_the_whole_file(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    first = live.poll()
    # The same content read whole: nothing new to show (the app's r on a file nobody wrote).
    same = live.poll(whole=True)
    assert same.kind == "unchanged"
    assert same.transcript is first.transcript
    assert same.version == first.version
    # One byte changed where only a whole read looks (same size, times kept): a new state.
    data = jsonl.read_bytes()
    st = os.stat(jsonl)
    jsonl.write_bytes(data.replace(b"hi", b"ho", 1))
    os.utime(jsonl, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = live.poll(whole=True)
    assert again.kind == "full"
    assert again.transcript is not first.transcript
    assert again.version == first.version + 1
    assert _texts(again)[0] == "ho"


def test_a_repointed_link_is_followed(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(_line(USER))
    b.write_bytes(_line(SECRET) + _line(USER))
    link = tmp_path / "current.jsonl"
    link.symlink_to(a)
    live = LiveFile(link)
    assert _texts(live.poll()) == ["hi"]
    tmp = tmp_path / "next.jsonl"
    tmp.symlink_to(b)
    os.replace(tmp, link)  # ln -sfn b current.jsonl, atomically
    update = live.poll()
    assert update.kind == "full"
    assert _texts(update) == [SECRET["content"], "hi"]


def test_no_read_when_nothing_was_written_since(jsonl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """File times old enough to be trusted, and as they were: nothing to read."""
    import suture.tail

    live = LiveFile(jsonl)
    live.poll()
    # Times noted long enough after the last write (as if two seconds had passed).
    monkeypatch.setattr(suture.tail.time, "time_ns", lambda: os.stat(jsonl).st_ctime_ns + 3_000_000_000)
    live.poll()  # notes the times again, now old enough

    def no_read(*args: object) -> None:
        raise AssertionError("read the file")

    monkeypatch.setattr(suture.tail.Tail, "_append", no_read)
    monkeypatch.setattr(suture.tail.Tail, "_prefix_is_unchanged", no_read)
    assert live.poll().kind == "unchanged"
    assert live.poll(verify=True).kind == "unchanged"


def test_the_export_over_the_input_is_ignored_while_the_file_holds_it(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    first = live.poll()
    mine = _line(USER)
    live.ignore(mine)
    assert live.poll().transcript is first.transcript  # not written yet: nothing changed
    jsonl.write_bytes(mine)
    for verify in (False, True, False):
        update = live.poll(verify=verify)
        assert update.kind == "unchanged" and update.transcript is first.transcript
    # Reading the whole file again shows what it holds.
    assert _texts(live.poll(whole=True)) == ["hi"]


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 3)),
        st.tuples(st.just("partial"), st.integers(1, 30)),
        st.tuples(st.just("edit"), st.integers(0, 10_000)),
        st.tuples(st.just("rewrite"), st.integers(0, 3)),
        st.tuples(st.just("truncate"), st.integers(0, 10_000)),
        st.tuples(st.just("poll"), st.sampled_from(["", "verify", "whole"])),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS, checked=st.booleans())
def test_any_rewrites_end_showing_the_files_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ops: list[tuple[str, object]], checked: bool
) -> None:
    """Appends, half lines, in-place edits of any byte, truncations and rewrites in any order,
    polls in between: a verifying poll always shows what a fresh load of the file shows; while
    every append is checked (a small file), every poll does."""
    import suture.tail

    monkeypatch.setattr(suture.tail, "VERIFY_EVERY_APPEND", 1 << 30 if checked else 0)
    records = [USER, CALL, RESULT, SECRET]
    path = tmp_path / f"p{abs(hash(tuple(map(str, ops))))}.jsonl"
    path.write_bytes(_line(USER) + _line(CALL))
    live = LiveFile(path)
    live.poll()

    def agrees(update: object) -> None:
        try:
            expected = _fresh(path)
        except Exception:  # not loadable now: the update must say so
            assert getattr(update, "kind", None) == "error"
            return
        assert getattr(update, "kind", None) != "error"
        assert _texts(update) == expected

    for op, arg in ops:
        data = path.read_bytes()
        assert isinstance(arg, int | str)
        if op == "append":
            with open(path, "ab") as f:
                f.write(_line(records[int(arg)]))
        elif op == "partial":
            with open(path, "ab") as f:
                f.write(_line(SECRET)[: int(arg)])
        elif op == "edit" and data:
            at = int(arg) % len(data)
            with open(path, "r+b") as f:
                f.seek(at)
                f.write(b"X" if data[at : at + 1] != b"X" else b"Y")
        elif op == "rewrite":
            with open(path, "wb") as f:
                f.write(data.replace(b"hi", b"HI") + _line(records[int(arg)]))
        elif op == "truncate":
            os.truncate(path, int(arg) % (len(data) + 1))
        elif op == "poll":
            update = live.poll(verify=arg == "verify", whole=arg == "whole")
            if checked or arg:
                agrees(update)
    agrees(live.poll(verify=True))


def test_a_verifying_poll_gives_way_to_a_read_waiting_but_not_a_needed_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check of the whole file a quiet moment asks for is given up when another read waits
    (an append then does not wait most of a second at a million messages); the appends stay
    unchecked, and the next verifying poll still catches an edit further back. A check the read
    itself needs (the file rewritten in place) is never given up."""
    path, live = _edited_further_back(tmp_path, monkeypatch)
    assert live.poll().kind == "append"  # taken unchecked
    assert live.unchecked
    with open(path, "ab") as f:
        f.write(_line(USER))
    asked: list[bool] = []

    def waiting() -> bool:
        asked.append(True)
        return True

    given_up = live.poll(verify=True, wanted=waiting)
    assert asked, "the check asked whether another read waits"
    assert given_up.kind == "append" and live.unchecked
    update = live.poll(verify=True)
    assert update.kind == "full" and not live.unchecked
    assert _texts(update) == _fresh(path)
    # Rewritten in place to the same size: the read needs the check, and does not give it up.
    data = path.read_bytes()
    path.write_bytes(
        data.replace(REDACTED["content"].encode(), SECRET["content"].encode()[: len(REDACTED["content"])], 1)
    )
    rewritten = live.poll(verify=True, wanted=lambda: True)
    assert rewritten.kind == "full"
    assert _texts(rewritten) == _fresh(path)


@given(
    st.lists(st.integers(0, 3), max_size=8),
    st.integers(0, 8),
    st.lists(st.integers(4, 6), max_size=3),
    st.integers(0, 3),
)
def test_messages_put_in_or_cut_out_at_one_place_change_none_of_the_others(
    kept: list[int], at: int, put: list[int], cut: int
) -> None:
    # ``put`` put in at ``at`` in place of ``cut`` messages: at most the fewer of the two count as
    # changed (none where only one was done), whatever the messages around them.
    from suture.live import _change_between
    from suture.model import Message

    def messages(texts: list[int]) -> list[Message]:
        return [Message(role="user", content=f"text {t}") for t in texts]

    at = min(at, len(kept))
    cut = min(cut, len(kept) - at)
    changed, shared_end = _change_between(messages(kept), messages(kept[:at] + put + kept[at + cut :]))
    assert changed <= min(cut, len(put))
    assert shared_end <= min(len(kept), len(kept) - cut + len(put)) - changed


def test_the_bytes_as_shown_leave_out_a_line_still_being_written_and_go_with_the_state(jsonl: Path) -> None:
    # What a session is written back over, and what its figure after repair is worked out
    # from: the bytes the state shown was read from, without the line the state leaves out.
    live = LiveFile(jsonl)
    shown = live.poll().transcript
    assert shown is not None and live.read_as_shown(shown) == jsonl.read_bytes()
    assert live.read_as_shown(shown, most=10) is None  # (more bytes than that)
    complete = jsonl.read_bytes()
    with jsonl.open("ab") as f:
        f.write(b'{"role": "tool", "tool_')
    update = live.poll()
    assert update.pending_line == 3 and update.transcript is not None
    assert live.read_as_shown(update.transcript) == complete
    with jsonl.open("ab") as f:
        f.write(b'call_id": "a", "content": "ok"}\n')  # the file no longer holds what was read
    assert live.read_as_shown(update.transcript) is None
    again = live.poll().transcript
    assert again is not None and live.read_as_shown(again) == jsonl.read_bytes()


def test_the_bytes_as_shown_are_read_only_when_asked_and_still_where_the_file_grew(jsonl: Path) -> None:
    # The checks' figure after repair reads them in their child, and only where a provider
    # rejects what is sent: taking them reads nothing, and an append made since (a live session)
    # leaves the bytes of the state shown at the file's start, read as they were.
    live = LiveFile(jsonl)
    shown = live.poll().transcript
    assert shown is not None
    complete = jsonl.read_bytes()
    reads: list[object] = []
    real = suture.live.open_file

    def counted(path: Any) -> Any:
        reads.append(path)
        return real(path)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suture.live, "open_file", counted)
        later = live.bytes_as_shown(shown)
        assert later is not None and not reads
        assert later.read() == complete and len(reads) == 1
    assert live.bytes_as_shown(shown, most=10) is None
    with jsonl.open("ab") as f:
        f.write(b'{"role": "user", "content": "more"}\n')
    assert later.read() == complete  # (the file grew: its start is what the state was read from)
    assert later.read(grown=False) is None and live.read_as_shown(shown) is None  # (as an export reads them)
    jsonl.write_bytes(complete.replace(b"user", b"USER", 1))
    assert later.read() is None  # (written over: not the bytes the state was read from)
