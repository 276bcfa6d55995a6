"""Where a table's journal lives by default: the user's data directory."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def data_dir() -> Path:
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tablesim"


def default_journal_path(table_id: str) -> Path:
    return data_dir() / f"{table_id}.journal.sqlite"
