"""The live tier: the real agents, end to end, against the strict mock (``pytest -m agents``).

Each test records one shape into a temporary folder and asserts that the outcome recorded in the
committed corpus still holds: same accepted/rejected verdict, same rule, and the same kinds of
messages sent on resume. And each shape's session, written back by ``suture repair --in-place``
before resume, is resumed with a request the strict mock accepts, holding the repaired history.
Not run by default (pyproject deselects the ``agents`` marker); skipped
when the agent is not installed (``python -m tools.agents install``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from suture.formats import load_bytes
from suture.repair import repair
from suture.sent import as_sent
from suture.writeback import write_back
from tests.held import history_of, missing, sent_ids
from tools.agents.corpus import first_resume, problems, read_requests, shape_folders, verdict
from tools.agents.drivers import recorded_with
from tools.agents.record import CORPUS, SHAPES, record_shape

pytestmark = pytest.mark.agents

RECORDED = shape_folders(CORPUS)


def _roles(folder: Path) -> list[str]:
    first = first_resume(read_requests(folder))
    assert first is not None
    body = first["body"]
    history = body.get("messages", body.get("input", body.get("contents")))
    return [str(m.get("role", m.get("type"))) for m in history]


@pytest.mark.parametrize("recorded", RECORDED, ids=[f"{f.parent.name}/{f.name}" for f in RECORDED])
def test_recorded_outcome_still_holds(recorded: Path, tmp_path: Path) -> None:
    meta = json.loads((recorded / "shape.json").read_text())
    agent = recorded_with(meta["agent"], meta["provider"])
    if not agent.installed():
        pytest.skip(f"{agent.folder} is not installed in {agent.prefix}: run python -m tools.agents install")
    if agent.version != meta["version"]:
        pytest.skip(f"the corpus was recorded with {meta['version']}, the harness pins {agent.version}")
    folder = record_shape(agent, SHAPES[meta["shape"]], tmp_path)
    assert problems(folder) == []
    fresh = json.loads((folder / "shape.json").read_text())
    assert fresh["resume"]["outcome"] == meta["resume"]["outcome"]
    first_new = first_resume(read_requests(folder))
    first_old = first_resume(read_requests(recorded))
    assert first_new is not None and first_old is not None
    new_rule = verdict(fresh["provider"], first_new["body"])
    old_rule = verdict(meta["provider"], first_old["body"])
    assert (new_rule and new_rule.rule) == (old_rule and old_rule.rule)
    assert _roles(folder) == _roles(recorded)


# -- the write-back: the session suture repaired, resumed by the real agent ---------------------


def _repair_in_place(session: Path) -> None:
    """What a person does before resuming: ``suture repair --in-place`` on the session file."""
    done = subprocess.run(
        [sys.executable, "-m", "suture", "repair", "--in-place", str(session)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("recorded", RECORDED, ids=[f"{f.parent.name}/{f.name}" for f in RECORDED])
def test_the_session_suture_writes_back_is_resumed_and_accepted(recorded: Path, tmp_path: Path) -> None:
    """The shape crashed again, ``suture repair --in-place`` on its session, the real agent resumes
    it against the strict mock: the first request it sends is accepted and holds every message of
    the history suture repaired (the original's copy, kept beside it)."""
    meta = json.loads((recorded / "shape.json").read_text())
    agent = recorded_with(meta["agent"], meta["provider"])
    if not agent.installed():
        pytest.skip(f"{agent.folder} is not installed in {agent.prefix}: run python -m tools.agents install")
    originals: list[bytes] = []

    def repaired_in_place(session: Path) -> None:
        _repair_in_place(session)
        backup = session.with_name(session.name + ".bak")
        originals.append(backup.read_bytes() if backup.exists() else session.read_bytes())

    folder = record_shape(agent, SHAPES[meta["shape"]], tmp_path, before_resume=repaired_in_place)
    assert problems(folder) == []
    fresh = json.loads((folder / "shape.json").read_text())
    first = first_resume(read_requests(folder))
    assert first is not None
    assert fresh["resume"]["outcome"] == "accepted", fresh["resume"]
    [original] = originals
    transcript = load_bytes(original)
    expected = repair(transcript.messages).messages
    ids = write_back(original, transcript).ids  # the calls the file names otherwise than the repair
    sent = history_of(fresh["provider"], first["body"])
    resumed = load_bytes((folder / "session.jsonl").read_bytes())
    assert missing(expected, sent, sent_ids(resumed, as_sent(resumed), ids)) == []
