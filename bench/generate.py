"""Deterministic generator of realistic agent transcripts for suture's benchmarks.

Every file is a pure function of its name: a seeded ``random.Random``, no clock, no environment.
Two formats:

- OpenAI chat (a JSON array, and the same messages as JSONL): a system prompt, user turns,
  assistant text, assistant calls (one to three) answered by ``role: tool`` results, long tool
  outputs now and then, a few base64 images.
- Claude Code session JSONL: the shapes of real sessions (one line per content block of an
  assistant message, the lines sharing ``message.id``; each ``tool_result`` on a user line of its
  own with ``toolUseResult``; ``progress`` hook lines between a call and its result;
  ``file-history-snapshot`` and ``system`` lines).

Both carry a little damage for repair to do (about one span in a hundred): a result moved behind a
steer or after a later result, a missing result, a call id used twice, an empty assistant
placeholder, an orphan result.

Sizes are message counts (chat messages; user and assistant lines for Claude Code): ``1k``,
``10k``, ``100k``, ``1m``; ``chat-45mb`` is a chat array of about 45 MB. Files go to
``bench/data/`` (not in git)::

    python bench/generate.py                 # every size
    python bench/generate.py chat-100k.json  # one file
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

DATA = Path(__file__).resolve().parent / "data"
VERSION = "5"
"""Bump when the output changes, so stale files are made again."""

SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000, "1m": 1_000_000}
MB45 = 45 * 1024 * 1024

_WORDS = [
    "the",
    "a",
    "build",
    "test",
    "file",
    "error",
    "function",
    "return",
    "value",
    "module",
    "import",
    "config",
    "path",
    "line",
    "result",
    "check",
    "run",
    "fix",
    "update",
    "read",
    "write",
    "change",
    "call",
    "tool",
    "output",
    "input",
    "parse",
    "load",
    "save",
    "user",
    "agent",
    "session",
    "message",
    "history",
    "span",
    "repair",
    "note",
    "image",
    "text",
    "data",
    "list",
    "dict",
    "key",
    "type",
    "class",
    "method",
    "python",
    "rust",
    "go",
    "cargo",
    "pytest",
    "failed",
    "passed",
    "warning",
    "assert",
    "expected",
    "got",
    "none",
    "true",
    "false",
    "async",
    "await",
    "stream",
    "chunk",
    "token",
    "cache",
    "prompt",
    "model",
    "provider",
    "request",
    "response",
    "status",
    "retry",
    "timeout",
]
_ALNUM = string.ascii_letters + string.digits
_TOOLS = [
    ("read_file", '{{"path": "src/{w}/{v}.py"}}'),
    ("run_tests", '{{"args": ["-q", "tests/test_{w}.py"]}}'),
    ("bash", '{{"command": "grep -rn {w} src/{v}"}}'),
    ("write_file", '{{"path": "src/{w}.py", "content": "def {v}():\\n    return None\\n"}}'),
    ("search", '{{"query": "{w} {v}"}}'),
]
_CC_TOOLS: list[tuple[str, Callable[[str, str], dict[str, str]]]] = [
    ("Read", lambda w, v: {"file_path": f"/home/dev/project/src/{w}/{v}.py"}),
    ("Bash", lambda w, v: {"command": f"pytest -q tests/test_{w}.py", "description": f"Run the {w} tests"}),
    ("Grep", lambda w, v: {"pattern": w, "path": f"src/{v}"}),
    ("Edit", lambda w, v: {"file_path": f"src/{w}.py", "old_string": v, "new_string": f"{v}_new"}),
    ("Glob", lambda w, v: {"pattern": f"**/{w}*.py"}),
]


class Text:
    """Cheap realistic text: slices of one pre-made corpus of words and code-like lines."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        lines = []
        for i in range(20_000):
            n = rng.randint(3, 14)
            words = " ".join(rng.choice(_WORDS) for _ in range(n))
            if i % 5 == 0:
                lines.append(f"    {rng.choice(_WORDS)}_{i % 97} = {rng.choice(_WORDS)}({rng.randint(0, 999)})")
            elif i % 7 == 0:
                lines.append(f"src/{rng.choice(_WORDS)}.py:{rng.randint(1, 900)}: {words}")
            else:
                lines.append(words.capitalize() + ".")
        # Some non-ASCII so UTF-8 decoding is exercised as in real sessions.
        lines[::211] = ["Résumé — naïve café ✓ 日本語のテキスト " + ln for ln in lines[::211]]
        self.corpus = "\n".join(lines)

    def take(self, n: int) -> str:
        start = self.rng.randrange(0, len(self.corpus) - n - 1) if n < len(self.corpus) - 1 else 0
        return self.corpus[start : start + n]

    def word(self) -> str:
        return self.rng.choice(_WORDS)


def _id(rng: random.Random, prefix: str, n: int) -> str:
    return prefix + "".join(rng.choices(_ALNUM, k=n))


def _image_b64(rng: random.Random, size: int) -> str:
    # A PNG signature then random base64 payload: what matters is its size, not its pixels.
    return "iVBORw0KGgo" + "".join(rng.choices(_ALNUM + "+/", k=size))


def _tool_output(rng: random.Random, text: Text) -> str:
    r = rng.random()
    if r < 0.6:
        return text.take(rng.randint(60, 500))
    if r < 0.92:
        return text.take(rng.randint(800, 3_000))
    return text.take(rng.randint(5_000, 20_000))


# -- OpenAI chat ----------------------------------------------------------------------------------


def chat_messages(seed: int, count: int | None = None, max_bytes: int | None = None) -> list[dict[str, Any]]:
    """``count`` chat messages (or about ``max_bytes`` of them), with a little damage."""
    rng = random.Random(seed)
    text = Text(rng)
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent. Use the tools to read, run and edit code."}
    ]
    size = measured = 0
    used_ids: list[str] = []

    def full() -> bool:
        nonlocal size, measured
        if count is not None:
            return len(out) >= count
        size += sum(len(orjson.dumps(m)) + 1 for m in out[measured:])
        measured = len(out)
        return size >= (max_bytes or 0)

    turn = 0
    while not full():
        turn += 1
        user: dict[str, Any]
        if rng.random() < 0.002:
            image = _image_b64(rng, rng.randint(20_000, 120_000))
            user = {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is wrong in this screenshot? " + text.take(80)},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}},
                ],
            }
        else:
            user = {"role": "user", "content": text.take(rng.randint(20, 400))}
        out.append(user)
        for _step in range(rng.randint(1, 6)):
            if full():
                break
            n_calls = rng.choice((1, 1, 1, 2, 2, 3))
            calls: list[dict[str, Any]] = []
            for _ in range(n_calls):
                name, args = rng.choice(_TOOLS)
                call_id = _id(rng, "call_", 24)
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": args.format(w=text.word(), v=text.word())},
                    }
                )
            damage = rng.random() < 0.01 and turn > 3
            kind = rng.choice(("moved", "missing", "duplicate", "placeholder", "orphan", "steer")) if damage else ""
            if kind == "duplicate" and used_ids:
                calls[0]["id"] = rng.choice(used_ids[-50:])
            used_ids.extend(c["id"] for c in calls)
            said = text.take(rng.randint(0, 200)) if rng.random() < 0.4 else None
            out.append({"role": "assistant", "content": said, "tool_calls": calls})
            if kind == "placeholder":
                out.append({"role": "assistant", "content": ""})
            results = [{"role": "tool", "tool_call_id": c["id"], "content": _tool_output(rng, text)} for c in calls]
            if kind == "missing":
                results.pop(rng.randrange(len(results)))
            elif kind == "moved" and len(results) > 1:
                results.reverse()
            elif kind in ("moved", "steer"):
                results.insert(0, {"role": "user", "content": "also check the lint " + text.take(40)})
            out.extend(results)
            if kind == "orphan":
                out.append({"role": "assistant", "content": text.take(120)})
                out.append({"role": "tool", "tool_call_id": _id(rng, "call_", 24), "content": "late output"})
        if not full():
            out.append({"role": "assistant", "content": text.take(rng.randint(100, 1_500))})
    if count is not None:
        del out[count:]
    return out


# -- Claude Code ----------------------------------------------------------------------------------


class _CC:
    """State of a Claude Code session being written: uuids chain, clock, ids."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.parent: str | None = None
        self.tick = 0
        self.session = "3f2b8c1e-0d4a-4e8b-9a61-5c7e2f9d0b13"

    def uuid(self) -> str:
        h = "".join(self.rng.choices("0123456789abcdef", k=32))
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def stamp(self) -> str:
        # A fake clock: a fixed start plus a counter, so the output never depends on the real one.
        self.tick += self.rng.randint(50, 4000)
        s, ms = divmod(self.tick, 1000)
        m, s = divmod(s, 60)
        h, m = divmod(m, 60)
        d, h = divmod(h, 24)
        return f"2026-02-{10 + d % 18:02d}T{h:02d}:{m:02d}:{s:02d}.{ms:03d}Z"

    def base(self, kind: str) -> dict[str, Any]:
        u = self.uuid()
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/project",
            "sessionId": self.session,
            "version": "2.1.38",
            "gitBranch": "main",
            "slug": "quiet-fixing-otter",
            "type": kind,
        }
        self.parent = u
        record["uuid"] = u
        record["timestamp"] = self.stamp()
        return record


def _unlink(
    results: list[tuple[list[dict[str, Any]], dict[str, Any]]], dropped: list[dict[str, Any]], parent: str | None
) -> str | None:
    """Re-link the records after ``dropped`` (records never written) to the parent they had;
    returns what the next record's parent is then."""
    gone = {r["uuid"]: r["parentUuid"] for r in dropped}
    for hooks, line in results:
        for record in (*hooks, line):
            while record["parentUuid"] in gone:
                record["parentUuid"] = gone[record["parentUuid"]]
    while parent in gone:
        parent = gone[parent]
    return parent


def claude_code_lines(seed: int, count: int, text: Text | None = None) -> Iterator[dict[str, Any]]:
    """Records of a Claude Code session with ``count`` user and assistant lines. ``text`` shares
    one corpus between many sessions (making it costs more than a small session)."""
    rng = random.Random(seed)
    text = text or Text(rng)
    cc = _CC(rng)
    n = 0
    used: list[str] = []
    yield {
        "type": "file-history-snapshot",
        "messageId": cc.uuid(),
        "snapshot": {"messageId": cc.uuid(), "trackedFileBackups": {}, "timestamp": "2026-02-10T00:00:00.000Z"},
        "isSnapshotUpdate": False,
    }
    turn = 0
    while n < count:
        turn += 1
        user = cc.base("user")
        if rng.random() < 0.002:
            content: Any = [
                {"type": "text", "text": "Look at this: " + text.take(60)},
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": _image_b64(rng, rng.randint(20_000, 120_000)),
                    },
                },
            ]
        else:
            content = text.take(rng.randint(20, 400))
        user["message"] = {"role": "user", "content": content}
        if turn == 1:
            user.update({"thinkingMetadata": {"maxThinkingTokens": 31999}, "todos": [], "permissionMode": "default"})
        yield user
        n += 1
        for _step in range(rng.randint(1, 6)):
            if n >= count:
                return
            msg_id = _id(rng, "msg_01", 22)
            request = _id(rng, "req_011C", 18)
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.3:
                blocks.append(
                    {"type": "thinking", "thinking": text.take(rng.randint(50, 600)), "signature": _id(rng, "Eo", 300)}
                )
            if rng.random() < 0.4:
                blocks.append({"type": "text", "text": text.take(rng.randint(20, 300))})
            calls: list[dict[str, Any]] = []
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
                name, args = rng.choice(_CC_TOOLS)
                call = {
                    "type": "tool_use",
                    "id": _id(rng, "toolu_01", 22),
                    "name": name,
                    "input": args(text.word(), text.word()),
                    "caller": {"type": "direct"},
                }
                calls.append(call)
            damage = rng.random() < 0.01 and turn > 3
            kind = rng.choice(("moved", "missing", "duplicate", "placeholder", "orphan", "steer")) if damage else ""
            if kind == "duplicate" and used:
                calls[0]["id"] = rng.choice(used[-50:])
            used.extend(c["id"] for c in calls)
            blocks.extend(calls)
            first_uuid = None
            for block in blocks:
                line = cc.base("assistant")
                first_uuid = first_uuid or line["uuid"]
                line["message"] = {
                    "model": "claude-opus-4-6",
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": "tool_use" if block is blocks[-1] else None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": rng.randint(1, 9),
                        "cache_creation_input_tokens": rng.randint(0, 9000),
                        "cache_read_input_tokens": rng.randint(10_000, 90_000),
                        "output_tokens": rng.randint(10, 900),
                        "service_tier": "standard",
                    },
                }
                line["requestId"] = request
                yield line
                n += 1
            if kind == "placeholder":
                empty = cc.base("assistant")
                empty["message"] = {
                    "model": "claude-opus-4-6",
                    "id": _id(rng, "msg_01", 22),
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": ""}],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                }
                empty["requestId"] = _id(rng, "req_011C", 18)
                yield empty
                n += 1
            results = []
            for call in calls:
                output = _tool_output(rng, text)
                hooks = []
                for _ in range(rng.randint(0, 2)):
                    hook = cc.base("progress")
                    hook["data"] = {
                        "type": "hook_progress",
                        "hookEvent": "PreToolUse",
                        "hookName": f"PreToolUse:{call['name']}",
                        "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh",
                    }
                    hook["parentToolUseID"] = call["id"]
                    hook["toolUseID"] = call["id"]
                    hooks.append(hook)
                line = cc.base("user")
                line["message"] = {
                    "role": "user",
                    "content": [
                        {"tool_use_id": call["id"], "type": "tool_result", "content": output, "is_error": False}
                    ],
                }
                line["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
                line["sourceToolAssistantUUID"] = first_uuid
                results.append((hooks, line))
            if kind == "missing":
                # A result that was never written: the records after it hang off the record
                # before it, as in a real file (no record names a parent that is not there).
                hooks, line = results.pop(rng.randrange(len(results)))
                cc.parent = _unlink(results, [*hooks, line], cc.parent)
            elif kind == "moved" and len(results) > 1:
                results.reverse()
            elif kind in ("moved", "steer"):
                steer = cc.base("user")
                steer["message"] = {"role": "user", "content": "also check the lint " + text.take(40)}
                results.insert(0, ([], steer))
            for hooks, line in results:
                yield from hooks
                yield line
                n += 1
            if kind == "orphan":
                late = cc.base("user")
                late["message"] = {
                    "role": "user",
                    "content": [{"tool_use_id": _id(rng, "toolu_01", 22), "type": "tool_result", "content": "late"}],
                }
                yield late
                n += 1
        if n < count:
            final = cc.base("assistant")
            final["message"] = {
                "model": "claude-opus-4-6",
                "id": _id(rng, "msg_01", 22),
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": text.take(rng.randint(100, 1_500))}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 3, "output_tokens": 200},
            }
            final["requestId"] = _id(rng, "req_011C", 18)
            yield final
            n += 1
            if rng.random() < 0.05:
                yield {
                    "type": "file-history-snapshot",
                    "messageId": cc.uuid(),
                    "snapshot": {"messageId": cc.uuid(), "trackedFileBackups": {}, "timestamp": cc.stamp()},
                    "isSnapshotUpdate": True,
                }


# -- files ----------------------------------------------------------------------------------------


def _seed(name: str) -> int:
    return sum((i + 1) * b for i, b in enumerate(name.encode())) % 1_000_003


def _jsonl(records: Any) -> bytes:
    dumps = orjson.dumps
    return b"".join(dumps(r) + b"\n" for r in records)


SHORT = 2000
"""``chat-short-*``: the chat files with every string cut to this many characters, so every line
is short enough for a log viewer's line parsers (toolong gives up on lines over 10,000)."""


def _shortened(value: Any) -> Any:
    if isinstance(value, str):
        return value[:SHORT]
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shortened(v) for v in value]
    return value


def make(name: str) -> bytes:
    """The bytes of the benchmark file called ``name`` (see ``names()``)."""
    if name == "chat-45mb.json":
        return orjson.dumps(chat_messages(_seed(name), max_bytes=MB45))
    stem, _, ext = name.partition(".")
    fmt, _, size = stem.rpartition("-")
    if size not in SIZES:
        raise SystemExit(f"unknown benchmark file {name!r}; known: {', '.join(names())}")
    count = SIZES[size]
    if fmt == "chat" and ext == "json":
        return orjson.dumps(chat_messages(_seed(f"chat-{size}"), count))
    if fmt == "chat" and ext == "jsonl":
        return _jsonl(chat_messages(_seed(f"chat-{size}"), count))
    if fmt == "claude-code" and ext == "jsonl":
        return _jsonl(claude_code_lines(_seed(stem), count))
    if fmt == "chat-short" and ext == "jsonl":
        return _jsonl(_shortened(m) for m in chat_messages(_seed(f"chat-{size}"), count))
    raise SystemExit(f"unknown benchmark file {name!r}; known: {', '.join(names())}")


FLEET_SIZES = {"300": 300, "1k": 1_000, "10k": 10_000}


def fleet(name: str) -> Path:
    """A folder of many Claude Code sessions as an agent keeps them, for the scan benchmark:
    ``fleet-10k`` holds 10,000 session files in 50 project folders under
    ``.claude/projects/``, of 4 to 400 user and assistant lines each, log-uniformly (most are
    small, a few are long, as on a real machine), about one in a hundred with damage to repair.
    Made once; ``.version`` says by which generator."""
    size = name.removeprefix("fleet-")
    if not name.startswith("fleet-") or size not in FLEET_SIZES:
        raise SystemExit(f"unknown fleet {name!r}; known: {', '.join('fleet-' + k for k in FLEET_SIZES)}")
    root = DATA / name
    stamp = DATA / f".{name}.version"
    if root.is_dir() and stamp.exists() and stamp.read_text() == VERSION:
        return root
    import math
    import shutil

    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(_seed(name))
    text = Text(rng)
    projects = root / ".claude" / "projects"
    for k in range(FLEET_SIZES[size]):
        count = int(math.exp(rng.uniform(math.log(4), math.log(400))))
        folder = projects / f"-home-dev-project-{k % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        seed = rng.randrange(1 << 30)
        (folder / f"{seed:08x}-{k:05d}.jsonl").write_bytes(_jsonl(claude_code_lines(seed, count, text)))
    stamp.write_text(VERSION)
    return root


def names() -> list[str]:
    out = []
    for size in SIZES:
        out += [f"chat-{size}.json", f"chat-{size}.jsonl", f"claude-code-{size}.jsonl", f"chat-short-{size}.jsonl"]
    return [*out, "chat-45mb.json"]


def ensure(name: str) -> Path:
    """The path of benchmark file ``name``, made first when missing or made by an older generator."""
    path = DATA / name
    stamp = DATA / f".{name}.version"
    if path.exists() and stamp.exists() and stamp.read_text() == VERSION:
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    data = make(name)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    stamp.write_text(VERSION)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Make the benchmark transcripts in bench/data/.")
    p.add_argument(
        "files", nargs="*", help=f"files to make (default: all): {', '.join(names())}, fleet-300, fleet-1k, fleet-10k"
    )
    args = p.parse_args(argv)
    for name in args.files or names():
        if name.startswith("fleet-"):
            root = fleet(name)
            files = list(root.rglob("*.jsonl"))
            mb = sum(f.stat().st_size for f in files) / 1e6
            print(f"{root.relative_to(DATA.parent.parent)}  {len(files):,} files, {mb:.0f} MB", file=sys.stderr)
            continue
        path = ensure(name)
        print(f"{path.relative_to(DATA.parent.parent)}  {path.stat().st_size / 1e6:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
