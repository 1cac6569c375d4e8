"""``suture check --json`` has one shape: the same fields, in the same order, for a request file
(with or without ``--provider``) and a session log; ``null`` where a field does not apply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import run

SAMPLES = Path(__file__).parent.parent / "sample_sessions"
CASES = [
    ("messages/interrupted-and-restarted.json",),
    ("messages/interrupted-and-restarted.json", "--provider", "anthropic,gemini"),
    ("vercel/clean-v5.json",),  # (an AI SDK file has no provider of its own)
    ("claude-code/interrupted-then-api-error.jsonl",),
    ("codex/broken-resumed.jsonl", "--provider", "openai-responses,anthropic"),
    ("pi/branched-aborted.jsonl",),
]


def _check(sample: str, *args: str) -> tuple[dict[str, Any], int]:
    proc = run("check", "--json", SAMPLES / sample, *args)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout), proc.returncode


def test_every_file_has_the_same_fields_in_the_same_order() -> None:
    reports = [_check(*case)[0] for case in CASES]
    assert len({tuple(r) for r in reports}) == 1, [list(r) for r in reports]
    entries = {tuple(entry) for r in reports for entry in r["providers"].values()}
    assert len(entries) == 1, entries


@pytest.mark.parametrize("case", CASES, ids=[" ".join(c) for c in CASES])
def test_clean_is_the_exit_code(case: tuple[str, ...]) -> None:
    report, code = _check(*case)
    assert report["clean"] is (code == 0)


def test_a_field_that_does_not_apply_is_null() -> None:
    request, _ = _check("messages/interrupted-and-restarted.json")
    assert request["valid"] is False and request["problems"]
    assert all(request[k] is None for k in ("agent", "sent_messages", "request", "skipped", "stricter", "export"))
    entry = request["providers"]["anthropic"]
    assert entry["before"] and entry["sent"] is None and entry["contract"] is None
    session, _ = _check("claude-code/interrupted-then-api-error.jsonl")
    assert session["valid"] is None and session["problems"] is None
    assert session["agent"] == "claude-code" and session["stricter"] == {}
    entry = session["providers"]["anthropic"]
    assert entry["before"] is None and entry["after"] is None and entry["sent"] == []


def test_own_provider_is_its_entry_in_providers() -> None:
    for case in CASES:
        report, _ = _check(*case)
        own = report["own_provider"]
        if own is None:
            continue
        entry = report["providers"][own["name"]]
        assert own == {"name": own["name"], **{k: entry[k] for k in ("problems", "after_repair", "summary")}}
    session, _ = _check("claude-code/interrupted-then-api-error.jsonl")
    assert session["own_provider"]["name"] == "anthropic"
    request, _ = _check("messages/interrupted-and-restarted.json")
    assert request["own_provider"]["name"] == "anthropic" and request["repaired_messages"] == 9


def test_readme_names_every_field() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    table = readme[readme.index("`check --json` gives one JSON object") :]
    table = table[: table.index("\n\n", table.index("| field |"))]
    report, _ = _check(*CASES[0])
    assert all(f"`{key}`" in table for key in report), [k for k in report if f"`{k}`" not in table]
    assert all(f"`{key}`" in table for key in report["providers"]["anthropic"])
