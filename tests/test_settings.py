"""The settings file (suture.settings): where it is looked for, what it may hold, and the one line
of error a file suture cannot use gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from suture.io import InputError
from suture.settings import Settings, read_settings, settings_path


def test_looked_for_where_the_environment_says() -> None:
    assert settings_path({"SUTURE_CONFIG": "/x/s.toml", "XDG_CONFIG_HOME": "/c"}) == (Path("/x/s.toml"), True)
    assert settings_path({"XDG_CONFIG_HOME": "/c", "HOME": "/h"}) == (Path("/c/suture/config.toml"), False)
    assert settings_path({"HOME": "/h"}) == (Path("/h/.config/suture/config.toml"), False)


def test_no_file_is_no_settings_unless_one_is_named(tmp_path: Path) -> None:
    assert read_settings({"HOME": str(tmp_path)}) == Settings()
    with pytest.raises(InputError, match=r"no such settings file \(\$SUTURE_CONFIG names it\)"):
        read_settings({"SUTURE_CONFIG": str(tmp_path / "missing.toml")})


def test_a_keymap_read_with_its_keys_joined(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[keymap]\n"app.next_change" = "n, ctrl+n"\n"view.down" = "j"\n')
    settings = read_settings({"SUTURE_CONFIG": str(path)})
    assert settings.keymap == {"app.next_change": "n,ctrl+n", "view.down": "j"}
    assert settings.path == path


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[keymap\n", r"config.toml: not a TOML settings file: .*line 1"),
        ("[keymaps]\n", r"unknown setting 'keymaps' \(suture reads \[keymap\]\)"),
        ("keymap = 3\n", r"\[keymap\] is a table of binding ids and keys"),
        ('[keymap]\n"app.next_change" = 3\n', r"keymap 'app.next_change': the keys are one string"),
        ('[keymap]\n"app.next_change" = "ctrl n"\n', r"keys are named one by one, with commas"),
        ('[keymap]\n"app.next_change" = "n,,m"\n', r"keys are named one by one"),
    ],
)
def test_a_file_suture_cannot_use_is_one_line_of_error(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=said) as raised:
        read_settings({"SUTURE_CONFIG": str(path)})
    assert "\n" not in str(raised.value)


def test_a_folder_or_bytes_that_are_not_text(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a folder, not a settings file"):
        read_settings({"SUTURE_CONFIG": str(tmp_path)})
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xff\xfe[keymap]")
    with pytest.raises(InputError, match="not UTF-8 text"):
        read_settings({"SUTURE_CONFIG": str(path)})


def test_an_id_written_without_quotes_is_the_id_it_spells(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[keymap]\napp.next_change = "ctrl+n"\n"view.down" = "j"\n')
    assert read_settings({"SUTURE_CONFIG": str(path)}).keymap == {"app.next_change": "ctrl+n", "view.down": "j"}
