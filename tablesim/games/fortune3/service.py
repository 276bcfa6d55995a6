"""Fortune 3 Card Poker, Art. 11(4): 須另行更換洗牌機或改用派牌盒.

A shuffler failure while dealing voids the round, and a new shuffler or the
shoe must be used: the table deals from that shuffler again only once a
supervisor confirms it was replaced (``confirm_shuffler``), or deals from
the shoe (``set_dealing``). Until then no round opens while the table deals
by shuffler. Both the failure and the confirmation are journaled events,
and ``shuffler_out_of_service`` is part of the table's state.

A mixin of ``Fortune3Table``.
"""

from __future__ import annotations

from tablesim.engine.actions import action
from tablesim.engine.machine import Refused
from tablesim.games.fortune3.inputs import ConfirmShuffler
from tablesim.games.fortune3.records import ShufflerOutOfService, ShufflerReplaced
from tablesim.games.fortune3.words import WORDS as W

#: the void reasons that put the shuffler out of service
SHUFFLER_FAILURE = ("shuffler_fault",)


class ShufflerService:
    #: the failed shuffler, while out of service: {"round": ..., "reason": ...}; else None
    shuffler_out_of_service: dict | None = None

    #: the events that set and clear it: a restart gives the table back the last one's condition
    STANDING_EVENTS = ("shuffler_out_of_service", "shuffler_replaced")

    def restore_standing_event(self, name: str, data: dict) -> None:
        """After a restart the failed shuffler is still out of service until
        a supervisor's confirmation was journaled (a restart replaces nothing)."""
        if name == "shuffler_out_of_service":
            self.shuffler_out_of_service = {"round": data.get("round"), "reason": data.get("reason")}
            self.log.info("shuffler_out_of_service_restored", failed_in=data.get("round"))
        else:
            self.shuffler_out_of_service = None

    def note_void(self, reason: str) -> None:
        if reason in SHUFFLER_FAILURE and self.dealing == "shuffler":
            self.shuffler_out_of_service = {"round": self.round_id, "reason": reason}
            self.emit(ShufflerOutOfService(round=self.round_id, reason=reason,
                      text="the shuffler failed while dealing: a supervisor confirms it was replaced "
                           "or switches the table to the shoe (Art. 11(4))"))

    def check_shuffler(self, round_id: str | None = None) -> None:
        out = self.shuffler_out_of_service
        if out is not None and self.dealing == "shuffler":
            raise Refused(W("fortune3.refusal.shuffler_failed", round=out["round"]))

    def check_confirmation(self, *, actor: str | None = None, why: str = "-") -> None:
        if self.shuffler_out_of_service is None:
            raise Refused(W("fortune3.refusal.no_shuffler_failure"))
        if not why.strip():
            raise Refused(W("fortune3.refusal.shuffler_how"))

    CHECKS = {"open_round": (check_shuffler,), "confirm_shuffler": (check_confirmation,)}

    @action(ConfirmShuffler)
    def confirm_shuffler(self, *, actor: str, why: str) -> None:
        """A supervisor confirms the failed shuffler was replaced (Art. 11(4)):
        the table deals from the shuffler again. Between rounds; journaled
        with who and why."""
        failed = self.shuffler_out_of_service
        self.shuffler_out_of_service = None
        self.emit(ShufflerReplaced(failed_in=failed["round"], actor=actor, why=why))
        self.log.info("shuffler_replaced", failed_in=failed["round"], actor=actor)
