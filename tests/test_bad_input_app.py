"""The app on every bad input: it keeps running and says what is wrong, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from suture.tui.app import SutureApp
from tests.badfiles import CASES, make_corpus
from tests.helpers.app import ready

# The folder case is refused by the command line before the app starts (tests/test_bad_input.py).
# A FIFO or a device is never opened in a way that could block: the app says what it is.
APP_CASES = [*CASES, "missing", "dangling-link", "unreadable", "device", "fifo"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_corpus(tmp_path_factory.mktemp("bad-app"))


@pytest.mark.parametrize("case", APP_CASES)
async def test_app_keeps_running_and_says_what_is_wrong(corpus: dict[str, Path], case: str) -> None:
    app = SutureApp(corpus[case], watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot, app)
        assert app.is_running
        if case == "jsonl-broken-middle-line":
            # The readable part is shown and the bad line named.
            assert app.model is not None and len(app.model.transcript.messages) == 3
            assert "line 3" in app.status.render().plain
        else:
            assert app.model is None
            assert app.status.state.error
            assert "\n" not in app.status.state.error.strip()
            assert "Traceback" not in app.status.state.error
        await pilot.press("n", "e", "escape", "slash", "x", "enter", "escape")
        assert app.is_running
