"""The problems list's heading says its key fact in the list's width: a Codex session its provider
accepts and a stricter server rejects says both on the heading's two lines at 160 columns."""

from __future__ import annotations

from pathlib import Path

from suture.tui.bars import ListHeading, heading_forms
from tests.helpers.app import SIZE, app_on_copy, settled
from tests.helpers.drawn import drawn_in, words

ROOT = Path(__file__).resolve().parent.parent
CODEX = ROOT / "sample_sessions" / "recorded" / "{}" / "item-between-call-and-output" / "session.jsonl"


async def test_the_stricter_servers_verdict_is_on_the_heading(tmp_path: Path) -> None:
    for version in ("codex-0.169.0", "codex-0.171.0"):
        app = app_on_copy(Path(str(CODEX).format(version)), tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settled(pilot, app)
            shown = words(drawn_in(app, app.query_one("#problems-title")))
        assert "openai-responses accepts" in shown and "openai-responses-strict rejects" in shown, shown


def test_a_heading_is_said_whole_where_it_fits() -> None:
    said = "Sent to openai-responses: accepted · openai-responses-strict rejects it"
    heading = ListHeading(said)
    assert heading.fitted(47) == said  # (two lines at 47 columns)
    assert heading.fitted(33) == "Sent: openai-responses accepts,\nopenai-responses-strict rejects"
    assert heading_forms("Sent to anthropic: rejected (2)") == ["Sent to anthropic: rejected (2)"]
