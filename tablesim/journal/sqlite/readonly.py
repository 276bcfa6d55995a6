"""Opening a journal for reading only, leaving no file behind.

SQLite in WAL mode makes even a ``mode=ro`` connection create ``-wal`` and
``-shm`` files. So a reader picks how to open by what it finds:

- a table is writing the journal (its lock is held): ``mode=ro``; the
  ``-wal``/``-shm`` files are the writer's and go when it closes;
- nobody writes and there is no ``-wal`` file: ``immutable=1`` (no locking,
  no side files: the file is read as it is);
- nobody writes but a ``-wal`` file is left (a table was killed): its last
  committed transactions live there, so the reader works on a private copy
  of the pair in a temporary directory, removed on close.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from tablesim.journal.lock import writer_pid


class ReadOnly:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.tmp: tempfile.TemporaryDirectory | None = None
        wal = Path(f"{self.path}-wal")
        if writer_pid(self.path) is not None:
            self.mode = "shared"
            uri = self.path.resolve().as_uri() + "?mode=ro"
        elif wal.exists() and wal.stat().st_size > 0:
            self.mode = "copy"
            self.tmp = tempfile.TemporaryDirectory(prefix="tablesim-read-")
            copy = Path(self.tmp.name) / "journal.sqlite"
            shutil.copyfile(self.path, copy)
            shutil.copyfile(wal, Path(f"{copy}-wal"))
            uri = copy.as_uri() + "?mode=ro"
        else:
            self.mode = "immutable"
            uri = self.path.resolve().as_uri() + "?immutable=1"
        try:
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        except BaseException:
            self.cleanup()
            raise

    def close(self) -> None:
        try:
            self.db.close()
        finally:
            self.cleanup()

    def cleanup(self) -> None:
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None
