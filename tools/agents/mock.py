"""A scripted, strict mock LLM provider on 127.0.0.1.

It speaks three wire formats on one port:

- Anthropic Messages: ``POST /v1/messages`` (SSE when ``stream`` is true, plain JSON otherwise);
- OpenAI Responses: ``POST /v1/responses`` (SSE when ``stream`` is true, plain JSON otherwise);
- OpenAI Chat Completions: ``POST /v1/chat/completions`` (SSE when ``stream`` is true);
- Google Gemini: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` (SSE) and
  ``POST /v1beta/models/{model}:generateContent`` (plain JSON).

Every request is logged (run name, order, path, status, error text, body). A request whose
history breaks a pairing rule (:mod:`tools.agents.rules`) gets a 400 with the provider's own
error text and does not use up a script step. Otherwise it gets the next :class:`Step` of the
script: tool calls (one or several in one response), text, a stream cut after a tool call
started, an HTTP error (5xx / overloaded), or a hang until the server stops.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import urlsplit

from tools.agents.rules import CHECKS, Violation

PATHS = {
    "/v1/messages": "anthropic",
    "/v1/responses": "openai-responses",
    "/v1/chat/completions": "openai-chat",
}

#: Gemini's endpoints: the model is in the path, and the method says whether it streams.
GEMINI_PATH = re.compile(r"/v1beta/models/[^/:]+:(streamGenerateContent|generateContent)")


def provider_of(path: str) -> str | None:
    """The wire format the mock speaks at ``path``, or None where it answers 404."""
    if GEMINI_PATH.fullmatch(path):
        return "gemini"
    return PATHS.get(path)


StepKind = Literal["tool", "text", "cut", "error", "hang"]

#: Longest a hang lasts when nobody stops the server (every wait is bounded).
HANG_LIMIT = 600.0


@dataclass(frozen=True)
class Call:
    """One tool call the model makes: the tool's name and its arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Step:
    """What the mock answers to one request.

    - ``tool``: one response holding ``calls`` (two or more are parallel calls), after ``text`` if set;
    - ``text``: one response holding ``text``;
    - ``cut``: the response starts, the first call's arguments are half sent, the connection drops;
    - ``error``: HTTP ``status`` with the provider's error body (529/503 overloaded, 500 server error);
    - ``hang``: nothing is sent until the server stops.
    """

    kind: StepKind
    calls: tuple[Call, ...] = ()
    text: str = ""
    status: int = 200

    @staticmethod
    def tool(*calls: Call, text: str = "") -> Step:
        return Step("tool", calls=calls, text=text)

    @staticmethod
    def say(text: str) -> Step:
        return Step("text", text=text)

    @staticmethod
    def cut(call: Call) -> Step:
        return Step("cut", calls=(call,))

    @staticmethod
    def error(status: int = 529) -> Step:
        return Step("error", status=status)

    @staticmethod
    def hang() -> Step:
        return Step("hang")


@dataclass
class Script:
    """The steps answered in order; once they are used up, ``then`` answers every request."""

    steps: list[Step]
    then: Step = field(default_factory=lambda: Step.say("Done."))

    def next(self) -> Step:
        return self.steps.pop(0) if self.steps else self.then


@dataclass
class Logged:
    """One request as the mock saw it."""

    run: str
    seq: int
    path: str
    provider: str | None
    body: Any
    status: int = 0
    error: str | None = None
    rule: str | None = None
    step: str | None = None
    #: Set once the answer (or the cut, or the start of a hang) has been decided and logged.
    settled: bool = False

    def record(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "seq": self.seq,
            "path": self.path,
            "status": self.status,
            "error": self.error,
            "body": self.body,
        }


def _ids(seed: str, n: int, prefix: str, length: int) -> str:
    """A deterministic provider-shaped id (so re-recordings differ only where the agent differs)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    raw = hashlib.sha256(f"{seed}/{n}".encode()).digest()
    return prefix + "".join(alphabet[b % len(alphabet)] for b in raw)[:length]


class MockProvider:
    """The server. Use as a context manager; ``url`` is ``http://127.0.0.1:PORT``."""

    def __init__(self, *, seed: str = "suture", model: str = "mock-model") -> None:
        self.seed = seed
        self.model = model
        self.run = "setup"
        self.script = Script([])
        self.log: list[Logged] = []
        self._counter = 0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        handler = type("Handler", (_Handler,), {"mock": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="mock-provider", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> MockProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def begin(self, run: str, script: Script) -> None:
        """Start a run: later requests are logged under ``run`` and answered from ``script``."""
        with self._cond:
            self.run = run
            self.script = script
            self._stop.clear()

    def release_hangs(self) -> None:
        """End every hanging response (the connection is closed without an answer)."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    def new_id(self, prefix: str, length: int) -> str:
        with self._cond:
            self._counter += 1
            return _ids(self.seed, self._counter, prefix, length)

    def wait_for(self, predicate: Any, timeout: float) -> bool:
        """Wait until ``predicate(log)`` is true (checked on each logged event), at most ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.log):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.5))
            return True

    def settle(self, timeout: float = 30.0) -> bool:
        """Wait until every logged request has its final status and error."""
        return self.wait_for(lambda log: all(e.settled for e in log), timeout)

    # -- called by the handler -------------------------------------------------------------

    def _admit(self, path: str, provider: str | None, body: Any) -> tuple[Logged, Violation | None, Step | None]:
        with self._cond:
            entry = Logged(run=self.run, seq=len(self.log) + 1, path=path, provider=provider, body=body)
            self.log.append(entry)
            violation = CHECKS[provider](body) if provider is not None else None
            step = None if violation is not None or provider is None else self.script.next()
            entry.step = step.kind if step is not None else None
            return entry, violation, step

    def _done(self, entry: Logged, status: int, error: str | None = None, rule: str | None = None) -> None:
        with self._cond:
            entry.status = status
            entry.error = error
            entry.rule = rule
            entry.settled = True
            self._cond.notify_all()

    def _hang(self) -> None:
        with self._cond:
            self._cond.notify_all()
        self._stop.wait(HANG_LIMIT)


class _Cut(Exception):
    """Raised to drop the connection mid-response."""


class _Handler(BaseHTTPRequestHandler):
    mock: MockProvider
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        entry, _, _ = self.mock._admit(path, None, None)
        self.mock._done(entry, 404, f"not found: {path}")
        self._send_json(404, {"error": {"message": f"not found: {path}", "type": "not_found_error"}})

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        provider = provider_of(path)
        entry, violation, step = self.mock._admit(path, provider, body)
        if provider is None:
            self.mock._done(entry, 404, f"not found: {path}")
            self._send_json(404, {"error": {"message": f"not found: {path}", "type": "not_found_error"}})
            return
        if violation is not None:
            self.mock._done(entry, 400, violation.message, violation.rule)
            self._send_json(400, _error_body(provider, 400, violation.message))
            return
        assert step is not None
        if step.kind == "hang":
            self.mock._done(entry, 0, "hang")
            self.mock._hang()
            self._drop()
            return
        if step.kind == "error":
            # Gemini has no 529: it says it is overloaded with a 503.
            status = 503 if provider == "gemini" and step.status == 529 else step.status
            body_out = _error_body(provider, status, None)
            self.mock._done(entry, status, _error_message(body_out))
            self._send_json(status, body_out)
            return
        stream = bool(isinstance(body, dict) and body.get("stream")) or path.endswith(":streamGenerateContent")
        try:
            if provider == "anthropic":
                self._anthropic(step, stream)
            elif provider == "openai-responses":
                self._responses(step, stream)
            elif provider == "gemini":
                self._gemini(step, stream)
            else:
                self._chat(step, stream)
        except _Cut:
            self.mock._done(entry, 200, "stream cut")
            self._drop()
            return
        except OSError:
            self.mock._done(entry, 200, "client went away")
            return
        self.mock._done(entry, 200)

    # -- transport ----------------------------------------------------------------------------

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.send_header("request-id", "req_mock")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("connection", "close")
        self.send_header("request-id", "req_mock")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _event(self, name: str | None, payload: Any) -> None:
        head = f"event: {name}\n" if name else ""
        self._chunk(
            (head + "data: " + (payload if isinstance(payload, str) else json.dumps(payload)) + "\n\n").encode()
        )

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def _drop(self) -> None:
        """Close the connection abruptly (no terminating chunk: the client sees a broken stream)."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- Anthropic Messages ------------------------------------------------------------------

    def _anthropic(self, step: Step, stream: bool) -> None:
        mock = self.mock
        blocks: list[dict[str, Any]] = []
        if step.text or step.kind == "text":
            blocks.append({"type": "text", "text": step.text})
        for call in step.calls:
            blocks.append(
                {"type": "tool_use", "id": mock.new_id("toolu_01", 22), "name": call.name, "input": call.arguments}
            )
        stop = "tool_use" if step.calls else "end_turn"
        msg_id = mock.new_id("msg_01", 22)
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not stream:
            if step.kind == "cut":
                raise _Cut
            self._send_json(
                200,
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": mock.model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        self._start_stream()
        self._event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": mock.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {**usage, "output_tokens": 1},
                },
            },
        )
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                self._event(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                )
                self._event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}},
                )
            else:
                self._event(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                    },
                )
                args = json.dumps(block["input"])
                if step.kind == "cut":
                    self._event(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "input_json_delta", "partial_json": args[: len(args) // 2]},
                        },
                    )
                    raise _Cut
                self._event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": args},
                    },
                )
            self._event("content_block_stop", {"type": "content_block_stop", "index": i})
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        self._event("message_stop", {"type": "message_stop"})
        self._end_stream()

    # -- OpenAI Responses --------------------------------------------------------------------

    def _responses(self, step: Step, stream: bool) -> None:
        mock = self.mock
        resp_id = mock.new_id("resp_", 24)
        items: list[dict[str, Any]] = []
        if step.text or step.kind == "text":
            items.append(
                {
                    "type": "message",
                    "id": mock.new_id("msg_", 24),
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": step.text, "annotations": []}],
                }
            )
        for call in step.calls:
            items.append(
                {
                    "type": "function_call",
                    "id": mock.new_id("fc_", 24),
                    "status": "completed",
                    "call_id": mock.new_id("call_", 24),
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                }
            )
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        response = {
            "id": resp_id,
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": mock.model,
            "output": items,
            "usage": usage,
        }
        if not stream:
            if step.kind == "cut":
                raise _Cut
            self._send_json(200, response)
            return
        self._start_stream()
        seq = 0

        def ev(kind: str, payload: dict[str, Any]) -> None:
            nonlocal seq
            self._event(kind, {"type": kind, "sequence_number": seq, **payload})
            seq += 1

        ev("response.created", {"response": {**response, "status": "in_progress", "output": []}})
        ev("response.in_progress", {"response": {**response, "status": "in_progress", "output": []}})
        for i, item in enumerate(items):
            if item["type"] == "message":
                ev(
                    "response.output_item.added",
                    {"output_index": i, "item": {**item, "status": "in_progress", "content": []}},
                )
                part = {"type": "output_text", "text": "", "annotations": []}
                ev(
                    "response.content_part.added",
                    {"item_id": item["id"], "output_index": i, "content_index": 0, "part": part},
                )
                ev(
                    "response.output_text.delta",
                    {"item_id": item["id"], "output_index": i, "content_index": 0, "delta": step.text},
                )
                ev(
                    "response.output_text.done",
                    {"item_id": item["id"], "output_index": i, "content_index": 0, "text": step.text},
                )
                ev(
                    "response.content_part.done",
                    {"item_id": item["id"], "output_index": i, "content_index": 0, "part": item["content"][0]},
                )
            else:
                ev(
                    "response.output_item.added",
                    {"output_index": i, "item": {**item, "status": "in_progress", "arguments": ""}},
                )
                args = item["arguments"]
                if step.kind == "cut":
                    ev(
                        "response.function_call_arguments.delta",
                        {"item_id": item["id"], "output_index": i, "delta": args[: len(args) // 2]},
                    )
                    raise _Cut
                ev("response.function_call_arguments.delta", {"item_id": item["id"], "output_index": i, "delta": args})
                ev(
                    "response.function_call_arguments.done",
                    {"item_id": item["id"], "output_index": i, "arguments": args},
                )
            ev("response.output_item.done", {"output_index": i, "item": item})
        ev("response.completed", {"response": response})
        self._end_stream()

    # -- OpenAI Chat Completions -------------------------------------------------------------

    def _chat(self, step: Step, stream: bool) -> None:
        mock = self.mock
        chat_id = mock.new_id("chatcmpl-", 24)
        created = int(time.time())
        calls: list[dict[str, Any]] = [
            {
                "id": mock.new_id("call_", 24),
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in step.calls
        ]
        finish = "tool_calls" if calls else "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not stream:
            if step.kind == "cut":
                raise _Cut
            message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
            if calls:
                message["tool_calls"] = calls
            self._send_json(
                200,
                {
                    "id": chat_id,
                    "object": "chat.completion",
                    "created": created,
                    "model": mock.model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
            )
            return
        self._start_stream()

        def emit(choices: list[dict[str, Any]], **extra: Any) -> None:
            base = {"id": chat_id, "object": "chat.completion.chunk", "created": created, "model": mock.model}
            self._event(None, {**base, "choices": choices, **extra})

        def chunk(delta: dict[str, Any], reason: str | None = None) -> None:
            emit([{"index": 0, "delta": delta, "finish_reason": reason}])

        chunk({"role": "assistant", "content": ""})
        if step.text:
            chunk({"content": step.text})
        for i, call in enumerate(calls):
            args = call["function"]["arguments"]
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["function"]["name"], "arguments": ""},
                        }
                    ]
                }
            )
            if step.kind == "cut":
                chunk({"tool_calls": [{"index": i, "function": {"arguments": args[: len(args) // 2]}}]})
                raise _Cut
            chunk({"tool_calls": [{"index": i, "function": {"arguments": args}}]})
        chunk({}, finish)
        emit([], usage=usage)
        self._event(None, "[DONE]")
        self._end_stream()

    # -- Google Gemini -----------------------------------------------------------------------

    def _gemini(self, step: Step, stream: bool) -> None:
        """A ``generateContent`` answer: the text and the calls as parts of one ``model`` content
        (Gemini sends a call whole, so a cut drops the stream after the chunk holding the call,
        before the one that finishes the response)."""
        mock = self.mock
        parts: list[dict[str, Any]] = [{"text": step.text}] if step.text or step.kind == "text" else []
        parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for c in step.calls]
        usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
        base = {"modelVersion": mock.model, "responseId": mock.new_id("", 22)}

        def chunk(chunk_parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": chunk_parts}, "index": 0}
            if finish is not None:
                candidate["finishReason"] = finish
            return {"candidates": [candidate], "usageMetadata": usage, **base}

        if not stream:
            if step.kind == "cut":
                raise _Cut
            self._send_json(200, chunk(parts, "STOP"))
            return
        self._start_stream()
        for part in parts:
            self._event(None, chunk([part], None))
            if step.kind == "cut":
                raise _Cut
        self._event(None, chunk([], "STOP") if parts else chunk([{"text": ""}], "STOP"))
        self._end_stream()


def _error_body(provider: str, status: int, message: str | None) -> dict[str, Any]:
    """The provider's error body for ``status`` (``message`` for a 400)."""
    if provider == "gemini":
        if status == 400:
            state, text = "INVALID_ARGUMENT", message or "invalid request"
        elif status == 503:
            state, text = "UNAVAILABLE", "The model is overloaded. Please try again later."
        else:
            state, text = (
                "INTERNAL",
                "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
            )
        return {"error": {"code": status, "message": text, "status": state}}
    if provider == "anthropic":
        if status == 400:
            kind, text = "invalid_request_error", message or "invalid request"
        elif status == 529:
            kind, text = "overloaded_error", "Overloaded"
        else:
            kind, text = "api_error", "Internal server error"
        return {"type": "error", "error": {"type": kind, "message": text}, "request_id": "req_mock"}
    if status == 400:
        return {
            "error": {
                "message": message or "invalid request",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        }
    text = (
        "The server is overloaded. Please try again later."
        if status in (503, 529)
        else "The server had an error while processing your request. Sorry about that!"
    )
    return {"error": {"message": text, "type": "server_error", "param": None, "code": None}}


def _error_message(body: dict[str, Any]) -> str:
    return str(body["error"]["message"])
