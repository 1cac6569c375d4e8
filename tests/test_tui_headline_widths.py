"""The header's verdict says the same sentence at every width: where the window is too narrow for
all of it, clauses are left out in a fixed order (and, narrower still, the window cuts it, marked
``…``), so a person who resizes the window sees that sentence cut, never other words."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from suture.tui.app import SutureApp
from suture.tui.judged import NEVER, cut
from tests.helpers.app import ROOT, settled
from tests.helpers.drawn import drawn_in

SAMPLES = ROOT / "sample_sessions"
WIDTHS = (200, 160, 120, 100, 80, 60)

SAMPLED = {
    "rejected session": ("recorded/claude-code-2.1.328/text-before-result/session.jsonl", "anthropic"),
    "accepted session": ("claude-code/interrupted-then-api-error.jsonl", "anthropic"),
    "stricter servers": ("recorded/codex-0.171.0/item-between-call-and-output/session.jsonl", "openai-responses"),
    "request file": ("messages/interrupted-and-restarted.json", "anthropic"),
    "no single provider": ("vercel/broken-v4-missing-result.json", "Valid"),
}


def _words(said: str) -> list[str]:
    """``said``'s words and its marks (brackets, commas, colons) apart."""
    return re.findall(r"[^\s()\[\];:,…]+|[()\[\];:,…]", said)


def _words_cut_from(shown: str, whole: str) -> bool:
    """Whether ``shown`` is ``whole`` with words left out (its last word cut short where it ends
    in ``…``): the same words, in the same order, none of another sentence."""
    said = _words(shown)
    last = None
    if said and said[-1] == "…":
        said.pop()
        last = said.pop() if said and shown.rstrip("…")[-1:] not in (" ", "") else ""
    rest = iter(_words(whole))
    if not all(any(word == other for other in rest) for word in said):
        return False
    return last is None or any(other.startswith(last) for other in rest)


def test_the_forms_of_a_sentence_leave_clauses_out_in_a_fixed_order() -> None:
    clauses = [("anthropic: rejected, 1 problem", NEVER), (" in what pi sends", 3), (" (pi repairs it)", 4)]
    clauses += [(" → 0", NEVER), (" after repair", 1)]
    assert ["".join(form) for form in cut(clauses)] == [
        "anthropic: rejected, 1 problem in what pi sends (pi repairs it) → 0 after repair",
        "anthropic: rejected, 1 problem in what pi sends → 0 after repair",
        "anthropic: rejected, 1 problem → 0 after repair",
        "anthropic: rejected, 1 problem → 0",
    ]


@pytest.mark.parametrize(("name", "head"), SAMPLED.values(), ids=list(SAMPLED))
async def test_the_header_says_one_sentence_cut_at_every_width(tmp_path: Path, name: str, head: str) -> None:
    path = tmp_path / Path(name).name
    shutil.copy(SAMPLES / name, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(WIDTHS[0], 40)) as pilot:
        await settled(pilot, app)
        assert app.status.state.checks is not None
        whole = app.status.state.checks[0].plain
        assert whole.startswith(f"{head}: ")
        seen: dict[int, str] = {}
        for width in WIDTHS:
            await pilot.resize_terminal(width, 40)
            await pilot.pause()
            assert app.status.state.checks is not None and app.status.state.checks[0].plain == whole
            lines = [line.strip() for line in drawn_in(app, app.status)]
            said = next((line[line.index(f"{head}: ") :] for line in lines if f"{head}: " in line), None)
            assert said is not None, (width, lines)
            assert _words_cut_from(said, whole), (width, said, whole)
            # One of the sentence's forms (cut by the window, where even the least is too wide).
            assert said in {form.plain for form in app.status.state.checks} or said.endswith("…"), (width, said)
            seen[width] = said
        assert seen[200] == whole or "stricter" in whole, seen
