"""pydantic's validation errors as the one readable reason a client reads
(``detail`` of a 422): ``where: what``, joined by "; "."""

from __future__ import annotations

import json
from typing import Any

from tablecore.money import AMOUNT_FORM

NOT_JSON = "the body is not valid JSON"
TOO_DEEP = "the body is nested too deeply"
#: the same as a 422's ``say``, for a page in another language
NOT_JSON_SAID = [{"where": "", "id": "validation.json_invalid", "args": {}}]
TOO_DEEP_SAID = [{"where": "", "id": "validation.too_deep", "args": {}}]


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
#: a part of a reason: where, its English words, and its message id (``validation.*``) and values
Part = tuple[str, str, str, dict[str, str]]


def readable(errors: Any, prefix: str = "") -> str:
    """pydantic's list of errors as one line: ``where: what`` for each, joined
    by "; ". A field that takes a choice of types (``amount.str``,
    ``amount.int``) reads as one reason: what the field takes."""
    return "; ".join(f"{where}: {what}" if where else what for where, what, _, _ in parts(errors, prefix)) \
        or "invalid request"


def said(errors: Any, prefix: str = "") -> list[dict[str, Any]]:
    """The same reason as messages for a page in another language: for each
    part ``{"where", "id", "args"}`` (``validation.<pydantic's type>`` and
    its values; the field names stay as the API spells them)."""
    return [{"where": where, "id": msg_id, "args": args} for where, _, msg_id, args in parts(errors, prefix)] \
        or [{"where": "", "id": "validation.invalid", "args": {}}]


def parts(errors: Any, prefix: str = "") -> list[Part]:
    """The first five parts of a reason (see :func:`readable`), one per field."""
    out: dict[str, Part] = {}
    choices: dict[str, list[str]] = {}
    for error in list(errors)[:10]:
        loc = [str(p) for p in error.get("loc", ()) if p != "body"]
        kind = str(error.get("type", "invalid"))
        message = str(error.get("msg", "invalid"))
        if kind == "json_invalid":
            loc, message = [], NOT_JSON
        if loc and loc[-1] in _TYPE_WORDS and kind.endswith("_type"):
            where = (prefix + ".".join(loc[:-1])).rstrip(".")
            choices.setdefault(where, []).append(loc[-1])
            out[where] = (where, "", "", {})
            continue
        where = (prefix + ".".join(loc)).rstrip(".")
        args = {str(k): str(v) for k, v in (error.get("ctx") or {}).items() if k != "error"}
        out.setdefault(where, (where, message, f"validation.{kind}", args))
    for where, members in choices.items():
        words = [_TYPE_WORDS[m] for m in members]
        text = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
        msg_id = "validation.choice." + "_".join(members)
        if where.rsplit(".", 1)[-1] == "amount":
            # the bus and the API word a bad amount alike (tablecore.money)
            text, msg_id = AMOUNT_FORM, "validation.amount_form"
        out[where] = (where, text, msg_id, {})
    return list(out.values())[:5]
