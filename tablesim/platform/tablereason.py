"""The table's own reason for a refusal, passed on to the player: a table
answers a refused bet with its English ``reason`` and, beside it, ``say``
(``{"id", "args"}``: the message id and values of the table's catalogs);
the player's answer carries it as ``reason`` beside its ``message``, so the
player's page words it in the player's language."""

from __future__ import annotations

import re
from typing import Any

_ID = re.compile(r"[a-z0-9_]+(\.[a-z0-9_]+)+", re.ASCII)
#: a table's answer is trusted but bounded: a reason's values are short texts
MAX_ARGS = 20
MAX_ARG = 400


def table_reason(result: Any) -> dict[str, Any]:
    """``{"reason": {"id", "args"}}`` from a table's result, or ``{}`` when it
    carries none (or one not shaped as a message: then only ``message`` tells)."""
    said = result.get("say") if isinstance(result, dict) else None
    if not isinstance(said, dict) or not isinstance(said.get("id"), str) or not _ID.fullmatch(said["id"]):
        return {}
    args = said.get("args") or {}
    if not isinstance(args, dict) or len(args) > MAX_ARGS:
        return {}
    if not all(isinstance(k, str) and isinstance(v, str) and len(v) <= MAX_ARG for k, v in args.items()):
        return {}
    return {"reason": {"id": said["id"], "args": dict(args)}}
