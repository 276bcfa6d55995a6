"""The Wheel of Fortune on the dealer console: symbols to bet on, the wheel's
segments, and (mock sensor) a "spin" button standing in for the dealer's hand."""

from __future__ import annotations

from typing import Any

from tablecore.errors import IllegalAction
from tablecore.plainjson import jsonable
from tablesim.games.wheel.machine import WORDS as W
from tablesim.games.wheel.machine import AWAITING_SPIN, S
from tablesim.games.console import Action, GameAdapter


class WheelConsole(GameAdapter):
    title = "Wheel of Fortune"
    DELAYS = {"SpinStarted": 0.6, "Revolution": 0.5, "SpinResult": 1.0, "InvalidSpin": 1.0}

    def game_actions(self) -> list[Action]:
        t = self.table
        acts = []
        if self.rig is not None:
            acts.append(Action("spin", "Spin", "dealer", lambda b: self._spin(),
                               lambda: t.state is S.BETS_CLOSED and not self.rig.spin_requested, journaled=False))
        acts.append(Action("no_spin", "No spin", "dealer", lambda b: self._no_spin(),
                           lambda: t.can("declare_no_spin")))
        return acts

    def _spin(self) -> None:
        t = self.table
        if t.state is not S.BETS_CLOSED:
            raise IllegalAction("spin", W("wheel.refusal.spin_after_close", state=t.state.value))
        if self.rig.spin_requested:
            raise IllegalAction("spin", W("wheel.refusal.already_spinning"))
        self.rig.spin_requested = True

    def _no_spin(self) -> None:
        self.table.declare_no_spin("dealer")
        if self.rig is not None:
            # The mock sensor forgets the spin that was called off.
            self.table.sensor.queue.clear()
            self.rig.spin_requested = False

    def positions(self) -> list[str]:
        return []

    def layout(self) -> dict[str, Any]:
        p = self.table.profile
        return {
            "kind": "wheel",
            "positions": [],
            "bets": list(p.spots),
            "bet_labels": {s: s for s in p.spots},
            "symbols": [{"name": s.name, "segments": s.segments, "pays": jsonable(s.pays)} for s in p.symbols],
            "wheel": list(self.table.layout),
            "min_turns": p.min_turns,
            "profile": p.name,
        }

    def view(self) -> dict[str, Any]:
        t = self.table
        return {
            "no_spins": t.no_spins,
            "spins": jsonable(t.spins),
            "revolutions": t.revolutions,
            "direction": t.direction,
            "segment": t.segment,
            "symbol": t.symbol,
            "spinning": t.state is S.SPINNING,
            "spin_requested": bool(self.rig and self.rig.spin_requested),
        }

    def waiting_for(self) -> str | None:
        return "wheel" if self.table.state is S.SPINNING else None

    def may_pump(self) -> bool:
        if self.table.state in AWAITING_SPIN:
            return bool(self.rig and self.rig.spin_requested)
        return True

    def on_event(self, kind: str, data: dict) -> None:
        if self.rig is not None and kind in ("spin_result", "no_spin", "void", "result"):
            self.rig.spin_requested = False
