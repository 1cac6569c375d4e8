"""The recording harness's mock provider (on 127.0.0.1) and the trimming of recorded bodies."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tools.agents.mock import Call, MockProvider, Script, Step
from tools.agents.trim import canonical, digest, trim_body

BASH = Call("Bash", {"command": "echo hi"})


@pytest.fixture
def mock() -> Iterator[MockProvider]:
    with MockProvider(seed="test") as m:
        yield m


def post(mock: MockProvider, path: str, body: Any) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", mock.port, timeout=30)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"content-type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()
        assert mock.settle(timeout=30)


def events(raw: bytes) -> list[Any]:
    out = []
    for block in raw.decode().split("\n\n"):
        for line in block.splitlines():
            if line.startswith("data: ") and line != "data: [DONE]":
                out.append(json.loads(line[6:]))
    return out


USER = {"role": "user", "content": "hi"}


def test_anthropic_stream_answers_parallel_calls(mock: MockProvider) -> None:
    mock.begin("crash", Script([Step.tool(BASH, BASH)]))
    status, raw = post(mock, "/v1/messages?beta=true", {"stream": True, "messages": [USER]})
    assert status == 200
    evs = events(raw)
    starts = [e["content_block"] for e in evs if e["type"] == "content_block_start"]
    assert [b["type"] for b in starts] == ["tool_use", "tool_use"]
    assert starts[0]["id"] != starts[1]["id"] and starts[0]["id"].startswith("toolu_01")
    assert evs[-1]["type"] == "message_stop"
    delta = next(e for e in evs if e["type"] == "message_delta")
    assert delta["delta"]["stop_reason"] == "tool_use"
    [entry] = mock.log
    assert (entry.run, entry.seq, entry.path, entry.status, entry.step) == ("crash", 1, "/v1/messages", 200, "tool")


def test_anthropic_plain_json_and_script_then(mock: MockProvider) -> None:
    mock.begin("resume", Script([Step.say("first")], then=Step.say("again")))
    answers = []
    for _ in range(3):
        status, raw = post(mock, "/v1/messages", {"messages": [USER]})
        assert status == 200
        answers.append(json.loads(raw)["content"][0]["text"])
    assert answers == ["first", "again", "again"]


def test_broken_history_gets_400_with_provider_text_and_keeps_the_step(mock: MockProvider) -> None:
    mock.begin("resume", Script([Step.say("kept")]))
    tool_use = {"type": "tool_use", "id": "toolu_01x", "name": "Bash", "input": {}}
    broken = {"messages": [USER, {"role": "assistant", "content": [tool_use]}, USER]}
    status, raw = post(mock, "/v1/messages", broken)
    assert status == 400
    err = json.loads(raw)
    assert err["type"] == "error" and err["error"]["type"] == "invalid_request_error"
    assert (
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_01x" in err["error"]["message"]
    )
    assert mock.log[0].rule == "A1" and mock.log[0].error == err["error"]["message"]
    status, raw = post(mock, "/v1/messages", {"messages": [USER]})
    assert json.loads(raw)["content"][0]["text"] == "kept"


def test_overloaded_error(mock: MockProvider) -> None:
    mock.begin("crash", Script([Step.error(529)]))
    status, raw = post(mock, "/v1/messages", {"messages": [USER]})
    assert status == 529
    assert json.loads(raw)["error"]["type"] == "overloaded_error"
    assert mock.log[0].error == "Overloaded"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/messages", {"stream": True, "messages": [USER]}),
        ("/v1/responses", {"stream": True, "input": [{"type": "message", "role": "user", "content": "hi"}]}),
        ("/v1/chat/completions", {"stream": True, "messages": [USER]}),
    ],
)
def test_cut_stream_ends_without_its_last_chunk(mock: MockProvider, path: str, body: Any) -> None:
    mock.begin("crash", Script([Step.cut(BASH)]))
    with pytest.raises(http.client.IncompleteRead) as info:
        post(mock, path, body)
    partial = info.value.partial.decode()
    assert "echo" not in partial or "hi" not in partial.split("echo", 1)[1][:12]
    assert mock.log[0].error == "stream cut"


def test_responses_stream_function_calls(mock: MockProvider) -> None:
    mock.begin("crash", Script([Step.tool(Call("exec_command", {"cmd": "ls"}))]))
    status, raw = post(mock, "/v1/responses", {"stream": True, "input": []})
    assert status == 200
    evs = events(raw)
    done = next(e for e in evs if e["type"] == "response.output_item.done")["item"]
    assert done["type"] == "function_call" and done["id"].startswith("fc_") and done["call_id"].startswith("call_")
    assert json.loads(done["arguments"]) == {"cmd": "ls"}
    assert evs[-1]["type"] == "response.completed"
    assert [e["sequence_number"] for e in evs] == list(range(len(evs)))


def test_responses_rejects_missing_output(mock: MockProvider) -> None:
    call = {"type": "function_call", "call_id": "call_1", "name": "exec_command", "arguments": "{}"}
    status, raw = post(mock, "/v1/responses", {"stream": True, "input": [call]})
    assert status == 400
    assert json.loads(raw)["error"]["message"] == "No tool output found for function call call_1."


def test_chat_stream_tool_calls_then_done(mock: MockProvider) -> None:
    mock.begin("crash", Script([Step.tool(BASH, text="running")]))
    status, raw = post(mock, "/v1/chat/completions", {"stream": True, "messages": [USER]})
    assert status == 200
    assert raw.rstrip().endswith(b"data: [DONE]")
    chunks = [c for c in events(raw) if c["choices"]]
    ids = [tc["id"] for c in chunks for tc in c["choices"][0]["delta"].get("tool_calls", []) if "id" in tc]
    assert len(ids) == 1 and ids[0].startswith("call_")
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_hang_is_released(mock: MockProvider) -> None:
    mock.begin("crash", Script([Step.hang()]))
    result: list[Any] = []

    def client() -> None:
        try:
            result.append(post(mock, "/v1/messages", {"messages": [USER]}))
        except (http.client.HTTPException, OSError) as exc:
            result.append(exc)

    t = threading.Thread(target=client)
    t.start()
    assert mock.wait_for(lambda log: any(e.step == "hang" and e.status == 0 for e in log), timeout=20)
    mock.release_hangs()
    t.join(timeout=20)
    assert not t.is_alive()
    assert result and not isinstance(result[0], tuple)


def test_unknown_path_is_logged_as_404(mock: MockProvider) -> None:
    status, _ = post(mock, "/v1/complete", {})
    assert status == 404
    assert mock.log[0].provider is None and mock.log[0].status == 404


def test_trim_replaces_prompt_and_tools_by_their_hash() -> None:
    body = {
        "system": [{"type": "text", "text": "you are é"}],
        "tools": [{"name": "Bash", "input_schema": {"b": 1, "a": 2}}],
        "messages": [USER],
        "max_tokens": 5,
    }
    trimmed = trim_body("anthropic", body)
    assert trimmed["messages"] == [USER] and trimmed["max_tokens"] == 5
    assert trimmed["tools"] == digest(body["tools"])
    data = canonical(body["system"])
    assert data == '[{"text":"you are é","type":"text"}]'.encode()
    assert trimmed["system"]["bytes"] == len(data)
    import hashlib

    assert trimmed["system"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert body["system"][0]["text"] == "you are é"


def test_trim_responses_and_chat() -> None:
    resp = trim_body("openai-responses", {"instructions": "be brief", "tools": [], "input": [1]})
    assert resp["instructions"] == digest("be brief") and resp["input"] == [1]
    chat = trim_body("openai-chat", {"messages": [{"role": "system", "content": "sys"}, USER], "tools": [{}]})
    assert chat["messages"][0] == {"role": "system", "content": digest("sys")}
    assert chat["messages"][1] == USER and chat["tools"] == digest([{}])


def test_trim_responses_hashes_a_system_input_message_and_keeps_developer_ones() -> None:
    """pi sends its system prompt to Responses as a ``system`` input item; Codex's ``developer``
    items are history in its rollout and stay as sent."""
    developer = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]}
    body = {"input": [{"role": "system", "content": "sys"}, developer, USER]}
    trimmed = trim_body("openai-responses", body)
    assert trimmed["input"] == [{"role": "system", "content": digest("sys")}, developer, USER]
    assert body["input"][0] == {"role": "system", "content": "sys"}


GEMINI = "/v1beta/models/mock-model:streamGenerateContent?alt=sse"
GEMINI_USER = {"role": "user", "parts": [{"text": "hi"}]}


def test_gemini_stream_answers_calls_in_one_model_content(mock: MockProvider) -> None:
    mock.begin("crash", Script([Step.tool(BASH, BASH)]))
    status, raw = post(mock, GEMINI, {"contents": [GEMINI_USER]})
    assert status == 200
    chunks = events(raw)
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    assert [p["functionCall"]["name"] for p in parts if "functionCall" in p] == ["Bash", "Bash"]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    [entry] = mock.log
    assert (entry.path, entry.provider, entry.status) == (
        "/v1beta/models/mock-model:streamGenerateContent",
        "gemini",
        200,
    )


def test_gemini_plain_json_a_cut_and_an_overload(mock: MockProvider) -> None:
    mock.begin("crash", Script([Step.say("first"), Step.cut(BASH), Step.error(529)]))
    status, raw = post(mock, "/v1beta/models/mock-model:generateContent", {"contents": [GEMINI_USER]})
    assert status == 200 and json.loads(raw)["candidates"][0]["content"]["parts"] == [{"text": "first"}]
    with pytest.raises(http.client.IncompleteRead) as info:
        post(mock, GEMINI, {"contents": [GEMINI_USER]})
    assert b"functionCall" in info.value.partial and b"finishReason" not in info.value.partial
    assert mock.log[-1].error == "stream cut"
    status, raw = post(mock, GEMINI, {"contents": [GEMINI_USER]})
    assert status == 503 and json.loads(raw)["error"]["status"] == "UNAVAILABLE"


def test_gemini_broken_history_gets_400_with_gemini_s_words(mock: MockProvider) -> None:
    mock.begin("resume", Script([Step.say("kept")]))
    call = {"role": "model", "parts": [{"functionCall": {"name": "Bash", "args": {}}}]}
    status, raw = post(mock, GEMINI, {"contents": [GEMINI_USER, call, GEMINI_USER]})
    assert status == 400
    error = json.loads(raw)["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["message"] == "Please ensure that function response turn comes immediately after a function call turn."


def test_trim_gemini_hashes_the_system_instruction_and_tools() -> None:
    body = {"systemInstruction": "sys", "tools": [{}], "contents": [GEMINI_USER]}
    trimmed = trim_body("gemini", body)
    assert trimmed == {"systemInstruction": digest("sys"), "tools": digest([{}]), "contents": [GEMINI_USER]}
