"""An image's ``size``, in every format that holds images: the length of its base64 string (what
Anthropic's 5 MB per-image limit counts: "messages.0.content.1.image.source.base64: image
exceeds 5 MB maximum: 6418576 bytes > 5242880 bytes" for an image file under 5 MB,
cg-dot/vertexai-cf-workers#16), never the bytes it decodes to, and never the length of a URL or
file id: an image the request only points at holds none of its bytes (size 0)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from suture.formats import load_bytes
from suture.model import ImagePart

B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
DATA_URL = "data:image/png;base64," + B64
URL = "https://example.com/a-picture-with-a-long-name.png"
PI_HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}


def _pi(block: dict[str, Any]) -> bytes:
    record = {
        "type": "message",
        "id": "a1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": [block], "timestamp": 1},
    }
    return orjson.dumps(PI_HEADER) + b"\n" + orjson.dumps(record) + b"\n"


def _doc(value: Any) -> bytes:
    return orjson.dumps(value)


def _user(content: list[Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content}]


CASES: dict[str, tuple[bytes, str, int]] = {
    "messages-base64": (
        _doc(_user([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}}])),
        "messages",
        len(B64),
    ),
    "messages-url": (
        _doc(_user([{"type": "image", "source": {"type": "url", "url": URL}}])),
        "messages",
        0,
    ),
    "chat-data-url": (_doc(_user([{"type": "image_url", "image_url": {"url": DATA_URL}}])), "chat", len(B64)),
    "chat-url": (_doc(_user([{"type": "image_url", "image_url": {"url": URL}}])), "chat", 0),
    "responses-data-url": (
        _doc(
            {
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": DATA_URL}]}
                ]
            }
        ),
        "responses",
        len(B64),
    ),
    "responses-url": (
        _doc({"input": [{"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": URL}]}]}),
        "responses",
        0,
    ),
    "responses-file-id": (
        _doc(
            {
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_image", "file_id": "file-abc123"}]}
                ]
            }
        ),
        "responses",
        0,
    ),
    "gemini-inline": (
        _doc({"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": B64}}]}]}),
        "gemini",
        len(B64),
    ),
    "gemini-file": (
        _doc({"contents": [{"role": "user", "parts": [{"fileData": {"mimeType": "image/png", "fileUri": URL}}]}]}),
        "gemini",
        0,
    ),
    "vercel-data-url": (_doc(_user([{"type": "image", "image": DATA_URL}])), "vercel", len(B64)),
    "vercel-url": (_doc(_user([{"type": "image", "image": URL}])), "vercel", 0),
    "vercel-base64": (_doc(_user([{"type": "image", "image": B64, "mediaType": "image/png"}])), "vercel", len(B64)),
    "pi": (_pi({"type": "image", "data": B64, "mimeType": "image/png"}), "pi", len(B64)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_image_s_size_is_its_base64_length_or_nothing_for_a_pointer(case: str) -> None:
    data, fmt, size = CASES[case]
    transcript = load_bytes(data, fmt)
    (image,) = [p for m in transcript.messages if isinstance(m.content, list) for p in m.content]
    assert isinstance(image, ImagePart)
    assert image.size == size
