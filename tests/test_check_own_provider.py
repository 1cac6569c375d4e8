"""``suture check`` of a request file without ``--provider`` lists the Valid property's problems and
says, beside them, the verdict of the file's own provider: the same verdict ``--provider`` gives
and ``suture scan`` and the app's headline judge the file by."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from suture.formats import load_file, own_provider
from suture.scan import scan_path
from tests.conftest import SAMPLES
from tests.helpers.cli import run
from tools.agents.corpus import first_resume, read_requests
from tools.agents.corpus import verdict as mock_verdict

REQUESTS = sorted(
    p for kind in ("chat", "messages", "responses", "gemini", "vercel") for p in (SAMPLES / kind).glob("*.json*")
)


@pytest.mark.parametrize("path", REQUESTS, ids=[f"{p.parent.name}/{p.name}" for p in REQUESTS])
def test_the_valid_listing_gives_the_file_s_own_provider_verdict(path: Path) -> None:
    own = own_provider(load_file(path))
    report = json.loads(run("check", "--json", path).stdout)
    if not own:  # (an AI SDK file is sent to many providers: Valid is its verdict)
        assert report["own_provider"] is None
        return
    theirs = json.loads(run("check", "--json", "--provider", own, path).stdout)["providers"][own]
    assert report["own_provider"] == {
        "name": own,
        "problems": theirs["problems"],
        "after_repair": theirs["after_repair"],
        "summary": theirs["summary"],
    }
    assert f"This file's provider, {theirs['summary']}" in run("check", path).stdout
    assert (scan_path(path).problems > 0) == (theirs["problems"] > 0)


def test_results_out_of_call_order_break_valid_but_not_openai_chat(tmp_path: Path) -> None:
    """OpenAI accepts a turn's results in any order; the contract asks for call order."""
    path = tmp_path / "reversed.json"
    calls = [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ("a", "b")]
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
    ]
    path.write_bytes(orjson.dumps({"model": "m", "messages": messages}))
    proc = run("check", path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == (
        "  (Valid is suture's property of calls and results, stricter there than any one provider: "
        "results in call order, say. This file's provider, openai-chat: no problems)"
    )
    assert run("check", "--provider", "openai-chat", path).returncode == 0


def test_a_valid_file_its_own_provider_rejects_is_not_clean(tmp_path: Path) -> None:
    """A call id of 100 characters: the contract has nothing against it, OpenAI rejects it (O5).
    ``suture check FILE && send`` must not send it: the exit code is 1, as ``suture scan`` says
    rejected, and the first line says so."""
    path = tmp_path / "long-id.json"
    long_id = "c" * 100
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": long_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": long_id, "content": "ok"},
    ]
    path.write_bytes(orjson.dumps(messages))
    proc = run("check", path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == f"{path}: valid (3 messages, chat), but openai-chat rejects it"
    assert json.loads(run("check", "--json", path).stdout)["valid"] is True
    assert scan_path(path).problems > 0


CODEX = sorted((SAMPLES / "recorded").glob("codex-*/*/shape.json"))


@pytest.mark.parametrize("shape", CODEX, ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in CODEX])
def test_a_codex_session_strict_servers_reject_says_so(shape: Path) -> None:
    """The recorded mock answers as strict Responses servers do: where it rejected what Codex sent
    on resume and OpenAI's rules accept it, check says the stricter servers reject it."""
    meta = json.loads(shape.read_text())
    session = shape.parent / "session.jsonl"
    report = json.loads(run("check", "--json", session).stdout)
    strict = run("check", "--json", "--provider", "openai-responses-strict", session)
    assert report["providers"]["openai-responses"]["verdict"] == "accepted"
    if meta["resume"]["outcome"] == "rejected":
        (found,) = json.loads(strict.stdout)["providers"]["openai-responses-strict"]["sent"]
        assert report["stricter"] == {
            "openai-responses": {
                "provider": "openai-responses-strict",
                "problems": 1,
                "summary": "openai-responses-strict: rejected, 1 problem in what Codex sends",
            }
        }
        first = first_resume(read_requests(shape.parent))
        assert first is not None
        mock = mock_verdict(meta["provider"], first["body"])
        assert mock is not None and found["rule"] == mock.rule  # the rule the mock rejected it by
        assert (
            "(stricter servers of the same API, openai-responses-strict, reject it: 1 problem;"
            in run("check", session).stdout
        )
    else:
        assert report["stricter"] == {} and strict.returncode == 0
