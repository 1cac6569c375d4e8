"""``python -m suture``. Guarded: a process pool's workers import the main module again, and
must not run the command a second time."""

from suture.cli import entry

if __name__ == "__main__":
    entry()
