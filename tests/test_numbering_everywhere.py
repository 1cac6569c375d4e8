"""One numbering on every surface, for every sample and every provider.

``[n]`` is a message's number in the file as suture reads it: what ``suture check`` prints in
front of a problem, what ``suture explain`` prints in front of the messages an error names, the
``#n`` of the app's rows, details and problems list, and the ``#n`` its go-to box takes. The
pointer after it (``messages.7.content.0``, ``input[4]``, ``contents[5]``, ``messages[4]``) is the
provider's own: the place in the body of the request that provider is sent. For a session log
checked for the provider its agent sends to, that is what the agent sends on resume, with what it
adds at its place (``suture sent --body``); for a request file checked for its own provider, the
file itself; for any other provider, the history laid out as that provider's request, as suture
writes it (``suture.formats.dump``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from suture.checks import PROVIDERS
from suture.cli import main
from suture.formats import get, load_file
from suture.io import InputError, parse_document
from suture.model import Message, TextPart, ThinkingPart, Transcript
from suture.sent import as_sent, models
from suture.sent.numbered import list_key, message_keys, modelled, wire_format_of
from tests.helpers.app import SIZE, ready
from tests.helpers.cli import run

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(
    p for p in (ROOT / "sample_sessions").rglob("*.json*") if p.name not in ("requests.jsonl", "shape.json")
)
IDS = [str(p.relative_to(ROOT / "sample_sessions")) for p in SAMPLES]
POINTER = re.compile(r"^(messages|input|contents)(?:\.(\d+)|\[(\d+)\])(?:\.content\.(\d+)|\.parts\[(\d+)\])?")
"""A provider's pointer as check prints it: its list, its place, and the block there, if any."""
_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "tool_use", "function")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    """A command's JSON, run in this process as the command line runs it."""
    capsys.readouterr()
    main(list(argv))
    return json.loads(capsys.readouterr().out)


def _keys(value: Any) -> set[tuple[str, str]]:
    """What identifies a piece of a request body, in any wire format: the ids of the calls and
    results it holds, the names of its tools, its texts (as :func:`message_keys` names them)."""
    out: set[tuple[str, str]] = set()
    if isinstance(value, list):
        for v in value:
            out |= _keys(v)
        return out
    if not isinstance(value, dict):
        return out
    kind = value.get("type")
    for key in ("tool_use_id", "tool_call_id"):
        if isinstance(value.get(key), str):
            out.add(("result", value[key]))
    if kind in _OUTPUTS and isinstance(value.get("call_id"), str):
        out.add(("result", value["call_id"]))
    if kind in _CALLS:
        call_id = value.get("call_id", value.get("id"))
        if isinstance(call_id, str):
            out.add(("call", call_id))
    for key, kind_of in (("functionCall", "call"), ("functionResponse", "result")):
        inner = value.get(key)
        if isinstance(inner, dict):
            if isinstance(inner.get("id"), str):
                out.add((kind_of, inner["id"]))
            out.add(("name", str(inner.get("name") or "")))
    if isinstance(value.get("name"), str):
        out.add(("name", value["name"]))
    for key in ("text", "content", "thinking"):
        text = value.get(key)
        if isinstance(text, str) and text.strip():
            out.add(("text", text.strip()))
    for inner in value.values():
        if isinstance(inner, (dict, list)):
            out |= _keys(inner)
    return out


def _message_keys(m: Message) -> set[tuple[str, str]]:
    """:func:`message_keys`, with the names of its tools (Gemini pairs calls with no id by name)."""
    out = message_keys(m)
    out |= {("name", c.name) for c in m.tool_calls if c.name}
    if m.role == "tool" and m.name:
        out.add(("name", m.name))
    for part in m.content if isinstance(m.content, list) else ():
        if isinstance(part, TextPart) and part.text.strip():
            out.add(("text", part.text.strip()))
        if isinstance(part, ThinkingPart) and not part.text.strip():
            out.add(("text", THINKING))
    if isinstance(m.content, str) and m.content.strip():
        out.add(("text", m.content.strip()))
    return out


_ROLES = {"model": "assistant", "tool_result": "tool", "function_call_output": "tool", "function_call": "assistant"}


def _holds(held: Any, about: list[Message]) -> bool:
    """Whether a piece of a request body is (part of) one of the messages ``about``: they share
    an id, a tool name or a text; or, where neither has any (an empty message, a result whose
    call has no id in the file), they have one role."""
    keys = _keys(held) - {("result", ""), ("name", "")}
    if any(keys & _message_keys(m) for m in about):
        return True
    if not isinstance(held, dict):
        return False
    kind = str(held.get("role") or held.get("type"))
    role = _ROLES.get(kind, kind)
    blank = not {k for k in keys if k[0] in ("call", "result", "text")}
    return blank and any(m.role == role or (m.role == "tool" and role == "user") for m in about)


THINKING = "(thinking)"
"""What an empty thinking part is written as where the writer cannot write it as thinking."""


def _thinking_as_text(m: Message) -> Message:
    if not isinstance(m.content, list):
        return m
    parts = [TextPart(p.text.strip() or THINKING) if isinstance(p, ThinkingPart) else p for p in m.content]
    return replace(m, content=parts)


def _laid_out(messages: list[Message], transcript: Transcript, fmt: str) -> list[Any] | None:
    """``messages`` as suture writes a request in ``fmt``: its history list (written even where
    the format cannot hold all of a message, such as thinking without a signature: what is
    lost does not move a message)."""
    try:
        data = get(fmt).dump(messages, transcript)
    except InputError:  # (Anthropic's writer refuses thinking without a signature: as text, in place)
        try:
            data = get(fmt).dump([_thinking_as_text(m) for m in messages], transcript)
        except InputError:
            return None  # (nor can it write a call whose arguments are not JSON)
    doc = parse_document(data)
    value = doc.value
    if doc.kind == "jsonl":
        return [v for _, v in doc.records]
    if isinstance(value, dict):
        listed: list[Any] = value[list_key(fmt)]
        return listed
    return list(value)


def _body(path: Path, transcript: Transcript, provider: str, capsys: pytest.CaptureFixture[str]) -> list[Any] | None:
    """The request body's list ``provider``'s pointer counts (see the module docstring)."""
    sent = as_sent(transcript)
    fmt = wire_format_of(provider)
    if provider != "bedrock" and fmt == sent.wire_format:
        capsys.readouterr()
        main(["sent", "--body", "--quiet", str(path)])
        body = json.loads(capsys.readouterr().out)
        listed: list[Any] = body[list_key(fmt)]
        return listed
    if provider == "bedrock":
        return None  # (no writer of Converse requests: its pointer counts suture's turns)
    if transcript.format in models():
        # What the agent adds stands where it is sent: a system prompt or instructions first
        # (a system message, which Anthropic's and Gemini's requests hold apart from the list).
        request = modelled(transcript, sent)
        messages = [
            replace(m, role="system") if j in request.stand_ins and m.role == "developer" else m
            for j, m in enumerate(request.messages)
        ]
        return _laid_out(messages, Transcript(messages, sent.wire_format), fmt)
    return _laid_out(list(transcript.messages), transcript, fmt)


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_the_pointer_check_prints_is_the_place_of_the_request_body_that_holds_the_message(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """For each problem check prints, the entry of the request body its pointer names (and the
    block there) holds the problem's message, or a message its text names, or, for a rule about
    what follows a message (a call's results), the message after it."""
    transcript = load_file(path)
    session = transcript.format in models()
    sent = as_sent(transcript)
    messages = sent.messages if session else transcript.messages
    report = _json(capsys, "check", "--json", "--provider", "all", str(path))
    seen = 0
    for provider in PROVIDERS:
        entry = report["providers"][provider]
        problems = entry["sent"] if session else entry["before"]
        if not problems:
            continue
        body = _body(path, transcript, provider, capsys)
        if body is None:
            continue
        for p in problems:
            found = POINTER.match(p["where"])
            assert found is not None, (provider, p["where"])
            n = int(found.group(2) or found.group(3))
            about = [j for j in (p["index"], *p["related"], p["index"] + 1) if 0 <= j < len(messages)]
            if n == len(body):
                assert p["index"] + 1 >= len(messages), "only the new prompt is past the history"
                continue
            assert n < len(body), (provider, p["where"], len(body))
            block = found.group(4) or found.group(5)
            held = body[n]
            if block is not None:
                parts = held.get("content", held.get("parts")) if isinstance(held, dict) else None
                assert isinstance(parts, list) and int(block) < len(parts), (provider, p["where"])
                held = parts[int(block)]
            assert _holds(held, [messages[j] for j in about]), (provider, p["rule"], p["where"], held)
            seen += 1
    assert seen or not any(
        (e["sent"] if session else e["before"]) for p, e in report["providers"].items() if p != "bedrock"
    )


def test_the_pointer_follows_the_request_pi_sends_not_suture_s_grouping() -> None:
    """pi sends a user message after results as a message of its own (suture's own writing joins
    them): Anthropic's ``messages.N`` counts what pi sends."""
    path = ROOT / "sample_sessions" / "pi" / "branched-aborted.jsonl"
    proc = run("check", "--provider", "anthropic", path)
    assert "  [7] tool (line 14) messages.7.content.0  A2: " in proc.stdout
    assert "anthropic would say: messages.7.content.0: unexpected `tool_use_id`" in proc.stdout
    body = json.loads(run("sent", "--body", path).stdout)["messages"]
    assert body[7]["content"][0]["tool_use_id"] == "toolu_01As2Df3Gh4Jk5Lz6Xc7VbNm"


def test_a_pointer_for_a_provider_the_agent_does_not_send_to_is_said_to_be_suture_s_layout() -> None:
    path = ROOT / "sample_sessions" / "recorded" / "pi-0.73.1" / "orphan-result" / "session.jsonl"
    out = run("check", "--provider", "anthropic", "--provider", "openai-chat", path).stdout
    assert (
        "  (messages.N counts what pi sends, laid out as anthropic's request (pi sends to openai-chat); "
        "pi's system prompt is not among them; in the contract view, messages.N counts the file sent as written)"
    ) in out
    assert "  [3] tool (line 7) messages.2.content.1  A2: " in out
    assert (
        "  (messages[N] counts the request pi sends on resume (suture sent --body), as openai-chat's errors do; "
        "messages[0] is pi's system prompt; in the contract view, messages[N] counts the file sent as written)"
    ) in out
    # The message a problem's text names is named as [n] is: as written.
    assert (
        "  [3] tool (line 7) messages[4]  O2: result for call_orphanResultWithNoCall01 answers no call of the " in out
    )
    assert "assistant message at [1]" in out


# -- [n]: check, explain and the app -------------------------------------------------------------

AGREE = [
    ROOT / "sample_sessions" / "recorded" / "codex-0.169.0" / "item-between-call-and-output" / "session.jsonl",
    ROOT / "sample_sessions" / "recorded" / "pi-0.73.1" / "orphan-result" / "session.jsonl",
    ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328" / "text-before-result" / "session.jsonl",
    ROOT / "sample_sessions" / "pi" / "branched-aborted.jsonl",
    ROOT / "sample_sessions" / "gemini" / "broken-interrupted.json",
    ROOT / "sample_sessions" / "chat" / "worked-example.json",
]


def _problems(report: dict[str, Any], provider: str) -> list[dict[str, Any]]:
    entry = report["providers"][provider]
    listed: list[dict[str, Any]] = entry["sent"] if entry["sent"] is not None else entry["before"]
    return listed


NUMBERED = re.compile(r"^ +\[(\d+|new)\] (\w+) \((?:line )?([^,;)]*)", re.MULTILINE)
"""A numbered message as check and explain print it: ``[n] role (line 19 …)``."""


def _numbered(text: str) -> dict[str, set[tuple[str, str]]]:
    """Each ``[n]`` a command's text prints, with the role and the place in the file it says."""
    out: dict[str, set[tuple[str, str]]] = {}
    for n, role, where in NUMBERED.findall(text):
        out.setdefault(n, set()).add((role, where))
    return out


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_check_and_explain_agree_on_n(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A number names one message of the file on both: where check and explain print the same
    ``[n]``, it is the same role at the same place of the file. Check's text and its JSON print
    the same ``[n]``; and explain, given a problem's error (whichever provider it is from), names
    the problem's message."""
    report = _json(capsys, "check", "--json", "--provider", "all", str(path))
    capsys.readouterr()
    main(["check", "--provider", "all", "--all", str(path)])
    text = capsys.readouterr().out
    numbered = _numbered(text)
    explained = 0
    for provider in PROVIDERS:
        for p in _problems(report, provider):
            n = p["n"]
            assert ("new" if n is None else str(n)) in numbered, (provider, p["rule"])
            if n is None or explained >= 3:
                continue
            # (explain reads an index as the provider the error comes from counts it: the request
            # the agent sends for its own provider, suture's layout of that provider's request else)
            said = _json(capsys, "explain", "--json", str(path), p["error"])
            if not said.get("found"):
                continue
            named = {m["index"] for m in said["messages"]}
            assert n in named, (provider, p["rule"], p["error"], named)
            capsys.readouterr()
            main(["explain", str(path), p["error"]])
            for k, seen in _numbered(capsys.readouterr().out).items():
                if k in numbered:
                    assert seen <= numbered[k] or numbered[k] <= seen, (k, seen, numbered[k])
            explained += 1


@pytest.mark.parametrize("path", AGREE, ids=[p.parent.name if p.name == "session.jsonl" else p.name for p in AGREE])
async def test_the_app_numbers_each_problem_as_check_does(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The app's problems list puts each problem at ``#n``, check's ``[n]``; its details say the
    provider's words with check's pointer; and its go-to box takes that pointer to a message of
    that place of the request."""
    from textual.widgets import Input

    from suture.tui.app import SutureApp

    report = _json(capsys, "check", "--json", "--provider", "all", str(path))
    transcript = load_file(path)
    request = modelled(transcript) if transcript.format in models() else None
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.verdicts is not None
        for provider in PROVIDERS:
            kind = "sent" if request is not None else "before"
            shown = sorted(
                (f.index, f.rule, f.violation.error) for f in app.verdicts[provider].findings if f.kind == kind
            )
            printed = sorted((p["n"], p["rule"], p["error"]) for p in _problems(report, provider))
            assert shown == printed, provider
        provider = app.provider
        for p in _problems(report, provider)[:2]:
            await pilot.press("colon")
            box = app.query_one("#goto", Input)
            box.value = p["where"]
            await pilot.press("enter")
            await pilot.pause()
            row = app.view.cursor
            landed = app.model.left[row] if app.model is not None else None
            found = POINTER.match(p["where"])
            assert found is not None and landed is not None
            n = int(found.group(2) or found.group(3))
            if request is not None and request.own(provider):
                assert landed in request.written[n], (p["where"], landed)
            else:
                assert landed in {p["n"], p["n"] + 1, *p["related"]}, (p["where"], landed)


def test_a_place_in_a_list_the_provider_does_not_count_is_named_with_the_provider_that_counts_it() -> None:
    """Go to ``input[N]`` while Anthropic is judged (whose errors count ``messages``): the place is
    of what is sent laid out as OpenAI Responses' request, and said so with the count of that
    request, not Anthropic's; a place of the agent's own list is the body's whatever is judged."""
    request = modelled(load_file(ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"))
    found, said = request.find("input", 99, "anthropic")
    # (suture check --provider openai-responses numbers its items input[0] to input[7])
    assert found == [] and said == "input[99] of what is sent, laid out as openai-responses's request (it has 8)"
    assert request.find("input", 2, "anthropic") == request.find("input", 2, "openai-responses")
    assert request.find("messages", 2, "openai-responses") == request.find("messages", 2, "anthropic")
