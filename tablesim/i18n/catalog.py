"""Message catalogs: one gettext ``.po`` file per language in a folder
(``en.po``, ``pt.po``, ``zh-Hant.po``), read with Babel's ``read_po``; the
core's folder first, then each game's (its own words under its own ids)."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping

from babel.messages.pofile import read_po

from tablecore.wording import REASONS
from tablesim.i18n.languages import LANGUAGES

#: the core's catalogs: the console's, the board's and the floor's own words
CORE = Path(str(resources.files("tablesim.i18n") / "locales"))
#: every folder of the core's words: the pages' and the texts the table makes
#: (its refusals, incidents and device texts, in the shared core's own folder)
CORE_FOLDERS = (CORE, REASONS)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class CatalogError(ValueError):
    """A catalog that cannot be read, or two folders giving the same id."""


def read_catalog(path: Path) -> dict[str, str]:
    """Every translated message of one ``.po`` file: id -> text (a message
    without a translation is left out, so a test sees it missing). Read once
    per version of the file (a catalog edited on disk is read again)."""
    try:
        st = Path(path).stat()
    except OSError as exc:
        raise CatalogError(f"{path}: {exc.strerror}") from None
    return dict(_read(Path(path), st.st_mtime_ns, st.st_size))


@lru_cache(maxsize=64)
def _read(path: Path, mtime_ns: int, size: int) -> dict[str, str]:
    try:
        with open(path, "rb") as f:
            cat = read_po(f, abort_invalid=True)
    except Exception as exc:  # Babel's own errors name no file
        raise CatalogError(f"{path}: {exc}") from None
    return {m.id: m.string for m in cat if m.id and isinstance(m.id, str) and m.string}


def merged(lang: str, folders: Iterable[Path]) -> dict[str, str]:
    """The messages of ``lang`` from each folder that has a catalog for it;
    an id given by two folders is an error (a game never overrides the core)."""
    if lang not in LANGUAGES:
        raise CatalogError(f"unknown language {lang!r} (languages: {', '.join(LANGUAGES)})")
    out: dict[str, str] = {}
    for folder in folders:
        path = Path(folder) / f"{lang}.po"
        if not path.is_file():
            continue
        cat = read_catalog(path)
        twice = sorted(set(cat) & set(out))
        if twice:
            raise CatalogError(f"{path}: ids already given: {', '.join(twice[:5])}")
        out.update(cat)
    return out


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a message."""
    return set(_PLACEHOLDER.findall(text))


def say(messages: Mapping[str, str], msg_id: str, params: Mapping[str, Any] | None = None) -> str:
    """A message with its placeholders filled; an unknown id reads as itself,
    a placeholder without a value stays as written."""
    text = messages.get(msg_id, msg_id)
    values = {k: str(v) for k, v in (params or {}).items()}
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)
