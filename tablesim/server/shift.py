"""Dealers on duty at a served table: sign in and out at the console, and
who deals each round (``tablesim.journal.shifts`` names the records).

    POST /api/shift/sign-in    the operator holding the token signs in as the dealer on duty
                               (whoever was on duty is signed out first)
    POST /api/shift/sign-out   the dealer on duty signs out (the dealer, or a supervisor)

Both are operator records in the journal, as every operator action; the
console shows who is on duty (``on_duty`` in ``GET /api/table``).
"""

from __future__ import annotations

from typing import Any

from tablecore.errors import IllegalAction
from tablecore.wording import CORE_WORDS as W
from tablesim.journal.shifts import ROUND_DEALER, SIGN_IN, SIGN_OUT, dealer_of_actor, on_duty


class Shift:
    """Who is on duty (the table's thread only)."""

    def __init__(self) -> None:
        self.on_duty: dict[str, Any] | None = None

    def recover(self, journal, table_id: str) -> None:
        self.on_duty = on_duty(journal, table_id) if journal is not None else None

    def sign_in(self, table, journal, op) -> dict[str, Any]:
        if journal is None:
            raise IllegalAction("sign in", W("refusal.shift_no_journal"))
        if self.on_duty is not None:
            if self.on_duty["dealer"] == op.name:
                return self.on_duty
            self._append(table, journal, SIGN_OUT, self.on_duty, op.actor)
        rec = self._append(table, journal, SIGN_IN, {"dealer": op.name, "role": op.role}, op.actor)
        self.on_duty = {"dealer": op.name, "role": op.role, "since": rec.ts}
        return self.on_duty

    def sign_out(self, table, journal, op) -> None:
        duty = self.on_duty
        if duty is None:
            raise IllegalAction("sign out", W("refusal.nobody_on_duty"))
        if duty["dealer"] != op.name and op.role != "supervisor":
            raise IllegalAction("sign out", W("refusal.on_duty_sign_out", dealer=duty["dealer"]))
        self._append(table, journal, SIGN_OUT, duty, op.actor)
        self.on_duty = None

    def round_opened(self, table, journal, actor: str | None) -> None:
        """A round opened: journal who deals it (the dealer on duty, else the dealer who opened it)."""
        if journal is None:
            return
        dealer = self.on_duty["dealer"] if self.on_duty is not None else dealer_of_actor(actor)
        journal.append(table.table_id, table.round_id, "operator", ROUND_DEALER, {"dealer": dealer}, actor or "")

    @staticmethod
    def _append(table, journal, name: str, duty: dict[str, Any], actor: str):
        return journal.append(table.table_id, table.round_id, "operator", name,
                              {"dealer": duty.get("dealer"), "role": duty.get("role")}, actor)
