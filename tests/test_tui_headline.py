"""The app's headline verdict is the file's own provider's, the one ``suture scan``, ``suture
check`` and the sessions browser judge the file for; a file written for no single provider (the
AI SDK's) is headed, as scan and check judge it, by the Valid property every provider shares.
Other providers stay one key away (``p``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from suture import scan
from suture.formats import load_file, own_provider
from suture.repair import repair
from suture.tui.app import SutureApp
from suture.tui.bars import ListHeading
from suture.tui.changes import ProblemList
from suture.tui.screens import ProviderScreen
from suture.validity import Breach
from tests.helpers.app import ROOT, SIZE, ready, settled

SAMPLES = ROOT / "sample_sessions"

CLEAN = {
    "chat/clean.json": "openai-chat",
    "messages/clean-request.json": "anthropic",
    "gemini/clean-request.json": "gemini",
    "responses/clean-request.json": "openai-responses",
}
"""Clean request files (scan: ok), each of which some other provider would reject."""


def _copy(name: str, tmp_path: Path) -> Path:
    path = tmp_path / Path(name).name
    shutil.copy(SAMPLES / name, path)
    return path


def _status(app: SutureApp) -> str:
    return app.status._first_line(short=False).plain


@pytest.mark.parametrize(("name", "provider"), CLEAN.items(), ids=list(CLEAN))
async def test_a_clean_file_is_headed_by_its_own_providers_verdict(tmp_path: Path, name: str, provider: str) -> None:
    path = _copy(name, tmp_path)
    transcript = load_file(path)
    judgement = scan.judge(transcript, repair(transcript.messages))
    assert (judgement.provider, judgement.verdict) == (provider, scan.OK) == (own_provider(transcript), "ok")
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.verdicts is not None
        # Another provider would say no, but it is not the one this file is sent to.
        assert any(v.rejected for v in app.verdicts.values())
        assert app.provider == provider
        assert _status(app).endswith(f"{provider}: no problems")
        assert not app.problem_rows
        # The others are one key away.
        other = next(p for p, v in app.verdicts.items() if v.rejected)
        await pilot.press("p")
        assert isinstance(app.screen, ProviderScreen)
        app.screen.dismiss(other)
        await pilot.pause()
        assert app.provider == other and app.problem_rows
        assert _status(app).endswith(app.verdicts[other].summary())


async def test_a_file_for_no_single_provider_is_headed_by_the_valid_property(tmp_path: Path) -> None:
    path = _copy("vercel/clean-v5.json", tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert app.verdicts is not None and app.verdicts["anthropic"].rejected
        assert app.provider is None
        assert _status(app).endswith("Valid: no problems")
        assert not app.problem_rows
        problems = app.query_one("#problems", ProblemList)
        assert problems.items == [] and "stricter than any one provider" in problems.empty
        await pilot.press("x")  # nothing to visit
        assert app.view.cursor == 0
        await pilot.press("p")
        assert isinstance(app.screen, ProviderScreen)
        app.screen.dismiss("anthropic")
        await pilot.pause()
        assert app.provider == "anthropic"
        assert _status(app).endswith(app.verdicts["anthropic"].summary())


async def test_the_valid_property_problems_of_such_a_file_are_listed_and_visited(tmp_path: Path) -> None:
    path = _copy("vercel/broken-v4-missing-result.json", tmp_path)
    transcript = load_file(path)
    judgement = scan.judge(transcript, repair(transcript.messages))
    assert judgement.provider == "" and judgement.problems == 1 and judgement.after_repair == 0
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        model = app.model
        assert model is not None and app.provider is None
        assert _status(app).endswith("Valid: 1 problem → 0 after repair")
        problems = app.query_one("#problems", ProblemList)
        [breach] = problems.items
        assert isinstance(breach, Breach) and breach.problem in judgement.first
        row = model.row_of_input[breach.index]
        assert list(app.problem_rows) == [row]
        await pilot.press("g")
        await pilot.press("x")
        assert app.view.cursor == row
        # Choosing it in the list goes to its row too.
        await pilot.press("g")
        problems.post_message(ProblemList.Chosen(problems, 0, True))
        await pilot.pause()
        assert app.view.cursor == row


async def test_a_session_log_is_still_headed_by_its_agents_provider(tmp_path: Path) -> None:
    path = _copy("pi/v1-clean.jsonl", tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await settled(pilot, app)
        assert app.model is not None and app.verdicts is not None
        assert app.provider == own_provider(app.model.transcript) != ""
        assert app.verdicts[app.provider].session


async def test_a_session_only_a_stricter_server_rejects_says_so_beside_its_verdict(tmp_path: Path) -> None:
    # Recorded: OpenAI's Responses API accepts what Codex 0.171 sends on resume, a strict server of
    # the same API answers 400. The headline and the problems list say it, as suture check does.
    path = _copy("recorded/codex-0.171.0/item-between-call-and-output/session.jsonl", tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        said = (
            "openai-responses: no problems in what Codex sends (stricter servers of the same API, "
            "openai-responses-strict, reject it: 1 problem; p shows it)"
        )
        assert _status(app).endswith(said)
        # (Said whole where it fits; in shorter words on the list's two lines at 160 columns.)
        assert app.query_one("#problems-title", ListHeading).said.endswith("· openai-responses-strict rejects it")
        # Picked, the strict server's own verdict heads the view, with no word of another.
        app.provider = "openai-responses-strict"
        app._show_verdict()
        assert _status(app).endswith(
            "openai-responses-strict: rejected, 1 problem in what Codex sends → 0 after repair"
        )
