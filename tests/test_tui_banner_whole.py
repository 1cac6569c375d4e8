"""The banner under the status line says its whole text at every width: the sentence about the
history the agent does not send (a compaction) and the error a session recorded are wrapped to
as many lines as they take, up to a cap, past which they end ``…`` and the key that shows them
whole; and the banner is never taller than the room it has, so nothing is cut off unsaid."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from suture import show
from suture.tui.app import SutureApp
from suture.tui.banner import Banner
from tests.helpers.app import ROOT, settled
from tests.helpers.drawn import drawn_in

RECORDED = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.332"
COMPACTED = RECORDED / "compaction" / "session.jsonl"
"""A session whose sentence about the history before its compaction takes 170 columns."""
OVERLOADED = RECORDED / "overloaded-5xx" / "session.jsonl"
"""A session that recorded three 529s, with the request behind the last."""


def _copy(source: Path, tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    shutil.copy(source, path)
    return path


@pytest.mark.parametrize("width", [200, 160, 120, 100, 80, 60])
async def test_the_history_not_sent_is_said_whole_or_ends_with_the_key_that_shows_it(
    tmp_path: Path, width: int
) -> None:
    app = SutureApp(_copy(COMPACTED, tmp_path), watch=False)
    async with app.run_test(size=(width, 40)) as pilot:
        await settled(pilot, app)
        banner = app.query_one(Banner)
        [sentence] = [show.line(line) for line in banner.skipped]
        lines = [line.strip() for line in drawn_in(app, banner)]
        assert lines[0].startswith("⋯ lines 1–27 are before a compaction"), lines
        said = " ".join(" ".join(lines).split()).removeprefix("⋯ ")
        if said != sentence:
            # Longer than its cap: cut between two words, the key that shows it kept whole.
            assert len(lines) == Banner.SKIPPED_LINES and said.endswith("… (s shows it)"), lines
            kept = said.removesuffix("… (s shows it)")
            assert sentence.startswith(kept) and sentence[len(kept)] == " ", (kept, sentence)
        else:
            assert width >= 80 and "…" not in said, lines
        assert all(len(line) <= width - 2 for line in lines), lines


@pytest.mark.parametrize("size", [(200, 45), (80, 24), (60, 24), (60, 16), (40, 24)])
async def test_the_banner_says_all_it_holds_in_the_room_it_has(tmp_path: Path, size: tuple[int, int]) -> None:
    app = SutureApp(_copy(OVERLOADED, tmp_path), watch=False)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        banner = app.query_one(Banner)
        assert banner.recorded is not None and banner.recorded.explanation is not None
        said = banner.render().plain.splitlines()
        assert len(said) == banner.size.height, (said, banner.size)  # (none cut off below)
        lines = [line.strip() for line in drawn_in(app, banner)]
        assert lines[0].startswith("⚠ API Error: Repeated 529"), lines
        text = " ".join(" ".join(lines).split())
        error = " ".join(banner.recorded.text.split())
        assert error in text or "… (E shows it whole)" in text, lines
        for part in ("recorded at line 31", "E explains", "b folds", "(s lists them)"):
            assert part in text, (part, lines)
