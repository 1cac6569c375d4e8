"""``suture explain`` reads an error's index as the provider the error comes from counts it.

A session log's agent sends its history to one provider; ``suture check --provider P`` numbers
the same history for any other provider as suture writes P's request (``messages.N`` over
Anthropic's turns, ``input[N]`` over Responses items, ``contents[N]``, ``messages[N]``). An error
from P names a place in that layout, so explain, given it, names the message check printed in
front of the problem (``[n]``): for every session sample and every provider, with the error
text check gives, and with each of the rule's texts that names the place alone (no id to find
the message by).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from suture.checks import PROVIDERS
from suture.checks.explain import explain_transcript
from suture.checks.rules import RULES, Rule
from suture.cli import main
from suture.formats import load_file
from suture.sent.numbered import modelled

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_sessions"
SESSIONS = sorted(
    [
        *SAMPLES.glob("recorded/*/*/session.jsonl"),
        *SAMPLES.glob("claude-code/*.jsonl"),
        *SAMPLES.glob("codex/*.jsonl"),
        *SAMPLES.glob("pi/*.jsonl"),
        *SAMPLES.glob("real/*/*.jsonl"),
    ]
)
IDS = [str(p.relative_to(SAMPLES)) for p in SESSIONS]
POINTER = re.compile(r"^(?:messages|input|contents)(?:\.(\d+)|\[(\d+)\])(?:\.content\.(\d+)|\.parts\[(\d+)\])?")
"""A provider's pointer as check prints it: its place, and the block there, if any."""
_NAMES_BY_ID = ("{id}", "{ids}", "{call_id}")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    main(list(argv))
    return json.loads(capsys.readouterr().out)


def _family(rule: Rule) -> Rule:
    """The rule whose texts ``rule``'s provider sends (A1a is reported with A1's)."""
    if rule.errors and rule.errors[0].startswith("as "):
        return next(r for r in RULES.values() if rule.id in r.members and r.id != rule.id)
    return rule


def _index_only(rule: Rule, place: int, block: str | None) -> list[str]:
    """Each of the provider's texts for ``rule`` that names a place and no id, naming ``place``
    (and ``block``) as the provider writes it."""
    shown = place + 1 if rule.index == "turns1" else place  # (Bedrock's member lists count from 1)
    out = []
    for text in _family(rule).errors:
        if "{N}" not in text or any(k in text for k in _NAMES_BY_ID):
            continue
        text = text.replace("{N}", str(shown)).replace("{M}", block or "0").replace("{C}", block or "0")
        out.append(re.sub(r"\{\w+\}", "1", text))  # (what else it says: a count, a length)
    return out


EACH = 4
"""Problems explained per provider and file (a long real session has hundreds)."""


def _problems(path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, dict[str, Any]]]:
    """The first :data:`EACH` problems check finds for each provider in what is sent."""
    report = _json(capsys, "check", "--json", "--provider", "all", str(path))
    return [(provider, p) for provider in PROVIDERS for p in report["providers"][provider]["sent"][:EACH]]


@pytest.mark.parametrize("path", SESSIONS, ids=IDS)
def test_explain_names_the_message_check_puts_at_the_pointer_for_every_provider(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Given an error that names the place check's pointer gives for a problem, explain names
    the problem's ``[n]``, whichever provider the error is from."""
    for provider, p in _problems(path, capsys):
        place = POINTER.match(p["where"])
        if p["n"] is None or place is None:
            continue  # (a message the agent makes up; a problem with no place in the list)
        n = int(place.group(1) or place.group(2))
        texts = [p["error"], *_index_only(RULES[p["rule"]], n, place.group(3) or place.group(4))]
        for text in texts:
            said = _json(capsys, "explain", "--json", str(path), text)
            named = [m["index"] for m in said["messages"]]
            assert said["found"] and p["n"] in named, (provider, p["rule"], p["where"], p["n"], text, named)


def test_the_samples_hold_errors_from_providers_their_agent_does_not_send_to(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The case the layout matters for is there (else the test above would pass on nothing):
    problems whose pointer counts a layout other than the body the agent sends, for each agent
    and each kind of list."""
    seen: set[tuple[str, str]] = set()
    for path in SESSIONS:
        request = modelled(load_file(path))
        for provider, p in _problems(path, capsys):
            if not request.own(provider) and POINTER.match(p["where"]):
                seen.add((request.sent.agent or "", p["where"].split(".")[0].split("[")[0]))
    agents = {a for a, _ in seen}
    assert {"claude-code", "codex", "pi"} <= agents, seen
    assert {"messages", "contents"} <= {k for _, k in seen}, seen


def test_an_anthropic_error_against_a_codex_session_counts_anthropic_s_turns() -> None:
    """Codex sends Responses items; Anthropic's ``messages.4.content.0`` counts the same history
    as Anthropic's turns, where the repeated call is message [5], not input[4]'s [3]."""
    path = SAMPLES / "recorded" / "codex-0.169.0" / "repeated-id" / "session.jsonl"
    found = explain_transcript(load_file(path), "messages.4.content.0: `tool_use` ids must be unique")
    assert found.indices == [5]
    assert found.request is not None and found.request.layout == "anthropic"
    assert found.request.label.endswith("laid out as anthropic's request (Codex sends to openai-responses)")
    assert found.flagged and [f.where for f in found.findings] == ["messages.4"]


def test_an_openai_error_against_a_claude_code_session_counts_chat_messages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Claude Code sends Anthropic's turns; OpenAI's ``messages.[4]`` counts chat messages (a
    result is a message of its own), and the text says which layout it read."""
    path = SAMPLES / "recorded" / "claude-code-2.1.328" / "text-before-result" / "session.jsonl"
    error = (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
        "with 'tool_calls'. (param: messages.[4].role)"
    )
    said = _json(capsys, "explain", "--json", str(path), error)
    assert [m["index"] for m in said["messages"]] == [3]
    assert said["sent"]["at"] == "messages[4]" and said["sent"]["written"] == [3]
    capsys.readouterr()
    main(["explain", str(path), error])
    out = capsys.readouterr().out
    assert "laid out as openai-chat's request (Claude Code sends to anthropic)" in out
    assert "  messages[4] there is written as:\n  [3] tool (line 22" in out


def test_a_bedrock_error_counts_bedrock_s_turns() -> None:
    """Bedrock Converse is sent no agent's body: its ``messages.N`` counts suture's Converse
    turns (consecutive messages of one role are one), as check's pointer does."""
    path = SAMPLES / "recorded" / "pi-0.73.1" / "orphan-result" / "session.jsonl"
    text = (
        "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn."
    )
    found = explain_transcript(load_file(path), text)
    assert found.request is not None and found.request.layout == "bedrock"
    assert 2 in found.indices and 1 not in found.indices


async def test_the_app_s_explain_goes_to_the_message_check_names(tmp_path: Path) -> None:
    """The app's E reads the index as ``suture explain`` does: Anthropic's ``messages.4`` against a
    Codex session lists #5 (check's ``[n]``) and says which layout it counted."""
    import shutil

    from textual.widgets import OptionList

    from suture.tui.app import SutureApp
    from tests.helpers.explain import explained, paste_error

    path = tmp_path / "session.jsonl"
    shutil.copy(SAMPLES / "recorded" / "codex-0.169.0" / "repeated-id" / "session.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await explained(pilot, app)
        screen = await paste_error(pilot, app, "messages.4.content.0: `tool_use` ids must be unique")
        listed = screen.query_one(OptionList)
        assert [listed.get_option_at_index(k).id for k in range(listed.option_count)] == ["5"]
        said = str(screen.query_one("#explained").content)
        assert "it counts: what Codex 0.169.0 sends when it resumes this file, laid out as anthropic's request" in said
