"""``suture keys``: every binding by the id a keymap names it by, with the settings file's keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.cli import one_error_line


def keys(tmp_path: Path, *args: str, config: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("SUTURE_CONFIG", None)
    if config is not None:
        env["SUTURE_CONFIG"] = config
    return subprocess.run(
        [sys.executable, "-m", "suture", "keys", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_every_binding_with_its_own_keys_where_there_is_no_settings_file(tmp_path: Path) -> None:
    proc = keys(tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"settings file: {tmp_path}/config/suture/config.toml (none there: every key is suture's own)"
    row = next(line for line in lines if line.startswith("app.next_change "))
    assert row.split()[1:3] == ["n", "Next"]
    assert any(line.startswith("sessions.open ") for line in lines)
    assert "*" not in proc.stdout


def test_the_settings_file_s_keys_marked_and_in_json(tmp_path: Path) -> None:
    config = tmp_path / "mine.toml"
    config.write_text('[keymap]\n"app.next_change" = "ctrl+n, ?"\n"app.nope" = "z"\n')
    proc = keys(tmp_path, config=str(config))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        f"settings file: {config} (2 bindings with keys other than suture's own)",  # (? taken from help)
        "  its keymap names app.nope, which no binding is called",
    ]
    row = next(line for line in proc.stdout.splitlines() if line.startswith("app.next_change "))
    assert "!ctrl+n, ?" in row  # (bound otherwise, and ? closes the help where it is open)
    assert row.endswith("(? does help.close where that has focus)")
    report = json.loads(keys(tmp_path, "--json", config=str(config)).stdout)
    assert report["settings"] == str(config) and report["read"] is True and report["unknown"] == ["app.nope"]
    first = report["bindings"][0]
    assert first == {
        "id": "app.next_change",
        "keys": ["ctrl+n", "?"],
        "own_keys": ["n"],
        "description": "Next change",
        "tooltip": "Jump to the next change",
        "shadowed": [{"key": "?", "by": "help.close"}],
    }


def test_a_settings_file_suture_cannot_use_is_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[keymap\n")
    line = one_error_line(keys(tmp_path, config=str(config)))
    assert f"{config}: not a TOML settings file" in line
    missing = one_error_line(keys(tmp_path, config=str(tmp_path / "missing.toml")))
    assert "no such settings file ($SUTURE_CONFIG names it)" in missing


def test_with_json_a_settings_file_suture_cannot_use_is_one_json_object_too(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[keymaps]\n")
    proc = keys(tmp_path, "--json", config=str(config))
    line = one_error_line(proc)
    assert json.loads(proc.stdout) == {"error": line.removeprefix("suture: error: "), "exit_code": 2}


def test_the_app_and_the_browser_refuse_a_settings_file_they_cannot_use_before_they_open(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[keymap]\n"app.next_change" = 3\n')
    env = {**os.environ, "SUTURE_CONFIG": str(config), "HOME": str(tmp_path)}
    sample = Path(__file__).resolve().parents[1] / "sample_sessions" / "chat" / "worked-example.json"
    for argv in ([str(sample)], ["sessions"], ["demo"]):
        proc = subprocess.run(
            [sys.executable, "-m", "suture", *argv], capture_output=True, text=True, env=env, timeout=120
        )
        line = one_error_line(proc)
        assert "keymap 'app.next_change': the keys are one string" in line, argv


def test_a_key_taken_from_another_binding_leaves_it_without(tmp_path: Path) -> None:
    config = tmp_path / "clash.toml"
    config.write_text('[keymap]\n"app.next_change" = "N"\n')
    rows = {b["id"]: b for b in json.loads(keys(tmp_path, "--json", config=str(config)).stdout)["bindings"]}
    assert rows["app.next_change"]["keys"] == ["N"]
    assert rows["app.previous_change"]["keys"] == [] and rows["app.previous_change"]["own_keys"] == ["N"]
    assert rows["detail.previous_change"]["keys"] == ["N"]  # (another place: the details' own N)
    line = next(
        x for x in keys(tmp_path, config=str(config)).stdout.splitlines() if x.startswith("app.previous_change")
    )
    assert "*(none)" in line


def test_a_key_a_widget_takes_from_an_app_binding_where_it_has_focus_is_marked(tmp_path: Path) -> None:
    config = tmp_path / "over.toml"
    config.write_text('[keymap]\n"view.down" = "x"\n')
    rows = {b["id"]: b for b in json.loads(keys(tmp_path, "--json", config=str(config)).stdout)["bindings"]}
    assert rows["app.next_problem"]["keys"] == ["x"]  # (kept: another place)
    assert rows["app.next_problem"]["shadowed"] == [{"key": "x", "by": "view.down"}]
    assert all(not b["shadowed"] for name, b in rows.items() if name != "app.next_problem")
    lines = keys(tmp_path, config=str(config)).stdout.splitlines()
    line = next(x for x in lines if x.startswith("app.next_problem"))
    assert " !x " in line and line.endswith("(x does view.down where that has focus)")
    assert lines[-1].startswith("! a key a widget's or dialog's binding has too, the settings file giving either")
    # Without a settings file nothing is marked.
    plain = json.loads(keys(tmp_path, "--json").stdout)["bindings"]
    assert all(b["shadowed"] == [] for b in plain)


def test_a_key_given_to_an_app_binding_that_a_widget_has_of_its_own_is_marked(tmp_path: Path) -> None:
    """j is the panes' and the lists' own down: given to the app's next problem, it still goes
    to them where they have focus."""
    config = tmp_path / "under.toml"
    config.write_text('[keymap]\n"app.next_problem" = "j"\n')
    rows = {b["id"]: b for b in json.loads(keys(tmp_path, "--json", config=str(config)).stdout)["bindings"]}
    taken = rows["app.next_problem"]["shadowed"]
    assert {"key": "j", "by": "view.down"} in taken and {"key": "j", "by": "changes.down"} in taken
    assert all(each["key"] == "j" for each in taken)
