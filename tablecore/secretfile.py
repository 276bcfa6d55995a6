"""Reading a file that holds a secret (a token file, a signing key): it must
be a regular file only its owner may read (mode 0600), or it is refused in
one line naming it, before anything in it is used."""

from __future__ import annotations

import stat
from pathlib import Path

from tablecore.errors import InputError


def read_owner_only(path: str | Path, what: str, *, error: type[InputError] = InputError,
                    encoding: str = "utf-8") -> str:
    """The text of ``path``, ``what`` naming it in a refusal ("the token file")."""
    path = Path(path)
    try:
        st = path.stat()
        text = path.read_text(encoding=encoding)
    except FileNotFoundError:
        raise error(f"no such {what.removeprefix('the ')}", where=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read {what}: {getattr(exc, 'strerror', None) or exc}", where=str(path)) from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{what} is not a regular file", where=str(path))
    if st.st_mode & 0o077:
        raise error(f"{what} is open to others (mode {stat.S_IMODE(st.st_mode):04o}): chmod 600 it", where=str(path))
    return text
