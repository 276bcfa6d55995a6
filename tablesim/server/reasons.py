"""pydantic's validation errors as the one readable reason a client reads
(``detail`` of a 422): ``where: what``, joined by "; "."""

from __future__ import annotations

import json
from typing import Any

from tablecore.money import AMOUNT_FORM

NOT_JSON = "the body is not valid JSON"
TOO_DEEP = "the body is nested too deeply"


class TooDeep(ValueError):
    """A JSON body nested deeper than the parser goes (it would raise RecursionError)."""


def loads(raw: bytes | str) -> Any:
    """``json.loads``, with a body nested too deeply for it refused as bad JSON
    (``TooDeep``, a ValueError) instead of a RecursionError (a 500)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise TooDeep(TOO_DEEP) from None
#: what a client reads for each member of a choice of types (pydantic names the member in the location)
_TYPE_WORDS = {"str": "a text", "int": "a whole number", "none": "nothing"}


def readable(errors: Any, prefix: str = "") -> str:
    """pydantic's list of errors as one line: ``where: what`` for each, joined
    by "; ". A field that takes a choice of types (``amount.str``,
    ``amount.int``) reads as one reason: what the field takes."""
    parts: dict[str, str] = {}
    choices: dict[str, list[str]] = {}
    for error in list(errors)[:10]:
        loc = [str(p) for p in error.get("loc", ()) if p != "body"]
        message = str(error.get("msg", "invalid"))
        if error.get("type") == "json_invalid":
            loc, message = [], NOT_JSON
        if loc and loc[-1] in _TYPE_WORDS and error.get("type", "").endswith("_type"):
            where = (prefix + ".".join(loc[:-1])).rstrip(".")
            choices.setdefault(where, []).append(_TYPE_WORDS[loc[-1]])
            parts[where] = ""
            continue
        where = (prefix + ".".join(loc)).rstrip(".")
        parts.setdefault(where, message)
    for where, words in choices.items():
        parts[where] = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
        if where.rsplit(".", 1)[-1] == "amount":
            parts[where] = AMOUNT_FORM  # the bus and the API word a bad amount alike (tablecore.money)
    return "; ".join(f"{where}: {what}" if where else what for where, what in list(parts.items())[:5]) \
        or "invalid request"
