"""The as-sent view against the real agents: every recorded shape in ``sample_sessions/recorded``.

For each shape folder (a new one is covered as soon as it is recorded): what ``suture.sent``
says the agent sends when it resumes ``session.jsonl`` equals the history in the first request
the real agent sent on resume, and suture's provider check finds a problem exactly when the
strict mock rejected that request.

What the agent adds at send time and is not history is left out of both sides before they are
compared (``sample_sessions/recorded``'s README and CORPUS layout say so): the new prompt
("continue", the harness's resume prompt), Claude Code's ``system`` messages and
``<system-reminder>`` text blocks and ``cache_control`` markers, the system prompt pi sends first,
Codex's instructions and environment context (sent before the history, and again after a
compaction), and the ids Codex makes up for the outputs it inserts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from suture.checks import check
from suture.formats import load_file
from suture.sent import as_sent
from tests.conftest import REAL
from tests.helpers.sent import FOLDERS, IDS, STRICT, compared, shape


def test_the_corpus_has_every_agent() -> None:
    agents = {shape(f)["agent"] for f in FOLDERS}
    assert "claude-code" in agents
    assert {shape(f)["shape"] for f in FOLDERS} >= {"killed-during-tool", "text-before-result"}


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_sent_is_the_history_the_real_agent_sent(folder: Path) -> None:
    real, predicted = compared(folder)
    assert predicted == real


def mock_problems(messages: list[Any], provider: str) -> list[Any]:
    """What suture finds of the rules the strict mock enforces, for ``provider``."""
    return check(messages, STRICT.get(provider, provider))


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_a_problem_is_found_exactly_when_the_real_request_was_rejected(folder: Path) -> None:
    meta = shape(folder)
    sent = as_sent(load_file(folder / "session.jsonl"))
    assert sent.provider == meta["provider"]
    found = mock_problems(sent.messages, sent.provider)
    rejected = meta["resume"]["outcome"] == "rejected"
    assert bool(found) == rejected, [v.error for v in found]


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_every_fix_names_a_message_of_the_file(folder: Path) -> None:
    transcript = load_file(folder / "session.jsonl")
    sent = as_sent(transcript)
    for fix in sent.fixes:
        assert fix.index is None or 0 <= fix.index < len(transcript.messages), fix
        assert fix.summary
    assert sent.version == shape(folder)["version"] or sent.agent == "pi"
    assert len(sent.origin) == len(sent.messages)


# -- the real sessions: no problem where the agent is not rejected -------------------------------


REAL_FILES = sorted(p for p in REAL.rglob("*.jsonl"))


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_sessions_give_no_problem_for_their_own_provider(path: Path) -> None:
    sent = as_sent(load_file(path))
    assert sent.provider == "anthropic"
    assert check(sent.messages, sent.provider) == []
    assert sent.assumed is not None  # these versions are not the modelled ones: said so


def test_claude_code_sends_the_tool_heavy_message_thinking_first() -> None:
    """The real tool_heavy session logs a ``"\\n\\n"`` text block before a thinking block; Claude
    Code leaves it out, so the message goes thinking-first, and says so as its own fix."""
    transcript = load_file(REAL / "claude-code" / "tool_heavy.jsonl")
    sent = as_sent(transcript)
    (fix,) = [f for f in sent.fixes if f.kind == "dropped_block"]
    written = transcript.messages[fix.index or 0]
    assert written.source is not None and written.source.line == 27
    k = sent.origin.index(fix.index)
    assert sent.messages[k].role == "assistant"
    assert [type(p).__name__ for p in sent.messages[k].content or []][:1] == ["ThinkingPart"]
    written_first = written.content[0] if isinstance(written.content, list) else None
    assert getattr(written_first, "text", None) == "\n\n"
