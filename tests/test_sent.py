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

import orjson
import pytest

from suture.checks import check
from suture.formats import load_bytes, load_file
from suture.sent import as_sent
from suture.sent.numbered import block_keys, body_of, list_key, message_keys
from suture.sent.pi import short_hash
from tests.conftest import REAL
from tests.helpers.sent import FOLDERS, IDS, STRICT, compared, shape, without_prompt
from tools.agents.corpus import first_resume, read_requests
from tools.agents.record import CORPUS


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


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_each_message_sent_names_every_record_it_was_joined_from(folder: Path) -> None:
    """Every as-written message whose calls, results or texts a sent message holds is among the
    records ``Sent.written`` names for it; the one ``origin`` names is always among them."""
    transcript = load_file(folder / "session.jsonl")
    sent = as_sent(transcript)
    owners: dict[tuple[str, str], set[int]] = {}
    for i, m in enumerate(transcript.messages):
        for key in message_keys(m):
            owners.setdefault(key, set()).add(i)
    assert len(sent.written) == len(sent.wire)
    for n, value in enumerate(sent.wire):
        content = value.get("content") if isinstance(value, dict) else None
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        holds = {i for b in blocks for key in block_keys(b) if len(owners.get(key, ())) == 1 for i in owners[key]}
        if (
            isinstance(value, dict)
            and value.get("role") in ("user", "assistant")
            and folder.parent.name.startswith("claude")
        ):
            # (A joined text gets a newline: the texts of Claude Code's joined user messages are
            # found by their start.)
            holds |= {
                i
                for b in blocks
                if isinstance(b, dict) and isinstance(b.get("text"), str)
                for (kind, text), owned in owners.items()
                if kind == "text" and len(owned) == 1 and b["text"].strip() == text
                for i in owned
            }
        assert holds <= set(sent.written[n]), (n, holds, sent.written[n])
    for k, origin in enumerate(sent.origin):
        if origin is not None:
            assert origin in sent.written_of(k)


def test_a_joined_message_names_every_record_the_agent_joined_into_it() -> None:
    """Claude Code leaves out a call that never got a result and joins the prompts around it: the
    one message it sends came from both prompts' records, the left-out call's not."""
    transcript = load_file(CORPUS / "claude-code-2.1.328" / "dangling-call-then-later-turns" / "session.jsonl")
    sent = as_sent(transcript)
    assert sent.written[0] == (0, 2)
    assert sent.origin[0] == 0 and sent.written_of(0) == (0, 2)
    orphan = as_sent(load_file(CORPUS / "claude-code-2.1.328" / "orphan-result" / "session.jsonl"))
    # The orphan result's record joins the result before it, and is then left out of it.
    k = next(k for k, m in enumerate(orphan.messages) if m.role == "tool")
    assert orphan.written_of(k) == (2, 3)


# -- pi, talking to each provider it is recorded with ---------------------------------------------

PI_FOLDERS = [f for f in FOLDERS if shape(f)["agent"] == "pi"]


def test_pi_is_compared_talking_to_every_provider() -> None:
    """The pi corpus holds each provider's request (OpenAI Chat, Anthropic Messages, OpenAI
    Responses, Gemini), so the comparisons above cover suture's model of each of pi's writers."""
    assert {shape(f)["provider"] for f in PI_FOLDERS} == {"openai-chat", "anthropic", "openai-responses", "gemini"}
    for folder in PI_FOLDERS:
        assert as_sent(load_file(folder / "session.jsonl")).provider == shape(folder)["provider"]


@pytest.mark.parametrize("folder", PI_FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in PI_FOLDERS])
def test_pi_s_request_is_what_it_adds_then_the_history_then_the_prompt(folder: Path) -> None:
    """Every value of the history suture says pi sends is, as written, at its place in the request
    pi sent (``Sent.position``: after the system prompt pi puts first for OpenAI Chat and
    Responses; Anthropic's and Gemini's are not a message), and the request holds nothing else but
    the prompt."""
    sent = as_sent(load_file(folder / "session.jsonl"))
    first = first_resume(read_requests(folder))
    assert first is not None
    body = first["body"]
    history = body[{"openai-responses": "input", "gemini": "contents"}.get(shape(folder)["provider"], "messages")]
    assert len(history) == len(sent.added) + len(sent.wire) + 1
    for added in sent.added:
        assert history[added.position]["role"] == added.role
    for k, value in enumerate(sent.wire):
        assert history[sent.position(k)] == value, k
    assert without_prompt(history[-1:]) == []


def _pi_session(api: str, foreign_api: str) -> bytes:
    """A pi session whose first turn another model wrote (``foreign_api``, an id pi-ai normalises,
    reasoning and a signed text), then a turn of the model the session talks to (``api``)."""
    own = {"api": api, "provider": "mock", "model": "mock-model", "stopReason": "toolUse"}
    foreign = {"api": foreign_api, "provider": "other", "model": "other-model", "stopReason": "toolUse"}
    odd = "call_a+b/c=|fc_item.x"
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            **foreign,
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "think", "thinkingSignature": "sig"},
                {"type": "text", "text": "first", "textSignature": "msg_theirs"},
                {"type": "toolCall", "id": odd, "name": "bash", "arguments": {"command": "a"}},
            ],
        },
        {"role": "toolResult", "toolCallId": odd, "toolName": "bash", "content": [{"type": "text", "text": "ok"}]},
        {
            **own,
            "role": "assistant",
            "content": [
                {"type": "text", "text": "plain"},
                {"type": "text", "text": "signed", "textSignature": '{"v":1,"id":"msg_own","phase":"commentary"}'},
                {"type": "toolCall", "id": "call_b|fc_b", "name": "bash", "arguments": {"command": "b"}},
            ],
        },
    ]
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}]
    parent = None
    for n, message in enumerate(messages):
        lines.append({"type": "message", "id": f"e{n}", "parentId": parent, "timestamp": "t", "message": message})
        parent = f"e{n}"
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def test_pi_s_responses_request_for_another_model_s_turn_and_signed_text() -> None:
    """Read in pi-ai's code (not recorded): another provider's call id is made an id Responses takes
    (its result follows it), its reasoning becomes text and its text loses its signature (so its
    id is ``msg_N``); the session's own text keeps its signature's id and phase."""
    sent = as_sent(load_bytes(_pi_session("openai-responses", "anthropic-messages")))
    assert sent.provider == "openai-responses"
    user, think, first, call, output, plain, signed, own_call, result = sent.wire
    assert user == {"role": "user", "content": [{"type": "input_text", "text": "go"}]}
    assert [think["id"], first["id"]] == ["msg_1", "msg_1"]
    assert think["content"][0]["text"] == "think" and first["content"][0]["text"] == "first"
    assert call == {
        "type": "function_call",
        "call_id": "call_a_b_c__fc_item_x",
        "name": "bash",
        "arguments": '{"command":"a"}',
    }
    assert output == {"type": "function_call_output", "call_id": "call_a_b_c__fc_item_x", "output": "ok"}
    assert plain["id"] == "msg_3" and "phase" not in plain
    assert (signed["id"], signed["phase"]) == ("msg_own", "commentary")
    assert own_call == {
        "type": "function_call",
        "id": "fc_b",
        "call_id": "call_b",
        "name": "bash",
        "arguments": '{"command":"b"}',
    }
    assert result["call_id"] == "call_b" and result["output"] == "No result provided"


def test_pi_normalises_another_model_s_call_id_for_each_format() -> None:
    """pi-ai's ``normalizeToolCallId`` of each provider (read in its code): Anthropic's id pattern,
    Chat's ``call_id`` before ``|`` (40 characters at most)."""
    anthropic = as_sent(load_bytes(_pi_session("anthropic-messages", "openai-responses")))
    uses = [b for m in anthropic.wire if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
    results = [b for m in anthropic.wire if m["role"] == "user" for b in m["content"] if b["type"] == "tool_result"]
    assert uses[0]["id"] == results[0]["tool_use_id"] == "call_a_b_c__fc_item_x"
    assert uses[1]["id"] == "call_b|fc_b"  # the session's own model: sent as written
    chat = as_sent(load_bytes(_pi_session("openai-completions", "openai-responses")))
    calls = [m for m in chat.wire if m.get("tool_calls")]
    assert calls[0]["tool_calls"][0]["id"] == "call_a_b_c_"
    assert next(m["tool_call_id"] for m in chat.wire if m["role"] == "tool") == "call_a_b_c_"


def test_short_hash_is_pi_s() -> None:
    """pi-ai ``shortHash`` values, computed by pi 0.73.1's own function under node."""
    assert short_hash("") == "k4n83c7h0j2b"
    assert short_hash("abc") == "y0biex7f9bbh"
    assert short_hash("é😀x|y") == "1d7n5uiqs3luq"


def test_pi_s_gemini_request_for_another_model_s_turn() -> None:
    """Read in pi-ai's code (google-shared ``convertMessages``): no call ids for a Gemini model,
    another model's reasoning as plain text, a signature only back to the model that made it
    (valid base64), results joined into one user content, a failed one as ``error``."""
    lines = [orjson.loads(line) for line in _pi_session("google-generative-ai", "anthropic-messages").splitlines()]
    lines[-1]["message"]["content"][2]["thoughtSignature"] = "c2lnbmVk"  # (base64, the model's own)
    sent = as_sent(load_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines)))
    assert sent.provider == "gemini"
    user, first, result, own, made_up = sent.wire
    assert user == {"role": "user", "parts": [{"text": "go"}]}
    assert first["parts"] == [
        {"text": "think"},
        {"text": "first"},
        {"functionCall": {"name": "bash", "args": {"command": "a"}}},
    ]
    assert result == {"role": "user", "parts": [{"functionResponse": {"name": "bash", "response": {"output": "ok"}}}]}
    assert [p.get("text") for p in own["parts"]] == ["plain", "signed", None]
    assert "thoughtSignature" not in own["parts"][1]  # (a JSON signature is no base64)
    assert own["parts"][2]["thoughtSignature"] == "c2lnbmVk"
    assert made_up["parts"] == [{"functionResponse": {"name": "bash", "response": {"error": "No result provided"}}}]


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_each_stand_in_has_the_shape_of_what_the_agent_adds(folder: Path) -> None:
    """``suture sent --body`` puts a stand-in where the agent adds a message the file does not hold
    (its system prompt, its instructions): it has the shape the real agent sent there (the same
    keys, its content a string or parts of the same types), so a script reading the body reads it
    as it reads the agent's."""
    sent = as_sent(load_file(folder / "session.jsonl"))
    first = first_resume(read_requests(folder))
    assert first is not None
    history = first["body"][list_key(sent.wire_format)]
    body = body_of(sent)
    if not sent.added:  # (pi to Anthropic and Gemini: its system prompt is not a message)
        assert not [m for m in history if m.get("role") in ("system", "developer")]
    for added in sent.added:
        real, stand = history[added.position], body[added.position]
        # (Claude Code's carries its output settings too, which suture does not make up.)
        assert stand.keys() <= real.keys() - {"id", "output_config"}, added
        assert ("type" in stand, stand["role"]) == ("type" in real, real["role"])
        content = real["content"]
        if isinstance(content, list):
            # Claude Code sends its system message as parts after a compaction or a cut stream,
            # as a string otherwise: the stand-in is a string.
            if not isinstance(stand["content"], str) or shape(folder)["agent"] != "claude-code":
                assert [p["type"] for p in stand["content"]] == [p["type"] for p in content[:1]]
        else:  # a string (pi's recordings keep its digest, not its text)
            assert isinstance(stand["content"], str)
