"""The live tier: the real agents, end to end, against the strict mock (``pytest -m agents``).

Each test records one shape into a temporary folder and asserts that the outcome recorded in the
committed corpus still holds: same accepted/rejected verdict, same rule, and the same kinds of
messages sent on resume. Not run by default (pyproject deselects the ``agents`` marker); skipped
when the agent is not installed (``python -m tools.agents install``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.agents.corpus import first_resume, problems, read_requests, shape_folders, verdict
from tools.agents.drivers import AGENTS
from tools.agents.record import CORPUS, SHAPES, record_shape

pytestmark = pytest.mark.agents

RECORDED = shape_folders(CORPUS)


def _roles(folder: Path) -> list[str]:
    first = first_resume(read_requests(folder))
    assert first is not None
    history = first["body"].get("messages", first["body"].get("input"))
    return [str(m.get("role", m.get("type"))) for m in history]


@pytest.mark.parametrize("recorded", RECORDED, ids=[f"{f.parent.name}/{f.name}" for f in RECORDED])
def test_recorded_outcome_still_holds(recorded: Path, tmp_path: Path) -> None:
    meta = json.loads((recorded / "shape.json").read_text())
    agent = AGENTS[meta["agent"]]
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
