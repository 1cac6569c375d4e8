"""What a person meets on the samples: the help read at 60 columns, a key that cannot act saying
why, a long provider's heading kept whole, a search of a file still loading that searches only
what is new, and a file for no single provider whose shared verdict ``p`` picks back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.text import Text
from textual.geometry import Region
from textual.widgets import Static

import suture.tui.rows
from suture.tui.app import SutureApp
from suture.tui.changes import ProblemList
from suture.tui.screens import ProviderScreen
from suture.validity import Breach
from tests.helpers.app import ROOT, SIZE, help_text, ready, settled
from tests.helpers.progressive import held_app, until

SAMPLES = ROOT / "sample_sessions"


def _copy(name: str, tmp_path: Path) -> Path:
    path = tmp_path / Path(name).name
    shutil.copy(SAMPLES / name, path)
    return path


def _said(app: SutureApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.parametrize("width", [60, 80, 160])
async def test_the_help_fits_its_box_and_shows_every_tooltip_whole(tmp_path: Path, width: int) -> None:
    app = SutureApp(_copy("chat/worked-example.json", tmp_path), watch=False)
    async with app.run_test(size=(width, 40)) as pilot:
        body = await help_text(pilot, app)
        shown = body.content
        assert isinstance(shown, Text) and body.laid == body.size.width
        lines = shown.plain.split("\n")
        # No line is wrapped by the box: each is laid out to fit, keys at the left of their own.
        assert max(len(line) for line in lines) <= body.size.width
        flat = " ".join(shown.plain.split())
        for _title, bindings in app.help_groups():
            for binding in bindings:
                tooltip = getattr(binding, "tooltip", "")
                if tooltip:
                    assert " ".join(tooltip.split()) in flat


async def test_keys_that_cannot_act_say_why(tmp_path: Path) -> None:
    path = _copy("chat/clean.json", tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.model is not None and not app.model.changed_rows
        for key in ("n", "right_square_bracket", "exclamation_mark", "s"):
            await pilot.press(key)
        await pilot.pause()
        assert _said(app) == [
            "the repair changes nothing here",
            "no search: press / to search",
            "the file records no API error (E explains one you paste)",
            "the file holds nothing that is left out of what is sent",
        ]


@pytest.mark.parametrize(
    ("data", "why"),
    [(b"", "the file cannot be read"), (b'{"model": "m", "messages": []}', "the file holds no messages")],
    ids=["unreadable", "no messages"],
)
async def test_keys_with_no_messages_to_act_on_say_why(tmp_path: Path, data: bytes, why: str) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(data)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        for key in ("colon", "e", "slash", "enter", "p"):
            await pilot.press(key)
        await pilot.pause()
        assert _said(app) == [why] * 5
        assert app.screen is app.screen_stack[0]


async def test_a_key_that_needs_the_checks_says_they_are_not_ready_while_a_file_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with held_app(tmp_path, monkeypatch) as held:
        app, pilot = held.app, held.pilot
        assert app.model is not None and app.model.partial and app.verdicts is None
        await pilot.press("p")
        await pilot.pause()
        assert _said(app) == ["provider checks are not ready"]
        await held.let_go()
        await ready(pilot, app)
        # Once the checks are in, the toast no longer says they are not (it would for 3 s).
        await settled(pilot, app)
        assert app.verdicts is not None
        assert _said(app) == []


async def test_a_long_providers_heading_is_shown_whole_beside_the_panes(tmp_path: Path) -> None:
    """A Codex session is sent to openai-responses: its heading is longer than the list is wide."""
    path = tmp_path / "session.jsonl"
    shutil.copy(SAMPLES / "recorded" / "codex-0.169.0" / "orphan-result" / "session.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        title = app.query_one("#problems-title", Static)
        assert str(title.content) == "Sent to openai-responses: accepted"
        drawn = title.render_lines(Region(0, 0, title.size.width, title.size.height))
        assert " ".join("".join(s.text for s in strip).strip() for strip in drawn).strip() == str(title.content)


async def test_a_search_while_a_file_loads_searches_each_row_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each piece read is searched as it is shown; the rows searched before are not searched
    again (a million rows would be searched as many times as there are pieces)."""
    searched = [0]
    made = suture.tui.rows._row_text

    class Counted(str):
        __slots__ = ()

        def __contains__(self, needle: object) -> bool:
            searched[0] += 1
            return str.__contains__(self, needle)  # type: ignore[operator]

    monkeypatch.setattr(suture.tui.rows, "_row_text", lambda *a: Counted(made(*a)))
    async with held_app(tmp_path, monkeypatch) as held:
        app, pilot = held.app, held.pilot
        await pilot.press("slash", *"nowhere in it", "enter")
        await until(lambda: "still loading" in app.search_state, "the search among what is read")
        await held.let_go()
        await until(lambda: "still loading" not in app.search_state, "the search of the whole file")
        await ready(pilot, app)
        model = app.model
        assert model is not None and not model.partial
        assert app.search_state == "no match for “nowhere in it”"
        # The rows after the last stable point of a piece are read again with the next one.
        assert searched[0] < 1.5 * len(model)


async def test_the_shared_verdict_of_a_file_for_no_single_provider_is_picked_back(tmp_path: Path) -> None:
    path = _copy("vercel/broken-v4-missing-result.json", tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        first = app.status._first_line(short=False).plain
        assert first.endswith("Valid: 1 problem → 0 after repair")
        problems = app.query_one("#problems", ProblemList)
        await pilot.press("p")
        assert isinstance(app.screen, ProviderScreen)
        await pilot.press("down", "enter")  # the first provider after the shared verdict
        await pilot.pause()
        assert app.provider == "anthropic"
        assert not any(isinstance(item, Breach) for item in problems.items)
        await pilot.press("p")
        picker = app.screen
        assert isinstance(picker, ProviderScreen)
        assert picker.choices[0][1][0] == "Valid: 1 problem → 0 after repair (suture's property)"
        await pilot.press("g", "enter")
        await pilot.pause()
        assert app.provider is None and app.provider_picked
        assert app.status._first_line(short=False).plain == first
        [breach] = problems.items
        assert isinstance(breach, Breach)
        assert str(app.query_one("#problems-title", Static).content) == "Problems: Valid 1 → 0"
        assert app.problem_rows
        # The row it is about says it under the panes, as a provider's problem would.
        await pilot.press("g", "x")
        await pilot.pause()
        assert app.view.cursor == min(app.problem_rows)
        info = str(app.query_one("#info").render())
        assert f"Valid: {breach.problem}" in info


async def test_the_details_say_when_there_is_no_next_or_previous_message(tmp_path: Path) -> None:
    from suture.tui.details import DetailScreen

    app = SutureApp(_copy("chat/worked-example.json", tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.model is not None
        last = len(app.model) - 1
        app.view.select(last)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("J")
        await pilot.pause()
        assert app.screen.row == last
        app.screen._move(0)
        await pilot.press("K")
        await pilot.pause()
        assert app.screen.row == 0
        assert _said(app) == ["this is the last message", "this is the first message"]
