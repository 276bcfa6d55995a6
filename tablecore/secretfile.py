"""Reading a file that holds a secret (a token file, a signing key): it must
be a regular file only its owner may read (mode 0600), or it is refused in
one line naming it, before anything in it is used."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tablecore.errors import InputError


def read_owner_only(path: str | Path, what: str, *, error: type[InputError] = InputError,
                    encoding: str = "utf-8") -> str:
    """The text of ``path``, ``what`` naming it in a refusal ("the token file").

    The file is opened without blocking and checked on what was opened (a
    FIFO or a device is refused, never waited on or read; a file swapped
    after a check cannot slip in), before a byte of it is read."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"no such {what.removeprefix('the ')}", where=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", where=str(path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{what} is not a regular file", where=str(path))
        if st.st_mode & 0o077:
            raise error(f"{what} is open to others (mode {stat.S_IMODE(st.st_mode):04o}): chmod 600 it",
                        where=str(path))
        with os.fdopen(fd, "rb", closefd=False) as fh:
            raw = fh.read()
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", where=str(path)) from None
    finally:
        os.close(fd)
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise error(f"cannot read {what}: {exc}", where=str(path)) from None
