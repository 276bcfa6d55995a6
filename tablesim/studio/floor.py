"""The floor's picture, built from nothing but the tables' records.

Everything here is derived from the generic fields every game's records
carry: ``state`` events (the round's state), ``bet``/``bet_withdrawn``
events (position, bet, amount), ``result`` events (the game's name, status,
per-position results by bet, net, stakes at risk),
``incident``/``incident_resolved``, ``link`` and ``fault``/``fault_cleared``
events. No game is named in this
code: a new game's tables show up with their own figures.

Figures, per table, per game, per bet type and for the floor:

- rounds (settled, void), bets (stakes at risk in settled rounds) and the
  amount wagered on them: the stakes the round's ``result`` records per
  position and stake name (the bets placed, and any stake made during the
  round, such as a play made by a decision rather than a bet); for a
  result that does not record them (journals and streams written before
  it did), the stakes the round's ``bet`` events placed, as then;
- paid: what players won (positive results), and returned stakes are not
  counted (a void returns every bet: nothing was at risk);
- house result: minus the players' net; hold % = house result / wagered.

A result key that is itself a stake at its position (a play, where the
result records it) is counted under its own name; a key that has no stake
of its own (e.g. a bonus that rides on an ante, or a play in a result that
does not record its stakes) is counted under the stake it settles with
(``tablesim.journal.invariants.SETTLED_BY``).

A table is on the floor from the first thing heard of it: its first record
in the stream, or its first studio-link status message (a table whose
records cannot reach the stream, e.g. a full stream or a diverged link, is
exactly the one a floor supervisor must see). Until its first record it
shows with its link and no figures, and it counts in no figure (the
figures, ``tables`` included, are the stream's: ``studio report`` shows
the same).

Only records their table signed reach this picture (``tablesim.studio.signaturecheck``
checks each against the table's registered key). Each table's records must follow on one another: a record whose seq is not
the next one is a gap (or a duplicate), one whose link does not name the
previous record's hash does not chain. Either raises an alert and is left
out of the picture and the figures: a record forged on the bus, or stored
twice, never counts, and the table's own next record (which chains onto its
last good one) goes on counting.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tablecore import betbatch
from tablecore.money import ZERO, fmt
from tablesim.journal.invariants import SETTLED_BY
from tablesim.journal.shifts import DUTY_RECORDS, NOBODY, ROUND_DEALER, SIGN_IN, Shifts, dealer_of_actor
from tablesim.studio import totals
from tablesim.studio.wire import WireRecord

#: results kept per table for the floor page
LAST_RESULTS = 10
#: alerts kept for the floor page
ALERTS_KEPT = 200


@dataclass
class Figures:
    rounds: int = 0
    void: int = 0
    bets: int = 0
    wagered: Decimal = ZERO
    paid: Decimal = ZERO
    house: Decimal = ZERO

    def add(self, other: "Figures") -> None:
        self.rounds += other.rounds
        self.void += other.void
        self.bets += other.bets
        self.wagered += other.wagered
        self.paid += other.paid
        self.house += other.house

    def as_json(self) -> dict[str, Any]:
        hold = None if not self.wagered else fmt((self.house * 100 / self.wagered).quantize(Decimal("0.01")))
        return {"rounds": self.rounds, "void": self.void, "bets": self.bets, "wagered": fmt(self.wagered),
                "paid": fmt(self.paid), "house_result": fmt(self.house), "hold_pct": hold}


@dataclass
class TableView:
    table_id: str
    game: str | None = None
    state: str | None = None
    round_id: str | None = None
    seq: int = 0
    last_hash: str | None = None
    last_ts: str | None = None
    incidents: dict[str, dict] = field(default_factory=dict)
    links: dict[str, bool] = field(default_factory=dict)
    faults: dict[str, dict] = field(default_factory=dict)
    results: deque = field(default_factory=lambda: deque(maxlen=LAST_RESULTS))
    figures: Figures = field(default_factory=Figures)
    by_bet: dict[str, Figures] = field(default_factory=dict)
    #: the open round's accepted stakes: (position, bet) -> amount
    book: dict[tuple[str, str], Decimal] = field(default_factory=dict)
    alerts: int = 0
    link: dict | None = None  # the table's last studio-link status message (live, not from the stream)
    #: when the table sent the status message shown (its signed ``sent``, ns): an
    #: older one, a genuine status recorded and played back, is not taken
    status_sent: int = 0

    def takes_status(self, sent: object) -> bool:
        """Whether a status the table signed with ``sent`` is newer than the
        one shown. One without ``sent`` (a table of an earlier release) only
        while none with it has come."""
        if type(sent) is not int:
            return sent is None and not self.status_sent
        return sent > self.status_sent
    dealer: str | None = None  # the dealer signed in (sign_in / sign_out records)
    round_dealer: str | None = None  # who deals the open round (its round_dealer record, else who opened it)
    round_incidents: int = 0  # incidents raised since the round opened

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id, "game": self.game, "state": self.state, "round_id": self.round_id,
            "seq": self.seq, "last_ts": self.last_ts, "open_incidents": list(self.incidents.values()),
            "devices": {"links": self.links, "faults": list(self.faults.values()),
                        "ok": all(self.links.values()) and not self.faults},
            "studio_link": self.link, "last_results": list(self.results)[::-1],
            "figures": self.figures.as_json(), "by_bet": {b: f.as_json() for b, f in sorted(self.by_bet.items())},
            "alerts": self.alerts, "on_duty": self.dealer,
        }


#: what the figures are grouped by (``studio report --by``)
GROUPINGS = ("shift", "day", "dealer")


@dataclass
class Grouped:
    """One group's figures at one table (a shift, a day, a dealer), incidents too."""

    figures: Figures = field(default_factory=Figures)
    incidents: int = 0

    def add(self, other: "Grouped") -> None:
        self.figures.add(other.figures)
        self.incidents += other.incidents

    def as_json(self) -> dict[str, Any]:
        return {**self.figures.as_json(), "incidents": self.incidents}


class Floor:
    def __init__(self, shifts: Shifts | None = None) -> None:
        self.shifts = shifts if shifts is not None else Shifts.parse()
        #: (grouping, group, table id) -> that group's figures at that table
        self.groups: dict[tuple[str, str, str], Grouped] = {}
        self.tables: dict[str, TableView] = {}
        self.alerts: deque = deque(maxlen=ALERTS_KEPT)
        self.records = 0
        self.stream_seq = 0
        #: stream messages handed again by the consumer (already taken once: left out without an alert)
        self.redelivered = 0
        #: messages left out because their table did not sign them, by the table their subject names
        self.rejected: dict[str, int] = {}

    def apply(self, rec: WireRecord, stream_seq: int = 0) -> None:
        self.records += 1
        self.stream_seq = max(self.stream_seq, stream_seq)
        t = self.heard(rec.table_id)
        if not self._chains(t, rec):
            return  # alerted, and not in the table's picture or figures
        try:
            if rec.round_id:
                t.round_id = rec.round_id
            if rec.kind == "input" and rec.name == "open_round":
                t.book = {}
                t.incidents = {}
                t.round_incidents = 0
                t.round_dealer = t.dealer or dealer_of_actor(rec.actor)
            if rec.kind == "operator":
                self._operator(t, rec)
            if rec.kind == "event":
                self._event(t, rec)
            elif betbatch.is_batch(rec.kind, rec.name):  # a group of bets, one record (older: a bet event each)
                for bet in betbatch.bets_of(rec.data):
                    key = (str(bet["position"]), str(bet["bet"]))
                    t.book[key] = t.book.get(key, ZERO) + Decimal(bet["amount"])
        finally:
            # The table's place moves last: the floor is read from other threads (its page,
            # a report), and one that sees record N must see what N did (a round's result
            # in the figures), not the place moved and the figures a moment behind.
            t.seq = rec.seq
            t.last_hash = rec.hash

    def _operator(self, t: TableView, rec: WireRecord) -> None:
        dealer = rec.data.get("dealer")
        dealer = dealer if isinstance(dealer, str) and dealer else None
        if rec.name in DUTY_RECORDS:
            t.dealer = dealer if rec.name == SIGN_IN else None
        elif rec.name == ROUND_DEALER:
            t.round_dealer = dealer
    def heard(self, table_id: str) -> TableView:
        """The table a status message names, on the floor from now on."""
        t = self.tables.get(table_id)
        if t is None:
            t = self.tables[table_id] = TableView(table_id)
        return t

    def _chains(self, t: TableView, rec: WireRecord) -> bool:
        """Whether ``rec`` is the table's next record, naming the last one's
        link. If not, it raises an alert and is left out: a record forged on
        the bus (or stored twice) never counts, and the table's own next
        record, which chains onto its last good one, goes on counting. The
        first record seen of a table is taken whatever its seq (a stream
        that keeps only its latest records), with an alert for the records
        before it."""
        expected = t.seq + 1
        if t.last_hash is None:
            if rec.seq != 1:
                self._alert(t, rec.seq, f"the stream begins this table at record {rec.seq}: records 1 to "
                                        f"{rec.seq - 1} are not in it")
            return True
        if rec.seq > expected:
            self._alert(t, rec.seq, f"gap in the stream: records {expected} to {rec.seq - 1} are missing "
                                    "(left out of the figures)")
        elif rec.seq < expected:
            self._alert(t, rec.seq, f"record {rec.seq} again after record {t.seq} (duplicate or out of order: "
                                    "left out of the figures)")
        elif rec.prev_hash != t.last_hash:
            self._alert(t, rec.seq, f"record {rec.seq} does not chain onto record {t.seq} (left out of the "
                                    "figures)")
        else:
            return True
        return False

    def _alert(self, t: TableView, seq: int, text: str) -> None:
        t.alerts += 1
        self.alerts.append({"table_id": t.table_id, "seq": seq, "text": text})

    def _event(self, t: TableView, rec: WireRecord) -> None:
        d, name = rec.data, rec.name
        if name == "state":
            t.state = d.get("state")
        elif name == "bet":
            key = (str(d.get("position")), str(d.get("bet")))
            t.book[key] = t.book.get(key, ZERO) + Decimal(d.get("amount", "0"))
        elif name == "bet_withdrawn":
            t.book.pop((str(d.get("position")), str(d.get("bet"))), None)
        elif name == "incident":
            t.round_incidents += 1
            t.incidents[str(d.get("id"))] = {k: d.get(k) for k in ("id", "code", "text", "blocking", "say")}
        elif name == "incident_resolved":
            t.incidents.pop(str(d.get("id")), None)
        elif name == "link":
            t.links[str(d.get("device"))] = bool(d.get("up"))
        elif name == "fault":
            t.faults[f"{d.get('device')}:{d.get('code')}"] = {k: d.get(k) for k in ("device", "code", "text")}
        elif name == "fault_cleared":
            t.faults.pop(f"{d.get('device')}:{d.get('code')}", None)
        elif name == "result":
            self._result(t, rec)

    def _result(self, t: TableView, rec: WireRecord) -> None:
        d = rec.data
        t.game = d.get("game") or t.game
        status = d.get("status")
        # (open to all: the round's totals, never a player's id, own net or decision)
        outcome = d.get("outcome")
        t.results.append({"round_id": rec.round_id, "status": status, "void_reason": d.get("void_reason"),
                          "outcome": totals.outcome(outcome) if isinstance(outcome, dict) else outcome,
                          "players_net": totals.players_net(d.get("net")), "ts": None})
        one = Figures()  # this round's figures
        if status != "settled":
            one.void += 1
        else:
            one.rounds += 1
            self._settled(t, d, one)
        t.figures.add(one)
        self._group(t, rec, one)
        t.book = {}

    def _settled(self, t: TableView, d: dict, one: Figures) -> None:
        stakes = _stakes(d.get("stakes"), t.book)
        for (_, bet), amount in stakes.items():
            per = t.by_bet.setdefault(bet, Figures())
            per.bets += 1
            per.wagered += amount
            one.bets += 1
            one.wagered += amount
        bet_rounds = set()
        for position, per_position in (d.get("results") or {}).items():
            for key, value in per_position.items():
                bet = key if (str(position), key) in stakes else SETTLED_BY.get(key, key)
                amount = Decimal(value)
                per = t.by_bet.setdefault(bet, Figures())
                if amount > 0:
                    per.paid += amount
                    one.paid += amount
                per.house -= amount
                one.house -= amount
                bet_rounds.add(bet)
        for bet in bet_rounds:
            t.by_bet[bet].rounds += 1

    def _group(self, t: TableView, rec: WireRecord, one: Figures) -> None:
        """The round's figures under its shift, its (gaming) day and its dealer."""
        round_ = Grouped(one, t.round_incidents)
        keys = (("shift", self.shifts.shift(rec.ts)), ("day", self.shifts.day(rec.ts)),
                ("dealer", t.round_dealer or NOBODY))
        for by, group in keys:
            self.groups.setdefault((by, group, t.table_id), Grouped()).add(round_)
        t.round_incidents = 0

    def grouped(self, by: str) -> list[dict[str, Any]]:
        """``by`` (shift, day, dealer): each group's figures per table, then the group's total."""
        out: list[dict[str, Any]] = []
        totals: dict[str, Grouped] = {}
        for (kind, group, table_id), g in sorted(self.groups.items()):
            if kind != by:
                continue
            out.append({by: group, "table_id": table_id, **g.as_json()})
            totals.setdefault(group, Grouped()).add(g)
        out.extend({by: group, "table_id": None, **g.as_json()} for group, g in sorted(totals.items()))
        return out

    # --- the figures --------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        floor = Figures()
        games: dict[str, dict[str, Any]] = {}
        published = [t for t in self.tables.values() if t.seq]  # (heard of, nothing in the stream yet: no figures)
        for t in published:
            floor.add(t.figures)
            g = games.setdefault(t.game or "?", {"tables": 0, "figures": Figures(), "by_bet": {}})
            g["tables"] += 1
            g["figures"].add(t.figures)
            for bet, f in t.by_bet.items():
                g["by_bet"].setdefault(bet, Figures()).add(f)
        return {
            "records": self.records,
            "stream_seq": self.stream_seq,
            "redelivered": self.redelivered,
            "floor": {"tables": len(published), **floor.as_json()},
            "games": {name: {"tables": g["tables"], **g["figures"].as_json(),
                             "by_bet": {b: f.as_json() for b, f in sorted(g["by_bet"].items())}}
                      for name, g in sorted(games.items())},
            "tables": [t.as_json() for _, t in sorted(self.tables.items())],
            "alerts": list(self.alerts)[::-1],
            "rejected": dict(sorted(self.rejected.items())),
        }


def _stakes(recorded: Any, book: dict[tuple[str, str], Decimal]) -> dict[tuple[str, str], Decimal]:
    """The round's stakes at risk, (position, stake) -> amount: the result's
    own ``stakes`` where it records them (a stake made during the round,
    such as a play, included), else the stakes the round's ``bet`` events
    placed (records written before results carried their stakes)."""
    if not isinstance(recorded, dict):
        return book
    return {(str(position), str(stake)): Decimal(amount)
            for position, per in recorded.items() for stake, amount in per.items()}
