"""The app shows a large file's first screen while the rest is read, keys act on what is shown,
the load ends equal to a whole load, and a reload after an append grows the rows it keeps."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import suture.tail
from suture.formats import load_file
from suture.repair import repair
from suture.tail import Tail
from suture.tui.app import SutureApp
from suture.tui.rows import RowModel
from suture.tui.view import TranscriptView
from tests.helpers.app import ready
from tests.helpers.progressive import SIZE, held_app, in_small_pieces, records, until, write
from tests.helpers.same import same_rows


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
async def test_the_first_screen_shows_before_the_file_is_read_and_keys_act_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    async with held_app(tmp_path, monkeypatch, suffix) as held:
        app, pilot, model = held.app, held.pilot, held.first
        whole = load_file(held.path)
        assert 0 < model.inputs < len(whole.messages)
        assert app.shown_version == 0, "the file is not read whole yet"
        assert "loading" in app.status.render().plain
        assert "row " in str(app.query_one("#info").render())
        # Keys act on the rows shown: moving down, and to the next change among them.
        start = app.view.cursor
        await pilot.press("down")
        assert app.view.cursor == start + 1
        await pilot.press("g")
        assert app.view.cursor == 0
        await pilot.press("n")
        assert app.view.cursor == model.changed_rows[0]
        on = model.left[app.view.cursor]
        await held.let_go()
        await ready(pilot, app)
        final = app.model
        assert final is not None and not final.partial
        same_rows(final, RowModel(whole, repair(whole.messages)))
        # The cursor stays on the message it was on.
        assert final.left[app.view.cursor] == on
        assert "loading" not in app.status.render().plain


async def test_a_reload_after_an_append_grows_the_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    write(path, records(200))
    built: list[tuple[int, int]] = []
    init = RowModel.__init__

    def counting(self: RowModel, transcript: Any, result: Any, **kw: Any) -> None:
        init(self, transcript, result, **kw)
        previous = kw.get("previous")
        kept = self._stable_rows if previous is not None else 0
        built.append((kept, len(self)))

    monkeypatch.setattr(RowModel, "__init__", counting)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        with open(path, "ab") as f:
            f.write(b"".join(orjson.dumps(r) + b"\n" for r in records(1, start=200)))
        built.clear()
        app.read_file()
        await ready(pilot, app)
        assert len(built) == 1
        kept, total = built[0]
        # Only the rows from the last span on are built again.
        assert total - kept <= 5
        whole = load_file(path)
        assert app.model is not None
        same_rows(app.model, RowModel(whole, repair(whole.messages)))


@pytest.mark.parametrize("pieces", [True, False], ids=["large file", "small file"])
async def test_the_first_frame_already_holds_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pieces: bool
) -> None:
    # The app waits (briefly) for the reader's first state before it makes its widgets: its
    # first frame shows the transcript, not a "reading…" line that a second full redraw
    # replaces, and no frame of empty panes is laid out and drawn first.
    path = tmp_path / "first.jsonl"
    write(path, records(300))
    if pieces:
        monkeypatch.setattr(suture.tail, "FIRST_PIECE", 4000)
    shown: list[str] = []
    drawn_empty: list[int] = []
    state, render_line = SutureApp._show_state, TranscriptView.render_line

    def recorded(self: SutureApp, message: str | None) -> None:
        shown.append(message or "")
        state(self, message)

    def drawn(self: TranscriptView, y: int) -> Any:
        if self.model is None:
            drawn_empty.append(y)
        return render_line(self, y)

    monkeypatch.setattr(SutureApp, "_show_state", recorded)
    monkeypatch.setattr(TranscriptView, "render_line", drawn)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        # As soon as the app runs (its mount done, before any pause): rows, focus on them.
        assert app.model is not None and len(app.model) > 0
        assert app.model.partial is pieces
        assert app.view.display and app.view.has_focus
        assert app.query_one("#sidebar").display
        assert not any(m.startswith("reading") for m in shown), shown
        await until(lambda: app.shown_version > 0, "the whole file shown")
        await ready(pilot, app)
        assert not app.model.partial
    assert drawn_empty == []


async def test_a_collector_paused_for_the_start_resumes_once_the_first_screen_is_drawn(tmp_path: Path) -> None:
    # ``suture FILE`` pauses the cycle collector before it imports the app; the app resumes it
    # once its first frame is out, with what the start made frozen out of the collector's sight.
    path = tmp_path / "first.jsonl"
    write(path, records(50))
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        app = SutureApp(path, watch=False, collector_paused=True)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            assert gc.isenabled()
            assert gc.get_freeze_count() > frozen
    finally:
        gc.enable()


async def test_an_app_not_told_of_a_paused_collector_leaves_it_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "first.jsonl"
    write(path, records(50))
    gc.disable()
    try:
        app = SutureApp(path, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_command_line_resumes_the_collector_when_the_app_ends_before_its_first_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from suture.cli import main

    path = tmp_path / "first.jsonl"
    write(path, records(5))
    seen: list[bool] = []

    def ended(self: SutureApp, **_: object) -> None:
        seen.append(gc.isenabled())

    monkeypatch.setattr(SutureApp, "run", ended)
    monkeypatch.setattr("suture.cli.view.need_terminal", lambda: None)  # (no terminal here)
    assert main([str(path)]) == 0
    assert seen == [False]  # paused while the app starts
    assert gc.isenabled()


async def test_a_first_read_slower_than_the_wait_says_reading_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "slow.jsonl"
    write(path, records(50))
    monkeypatch.setattr("suture.tui.app.FIRST_STATE_WAIT", 0.0)
    go_on = threading.Event()
    full = Tail._full

    def held_full(self: Tail, *args: Any, **kwargs: Any) -> Any:
        if not go_on.wait(20):
            raise TimeoutError("the test never let the read go on")
        return full(self, *args, **kwargs)

    monkeypatch.setattr(Tail, "_full", held_full)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.model is None
        assert str(app.query_one("#state").render()).startswith("reading …/slow.jsonl")
        assert not app.view.display
        go_on.set()
        await until(lambda: app.model is not None, "the rows")
        await ready(pilot, app)
        assert not app.query_one("#state").display
        assert app.view.display and app.view.has_focus


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
async def test_a_search_while_loading_says_it_searched_what_is_read_and_searches_again_when_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    """Text not read yet is not "no match": the search says it looked only at what is read, and
    once the whole file is read it searches again and goes to the first match."""
    async with held_app(tmp_path, monkeypatch, suffix) as held:
        app, pilot, model = held.app, held.pilot, held.first
        read = model.inputs
        # Found among what is read: it goes there, and says the count is of what is read.
        await pilot.press("slash", *"question 1", "enter")
        await until(lambda: bool(app.matches), "the matches among what is read")
        at = model.left[app.view.cursor]
        assert at is not None and "question 1" in str(model.transcript.messages[at].content)
        assert f"in the {read:,} messages shown so far" in app.search_state
        # Not read yet: not a "no match".
        start = app.view.cursor
        await pilot.press("slash", "ctrl+u", *"question 299", "enter")
        await until(lambda: "question 299" in app.search_state, "the search among what is read")
        said = app.search_state
        assert f"“question 299” not found in the {read:,} messages shown so far; still loading" in said
        assert "no match" not in said
        assert "still loading" in str(app.query_one("#info").render())
        assert app.view.cursor == start
        await held.let_go()
        await until(lambda: app.search_state.startswith("/question 299"), "the search run again on the whole file")
        await ready(pilot, app)
        final = app.model
        assert final is not None and not final.partial
        on = final.left[app.view.cursor]
        assert on is not None and "question 299 " in str(final.transcript.messages[on].content)
        assert app.search_state.startswith("/question 299: 1/1")
        assert "shown so far" not in app.search_state


async def test_a_search_that_found_nothing_yet_finds_its_text_as_soon_as_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not at the end of the load: the piece read that holds the text is searched as it is shown,
    and the search goes there while the rest is still being read."""
    rest = threading.Event()
    try:
        async with held_app(tmp_path, monkeypatch) as held:
            app, pilot, first = held.app, held.pilot, held.first
            # The read waits in the next piece; the pieces after it wait for ``rest``.
            held_piece = Tail._append

            def then_hold(self: Tail, *args: Any) -> Any:
                if not rest.wait(20):
                    raise TimeoutError("the test never let the rest of the read go on")
                return held_piece(self, *args)

            monkeypatch.setattr(Tail, "_append", then_hold)
            # A question in the next piece: not among what the first screen read.
            items = records(300)
            wanted = next(m["content"] for m in items[first.inputs + 20 :] if m["role"] == "user")
            query = " ".join(wanted.split()[:3])  # "question 21 question": no other question starts so
            assert not first.search(query)
            await pilot.press("slash", *query, "enter")
            await until(lambda: "still loading" in app.search_state, "the search among what is read")
            held.go_on.set()  # one more piece, then the read waits again
            await until(lambda: bool(app.matches), "the search found in the piece read since")
            model = app.model
            assert model is not None and model.partial
            on = model.left[app.view.cursor]
            assert on is not None and str(model.transcript.messages[on].content).startswith(query)
            assert "shown so far" in app.search_state and "not found" not in app.search_state
            assert not app.search_waiting
            await pilot.pause()
            found = [str(n.message) for n in app._notifications if "found in the first" in str(n.message)]
            assert found == [f"“{query}” found in the first {model.inputs:,} messages read: 1 match"]
            rest.set()
            await until(lambda: app.shown_version > 0, "the whole file shown")
            await ready(pilot, app)
            assert app.search_state.startswith(f"/{query}: 1/1  ") and "shown so far" not in app.search_state
    finally:
        rest.set()


async def test_a_search_that_finds_nothing_in_the_whole_file_says_so_once_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with held_app(tmp_path, monkeypatch) as held:
        app, pilot = held.app, held.pilot
        await pilot.press("slash", *"nowhere in it", "enter")
        await until(lambda: "nowhere in it" in app.search_state, "the search among what is read")
        assert "not found in the" in app.search_state and "still loading" in app.search_state
        await held.let_go()
        await until(lambda: "still loading" not in app.search_state, "the search run again on the whole file")
        await ready(pilot, app)
        assert app.search_state == "no match for “nowhere in it”"
        assert any("no match for “nowhere in it” in the whole file" in str(n.message) for n in app._notifications)


async def test_what_the_app_reads_is_out_of_the_collectors_sight_once_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A read holds the collector off while it builds; when the collector resumes, what the read
    # built is frozen first: no collection then walks every message read (seconds at a million,
    # every key waiting). Checked on each read of the app: the first, in pieces, and a reload.
    import gc

    import suture.io

    path = tmp_path / "big.jsonl"
    write(path, records(300))
    in_small_pieces(monkeypatch)
    frozen: list[bool] = []
    paused = suture.io.gc_paused

    @contextlib.contextmanager
    def watched() -> Iterator[None]:
        resumes = gc.isenabled()  # the collector resumes on the way out of this one
        with paused():
            yield
            before = gc.get_freeze_count()
        if resumes:
            frozen.append(gc.get_freeze_count() > before)

    monkeypatch.setattr(suture.tail, "gc_paused", watched)
    gc.unfreeze()
    try:
        app = SutureApp(path, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda: app.shown_version > 0, "the whole file shown")
            await ready(pilot, app)
            write(path, records(310))
            await pilot.press("r")
            await until(lambda: app.model is not None and app.model.inputs > 300, "the reload")
            await ready(pilot, app)
        assert len(frozen) >= 2 and all(frozen), frozen
        assert not suture.io._keep_built, "the app leaves the collector as it found it"
    finally:
        gc.unfreeze()


async def test_the_status_line_counts_what_is_shown_while_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # While a large file loads, the status line's counts are those of the panes and the changes
    # list (what is shown so far), marked "…" as the pane headers are; once loaded, the whole.
    async with held_app(tmp_path, monkeypatch) as held:
        app, pilot, model = held.app, held.pilot, held.first
        first = app.status.render().plain.splitlines()[0]
        assert f"{model.inputs:,}… in → {model.outputs:,}… out" in first, first
        n = len(model.changes)
        assert n and f"{n:,}… change" in first, first
        await held.let_go()
        await ready(pilot, app)
        whole = app.model
        assert whole is not None and not whole.partial
        first = app.status.render().plain.splitlines()[0]
        assert "… in" not in first and "… out" not in first and "… change" not in first, first
        assert f"{whole.repair.input_count:,} in → {len(whole.repair.messages):,} out" in first, first


async def test_a_file_with_nothing_to_repair_so_far_is_not_said_to_need_none_while_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every call answered: what is read so far needs no change, which is not yet a verdict on the
    # file (a call further on may have no result). Once loaded, it is one.
    answered = [r for r in records(300) if r["role"] != "assistant" or int(r["tool_calls"][0]["id"][1:]) % 7]
    async with held_app(tmp_path, monkeypatch, items=answered) as held:
        app, pilot = held.app, held.pilot
        assert app.model is not None and app.model.partial and not app.model.changes
        first = app.status.render().plain.splitlines()[0]
        assert "no changes so far" in first and "no changes needed" not in first, first
        await held.let_go()
        await ready(pilot, app)
        first = app.status.render().plain.splitlines()[0]
        assert "no changes needed" in first and "so far" not in first, first
