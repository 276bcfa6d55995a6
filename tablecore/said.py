"""A text that also carries its message id and values: a refusal (or any
text the table makes) reads as its English words everywhere it is a string,
and a page that has catalogs shows it in its own language from the id."""

from __future__ import annotations

from typing import Any


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

    def message(self) -> dict[str, Any] | None:
        """``{"id", "params"}`` for a page, None without an id."""
        if not self.msg_id:
            return None
        return {"id": self.msg_id, "params": {k: str(v) for k, v in self.params.items()}}


def _said(text: str, msg_id: str, params: dict[str, Any]) -> Said:
    return Said(text, msg_id, **params)
