"""A text that also carries its message id and values: a refusal (or any
text the table makes) reads as its English words everywhere it is a string,
and a page that has catalogs shows it in its own language from the id.

The English words come from the English catalog (``en.po``) of the folder
whose words they are: ``Words(folder)("refusal.no_bet", bet="ante",
position="4")`` is the ``Said`` "no ante bet on 4", so a refusal's English is
written once, in the catalog, beside its other languages. The core's own
refusals, incidents and device texts are in :data:`REASONS` (this package's
``i18n`` folder); a game's in its game's."""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

#: the core's refusals, incidents and device texts (en.po, pt.po, zh-Hant.po)
REASONS = Path(__file__).resolve().parent / "i18n"
#: the device fault codes (docs/protocol.md) the catalogs name (``fault.<code>``); 301 is
#: also the studio's stalled-link incident, named by its own id, so an incident is never
#: worded as a fault by that code
#: (209, 409, 509: a device's own fault that its configuration's fault map does not name)
DEVICE_FAULTS = frozenset({201, 202, 203, 204, 205, 209, 302, 303, 310, 320, 340, 401, 402, 409, 501, 502, 503, 506,
                           509})
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
log = logging.getLogger("tablecore")


class Said(str):
    """``Said("no ante bet on 4", "refusal.no_bet", bet="ante", position="4")``."""

    msg_id: str
    params: dict[str, Any]

    def __new__(cls, text: str, msg_id: str = "", /, **params: Any) -> "Said":
        said = super().__new__(cls, text)
        said.msg_id = msg_id
        said.params = params
        return said

    def __reduce__(self):
        # copied or sent to another process, it keeps its id and values
        return (_said, (str(self), self.msg_id, self.params))

    @property
    def args(self) -> dict[str, str]:
        """The values of its placeholders, as the texts they read as."""
        return {k: str(v) for k, v in self.params.items()}

    def message(self) -> dict[str, Any] | None:
        """``{"id", "args"}`` for a page (or another process), None without an id."""
        if not self.msg_id:
            return None
        return {"id": self.msg_id, "args": self.args}

    def prefixed(self, head: str) -> "Said":
        """The same message after ``head`` (``"ann: "``), for whom it concerns;
        the id and values stay, the page writes its own ``who``."""
        return Said(head + str(self), self.msg_id, **self.params)


def _said(text: str, msg_id: str, params: dict[str, Any]) -> Said:
    return Said(text, msg_id, **params)


def message_of(text: Any) -> dict[str, Any] | None:
    """A text's ``{"id", "args"}`` if it carries one, else None."""
    return text.message() if isinstance(text, Said) else None


def fill(text: str, args: dict[str, Any]) -> str:
    """``text`` with its ``{name}`` placeholders filled (one not given stays as written)."""
    parts = _parts(text)
    if len(parts) == 1:
        return text
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        name = parts[i]
        out.append(str(args[name]) if name in args else "{" + name + "}")
        out.append(parts[i + 1])
    return "".join(out)


@lru_cache(maxsize=1024)
def _parts(text: str) -> tuple[str, ...]:
    """A text split at its placeholders: literal, name, literal, ... (once per text)."""
    return tuple(_PLACEHOLDER.split(text))


@lru_cache(maxsize=16)
def english(folder: Path) -> dict[str, str]:
    """The English catalog of a folder: id -> text (read once per process)."""
    from babel.messages.pofile import read_po  # (only where words are made)

    with open(folder / "en.po", "rb") as f:
        cat = read_po(f, abort_invalid=True)
    return {m.id: m.string for m in cat if m.id and isinstance(m.id, str) and m.string}


def device_text(code: int, text: Any) -> dict[str, Any] | None:
    """An incident's or a fault's text as a message: its own id if it has
    one, else the device fault's by its code (``fault.201``, the device's own
    words as ``text``: a page names the fault in its language beside them)."""
    said = message_of(text)
    if said is not None:
        return said
    if code in DEVICE_FAULTS and isinstance(text, str):
        return {"id": f"fault.{code}", "args": {"text": text}}
    return None


class Words:
    """The English words of one catalog folder, made into ``Said`` texts:
    ``WORDS("refusal.no_bet", bet="ante", position="4")``."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder).resolve()
        self._texts: dict[str, str] | None = None  # (read at the first word: a refusal on the bet path is one lookup)

    def __call__(self, msg_id: str, /, **args: Any) -> Said:
        texts = self._texts
        if texts is None:
            texts = self._texts = english(self.folder)
        text = texts.get(msg_id)
        if text is None:  # a bug (the catalog tests walk every id the code uses); never a crash at the table
            log.error("no English text for message id %r in %s", msg_id, self.folder)
            text = msg_id + "".join(f" {k}={v}" for k, v in args.items())
        return Said(fill(text, args), msg_id, **args)

    def text(self, msg_id: str) -> str:
        """The English text of ``msg_id`` as written (its placeholders unfilled)."""
        return english(self.folder)[msg_id]  # (as the catalog says it)


#: the core's words (the engine's, the server's, the drivers' texts)
CORE_WORDS = Words(REASONS)
