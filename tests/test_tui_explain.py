"""Explain the 400 in the app: the recorded error's banner, E to explain pasted text, : to go to
a message by a provider's pointer or a line of the file; compaction named in the view."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import OptionList, TextArea

from suture.tui.app import SutureApp
from suture.tui.banner import Banner
from suture.tui.explain import ExplainScreen
from tests.helpers.app import WORKED, app_on_copy, ready
from tests.helpers.explain import explained, paste_error

ROOT = Path(__file__).resolve().parent.parent
API_ERROR = ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"
COMPACTED = ROOT / "sample_sessions" / "real" / "claude-code" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
RECORDED = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328"
SMALL = (80, 24)

A1_TEXT = (
    "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: y. Each "
    "`tool_use` block must have a corresponding `tool_result` block in the next message."
)


@pytest.fixture
def api_error(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    shutil.copy(API_ERROR, path)
    return path


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


def banner(app: SutureApp) -> str:
    return app.query_one(Banner).render().plain


async def test_the_banner_shows_the_recorded_error_and_goes_to_it(api_error: Path) -> None:
    app = SutureApp(api_error, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await explained(pilot, app)
        shown = app.query_one(Banner)
        assert shown.display
        text = banner(app)
        lines = text.splitlines()
        assert lines[0].startswith("⚠ API Error: 400")  # the provider's own words first (wrapped)
        (where,) = [line for line in lines if "recorded at" in line]
        assert "recorded at line 8" in where and "UTC" in where  # where and when
        assert "! goes to Original #1 (line 2)" in " ".join(lines[lines.index(where) :])
        # Beside "no problems": why the 400 the file records is not what the agent gets now.
        assert "Claude Code 2.1.332 repairs this itself on resume" in " ".join(lines[lines.index(where) :])
        await pilot.press("g")
        assert app.view.cursor == 0
        await pilot.press("exclamation_mark")
        model = app.model
        assert model is not None
        assert app.view.cursor == model.row_of_input[1]
        # A click on the banner goes there too.
        await pilot.press("g")
        await pilot.click(Banner, offset=(5, 0))
        await pilot.pause()
        assert app.view.cursor == model.row_of_input[1]


async def test_an_error_the_session_went_on_after_is_said_to_be_behind_it() -> None:
    """pi's session recorded a cut stream at line 33 and went on for hours: the banner says so,
    and does not ask for a wait that is long over. An error at the end says nothing of it."""
    app = SutureApp(ROOT / "sample_sessions" / "real" / "pi" / "large-session.jsonl", watch=False)
    async with app.run_test(size=(200, 45)) as pilot:
        await explained(pilot, app)
        text = " ".join(banner(app).split())
        assert "recorded at line 33" in text
        assert "· the session went on: 863 messages after it · not about the history · E explains" in text, text
        assert "resume after a wait" not in text
    app = SutureApp(API_ERROR, watch=False)
    async with app.run_test(size=(200, 45)) as pilot:
        await explained(pilot, app)
        assert "went on" not in banner(app)


async def test_no_recorded_error_no_banner_and_no_key(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await explained(pilot, app)
        assert not any(banner.display for banner in app.query(Banner))  # (made when it has something)
        assert "go_error" not in {k.action for k in app.screen.query_one("KeyBar").entries()}  # type: ignore[attr-defined]


async def test_E_explains_pasted_text_and_goes_to_a_message(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await explained(pilot, app)
        screen = await paste_error(pilot, app, A1_TEXT)
        said = str(screen.query_one("#explained").content)
        assert "A1" in said and "Repair: fixes it" in said
        assert "the error names: index 2; ids y" in said
        listed = screen.query_one(OptionList)
        # The calls' message, and the result for y after the user's text in the message named.
        assert listed.option_count == 2
        assert screen.query_one("#where").border_title == ExplainScreen.WHERE
        await pilot.press("tab")
        assert listed.has_focus
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]
        model = app.model
        assert model is not None
        assert app.view.cursor == model.row_of_input[1]


@pytest.mark.parametrize(
    ("shape", "n", "listed"),
    [
        # Claude Code leaves out the call that never got a result and joins the prompts around it.
        ("dangling-call-then-later-turns", 0, ["#0 user (line 3)", "#2 user (line 22)"]),
        # It joins the orphan result's record to the result before it, then leaves the orphan out.
        (
            "orphan-result",
            3,
            ["#2 tool (line 22, message.content[0])", "#3 tool (line 27, message.content[0])"],
        ),
    ],
)
async def test_E_lists_every_record_a_joined_message_came_from(
    tmp_path: Path, shape: str, n: int, listed: list[str]
) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(RECORDED / shape / "session.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await explained(pilot, app)
        screen = await paste_error(
            pilot,
            app,
            f"messages.{n}: all messages must have non-empty content except for the optional final assistant message",
        )
        options = screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(k).prompt) for k in range(options.option_count)]
        assert [label[: len(want)] for label, want in zip(labels, listed, strict=True)] == listed
        assert [label.endswith("(left out when sent)") for label in labels] == [
            shape == "orphan-result" and k == 1 for k in range(len(listed))
        ]
        # Enter on the second goes to that record's row.
        await pilot.press("tab", "down", "enter")
        await pilot.pause()
        model = app.model
        assert model is not None and app.screen is app.screen_stack[0]
        assert app.view.cursor == model.row_of_input[int(listed[1][1])]


async def test_E_on_an_error_about_another_file_says_so(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await explained(pilot, app)
        screen = await paste_error(pilot, app, A1_TEXT.replace(": y.", ": toolu_nowhere."))
        said = str(screen.query_one("#explained").content)
        assert "not in this file: wrong file, or a different request?" in said
        assert screen.query_one(OptionList).option_count == 0
        # The empty list's frame says it names none (an explanation that names some: test above).
        assert screen.query_one("#where").border_title == ExplainScreen.NONE
        await pilot.press("escape")
        assert app.screen is app.screen_stack[0]


async def _E_on_the_recorded_error(pilot: Any, app: SutureApp) -> ExplainScreen:
    """E pressed on a file that records an API error, once that error is read."""
    await explained(pilot, app)
    await pilot.press("E")
    screen = app.screen
    assert isinstance(screen, ExplainScreen)
    return screen


async def test_E_opens_with_the_recorded_error(api_error: Path) -> None:
    app = SutureApp(api_error, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await _E_on_the_recorded_error(pilot, app)
        assert screen.query_one(TextArea).text.startswith("API Error: 400")
        await ready(pilot, app)
        await pilot.pause()
        assert "A1" in str(screen.query_one("#explained").content)


A2_TEXT = (
    "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_XYZ. Each "
    "`tool_result` block must have a corresponding `tool_use` block in the previous message."
)


async def test_a_paste_over_the_recorded_error_replaces_it(api_error: Path) -> None:
    """The recorded error fills the box, all of it selected: a terminal's paste (bracketed, a Paste
    event) puts the pasted error in its place, and the explanation is of what was pasted."""
    app = SutureApp(api_error, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await _E_on_the_recorded_error(pilot, app)
        area = screen.query_one(TextArea)
        await pilot.pause()
        assert area.selected_text == area.text != ""
        app.post_message(events.Paste(A2_TEXT))  # as the driver posts a bracketed paste
        await pilot.pause(0.5)
        await ready(pilot, app)
        await pilot.pause()
        assert area.text == A2_TEXT
        said = str(screen.query_one("#explained").content)
        assert said.startswith("A2 ") and "A1" not in said


@pytest.mark.parametrize(
    ("typed", "index"),
    [
        ("#6", 6),
        ("messages[3]", 3),
        ("line 6", 1),
        ("line 11", 6),
        ("$[7]", 7),
        ("banana", None),
        (":messages.3", 3),
        (": #6", 6),
    ],
)
async def test_colon_goes_to_a_pointer(worked: Path, typed: str, index: int | None) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await explained(pilot, app)
        app.provider = "openai-chat"  # chat counts one message per message
        app.provider_picked = True
        await pilot.press("g", "colon", *typed, "enter")
        await pilot.pause()
        model = app.model
        assert model is not None
        if index is None:  # a word is no pointer
            said = [n.message for n in app._notifications]
            assert said == ["not a pointer suture reads: 'banana' (try messages.3, input[5], line 760, #12)"]
            assert app.view.cursor == 0
        else:
            assert app.view.cursor == model.row_of_input[index]


async def test_colon_says_it_counts_input_items_in_a_chat_file(worked: Path) -> None:
    # input[N] of a chat file is counted as OpenAI Responses items (a call and its message
    # apart): the go-to says so beside going there.
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await explained(pilot, app)
        app.provider = "openai-chat"
        app.provider_picked = True
        await pilot.press("g", "colon", *"input[3]", "enter")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said == ["input[3] (counted as OpenAI Responses input items)"]
        assert app.model is not None and app.view.cursor == app.model.row_of_input[2]


async def test_colon_finds_a_line_and_names_a_compaction(tmp_path: Path) -> None:
    app = app_on_copy(COMPACTED, tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        await explained(pilot, app)
        # The view names the history that is not sent.
        text = banner(app)
        assert "⋯ lines 1–753 are before a compaction (line 754) and are not sent" in text
        model = app.model
        assert model is not None
        await pilot.press("colon", *"761", "enter")  # a line merged into message 1
        await pilot.pause()
        assert app.view.cursor == model.row_of_input[1]
        await pilot.press("colon", *"line 10", "enter")
        await pilot.pause()
        assert app.view.cursor == 0
        said = [n.message for n in app._notifications]
        assert any("line 10 holds no message" in n and "before a compaction" in n for n in said)


async def test_going_to_a_line_the_agent_does_not_send_says_what_it_holds(tmp_path: Path) -> None:
    # Line 33 of the pi session is a failed turn pi does not send: said so, and the next message
    # (line 34) is where the cursor goes.
    path = tmp_path / "session.jsonl"
    shutil.copy(ROOT / "sample_sessions" / "real" / "pi" / "large-session.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        nxt = next(i for i, m in enumerate(model.transcript.messages) if m.source and m.source.line == 34)
        await pilot.press("colon", *"line 33", "enter")
        await pilot.pause()
        assert app.view.cursor == model.row_of_input[nxt]
        said = [n.message for n in app._notifications]
        assert said[-1] == (
            "line 33 holds a turn that ended with stopReason 'error': pi does not send it and its 16 calls "
            "(s lists it); the next message read is on line 34"
        )


async def test_go_to_a_pointer_of_the_recorded_error_says_where_that_error_counts_it() -> None:
    # The recorded error counts the request Claude Code sent then, which ! follows; :messages.1
    # counts the request sent on resume, whose messages.1 this file does not hold.
    app = SutureApp(API_ERROR, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(pilot, app)
        assert app.recorded is not None and app.recorded.target.startswith("Original #1")
        await pilot.press("colon", *"messages.1", "enter")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said[-1] == (
            "nothing at messages.1 (the system message Claude Code adds after the first message, which this file "
            "does not hold); the recorded error's messages.1 counts the request sent when it was recorded: ! goes "
            "to Original #1 (line 2)"
        )
        # A pointer the error does not name is gone to as it is, said to count what the agent
        # sends (the contract view's count, the file sent as written, has another message there).
        before = len(app._notifications)
        await pilot.press("colon", *"messages.2", "enter")
        await pilot.pause()
        (said_now,) = [n.message for n in list(app._notifications)[before:]]
        assert said_now == (
            "messages.2 of what Claude Code 2.1.332 sends when it resumes this file; in the file sent as written "
            "(the contract view's count) it is #2"
        )
        assert app.model is not None and app.view.cursor == app.model.row_of_input[1]
        # Another provider's list says its own count once; typed in capitals, the same as in small.
        before = len(app._notifications)
        await pilot.press("colon", *"input[2]", "enter")
        await pilot.pause()
        assert all(n.message.count(" of what ") <= 1 for n in list(app._notifications)[before:])
        before = len(app._notifications)
        await pilot.press("colon", *"Messages.2", "enter")
        await pilot.pause()
        (said_now,) = [n.message for n in list(app._notifications)[before:]]
        assert said_now.startswith("messages.2 of what Claude Code 2.1.332 sends when it resumes this file"), said_now
        before = len(app._notifications)
        # A line counts no request: nothing is said of the recorded error's count.
        await pilot.press("colon", "1", "enter")
        await pilot.pause()
        assert not any("recorded error" in n.message for n in list(app._notifications)[before:])


async def test_colon_and_exclamation_are_text_in_boxes(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await explained(pilot, app)
        await pilot.press("slash", *"a:b!")
        assert app.query_one("#search").value == "a:b!"  # type: ignore[attr-defined]
        assert not any(box.display for box in app.query("#goto"))  # (made when first wanted)
        await pilot.press("escape")
        assert app.screen is app.screen_stack[0]


def test_a_contract_view_finding_says_which_request_its_index_counts() -> None:
    # The contract view checks the file sent as written: its error's index counts that request,
    # not what the agent sends (which :messages.N and the agent's findings count).
    from suture.checks import Violation
    from suture.tui.judged import BEFORE, Finding

    v = Violation(
        provider="anthropic",
        rule="A1",
        index=5,
        error="messages.3: `tool_use` ids…",
        problem="call c has no result in the next message",
        fixed=True,
        remedy="",
        where="messages.3",
    )
    label, said = Finding(BEFORE, 4, 5, "anthropic", v, contract=True).said("Claude Code")
    assert label.startswith("contract view: anthropic A1")
    assert said == (
        "call c has no result in the next message (the error of the file sent as written: messages.3: `tool_use` ids…)"
    )
    assert Finding(BEFORE, 4, 5, "anthropic", v).said("Claude Code")[1] == "messages.3: `tool_use` ids…"


async def test_E_reads_an_error_of_the_file_sent_as_written_as_check_wrote_it(tmp_path: Path) -> None:
    """The error check writes of tool_heavy sent as written names its messages.9: E lists that
    message (#10, line 27), not what Claude Code sends at messages.9, and says which it counts."""
    path = tmp_path / "session.jsonl"
    shutil.copy(ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await explained(pilot, app)
        screen = await paste_error(
            pilot,
            app,
            "messages.9.content.0: If an assistant message contains any thinking blocks, the first block must be "
            "thinking or redacted_thinking. Found text.",
        )
        said = " ".join(str(screen.query_one("#explained").content).split())
        assert "it counts: the file sent as written, as suture check's contract view counts it" in said
        assert "(it does not fit what Claude Code" in said
        options = screen.query_one(OptionList)
        assert [str(options.get_option_at_index(k).prompt)[:4] for k in range(options.option_count)] == ["#10 "]
