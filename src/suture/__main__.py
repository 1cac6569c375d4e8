from suture.cli import entry

entry()
