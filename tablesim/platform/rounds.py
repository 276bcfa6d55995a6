"""What the stream says of each table and round, folded from the records a
table signed: the table's current round and whether betting is open, each
round's accepted bets by ref (each group of bets' ``place_bets`` record;
an older journal's ``bet_refs``) and remote Plays on a shared hand
(``decision`` records with a ref and a stake), the bets withdrawn, and its
result (settled or void).

Pure: the records come in stream order (``Rounds.apply``), from whoever
reads the stream (``tablesim.platform.follow``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable

from tablecore import betbatch
from tablecore.money import read_amount
from tablesim.studio.wire import WireRecord

#: the state in which every game takes bets
BETTING = "betting_open"
#: the records the picture is folded from (``Rounds.apply``): no other changes anything
APPLIED = ("bet_refs", betbatch.NAME, "decision", "state", "bet_withdrawn", "result")


@dataclass
class Ref:
    ref: str
    position: str
    bet: str
    amount: Decimal
    owner: str  # whose bet: the player named, else the position's own seat
    seq: int  # the journal record that holds it
    withdrawn: bool = False


@dataclass
class Round:
    table: str
    round_id: str
    refs: dict[str, Ref] = field(default_factory=dict)
    #: the same refs by owner: a player's bets are looked up at each of the round's bet
    #: records (what the player's page shows), which a walk over every ref of a busy
    #: round made the square of its bets (a quarter of the platform's CPU at 2,000 bets/s)
    owners: dict[str, list[Ref]] = field(default_factory=dict)
    result: dict | None = None  # the ``result`` record's data
    result_stream_seq: int = 0
    closed_at: float | None = None  # when the result was read (monotonic)
    settled_here: bool = False  # settled (or being settled) by this process
    backstopped: bool = False  # looked up in the wallet by the backstop (``backstop``)

    @property
    def closed(self) -> bool:
        return self.result is not None

    def add(self, ref: Ref) -> None:
        """A ref accepted (the first record of it counts: one read again changes nothing)."""
        if ref.ref not in self.refs:
            self.refs[ref.ref] = ref
            self.owners.setdefault(ref.owner, []).append(ref)

    def of(self, owner: str) -> list[Ref]:
        """``owner``'s refs in the round, in the order they came."""
        return self.owners.get(owner, [])


@dataclass
class TableState:
    table: str
    round_id: str = ""
    state: str = ""

    @property
    def betting(self) -> bool:
        return self.state == BETTING


class Rounds:
    """Every table's picture; rounds closed more than ``keep`` seconds ago are forgotten."""

    def __init__(self, keep: float = 3600.0) -> None:
        self.keep = keep
        self.tables: dict[str, TableState] = {}
        self.rounds: dict[tuple[str, str], Round] = {}
        self.stream_seq = 0  # the last stream message read (signed or not)
        #: each table's last record applied (its own seq): a record read again under another stream
        #: seq (a stream numbered anew, read again) is not applied twice, and settlement waits on it
        self.table_seq: dict[str, int] = {}
        #: told whether any table takes bets, each time one opens or closes betting (the collector)
        self.on_betting: Callable[[bool], None] | None = None

    def round(self, table: str, round_id: str) -> Round:
        key = (table, round_id)
        found = self.rounds.get(key)
        if found is None:
            found = self.rounds[key] = Round(table, round_id)
        return found

    def apply(self, rec: WireRecord, stream_seq: int) -> None:
        """One record a table signed."""
        name, data = rec.name, rec.data
        if rec.seq > self.table_seq.get(rec.table_id, 0):
            self.table_seq[rec.table_id] = rec.seq
        if name == "bet_refs" or name == betbatch.NAME:
            # (a group of bets' one record holds each bet with its ref; an older journal's
            # ``bet_refs`` record, up to 16 refs: the same entries, the same refs)
            rnd = self.round(rec.table_id, rec.round_id)
            for entry in data.get("refs" if name == "bet_refs" else "bets") or []:
                if isinstance(entry, list) and len(entry) >= 4 and entry[0] is not None:
                    ref = _ref(entry, rec.seq)
                    if ref is not None:
                        rnd.add(ref)
        elif name == "decision" and isinstance(data.get("ref"), str) and data.get("stake") is not None:
            # a remote player's decision that staked (a Play on a shared remote hand): its debit is
            # the decision's ref, its stake the bet of the decision's name
            rnd = self.round(rec.table_id, rec.round_id)
            ref = _ref([data["ref"], data.get("box"), str(data.get("decision")), data["stake"], data.get("player")],
                       rec.seq)
            if ref is not None:
                rnd.add(ref)
        elif name == "state":
            t = self.tables.setdefault(rec.table_id, TableState(rec.table_id))
            was = t.betting
            t.round_id, t.state = rec.round_id, str(data.get("state"))
            if t.betting != was and self.on_betting is not None:
                self.on_betting(any(x.betting for x in self.tables.values()))
        elif name == "bet_withdrawn":
            rnd = self.round(rec.table_id, rec.round_id)
            owner = data.get("player") or data.get("position")
            for ref in rnd.of(owner):
                if (ref.position, ref.bet) == (str(data.get("position")), data.get("bet")) and ref.seq < rec.seq:
                    ref.withdrawn = True
        elif name == "result" and data.get("status") in ("settled", "void"):
            rnd = self.round(rec.table_id, rec.round_id)
            if rnd.result is None:
                rnd.result, rnd.result_stream_seq, rnd.closed_at = data, stream_seq, time.monotonic()

    def forget_old(self) -> None:
        now = time.monotonic()
        for key, rnd in list(self.rounds.items()):
            if rnd.closed_at is not None and now - rnd.closed_at > self.keep:
                del self.rounds[key]

    def is_closed(self, table: str, round_id: str) -> bool:
        """Whether the round can take no more bets: its result is in, or
        its table has moved on to another round."""
        rnd = self.rounds.get((table, round_id))
        if rnd is not None and rnd.closed:
            return True
        t = self.tables.get(table)
        return t is not None and t.round_id != round_id and t.round_id > round_id


#: the amounts read off the stream's bets, by their text (a round's bets come in a few amounts:
#: each read once); forgotten all at once past ``AMOUNTS`` (a run of odd ones never grows it)
_AMOUNTS: dict[str, Decimal] = {}
AMOUNTS = 4096


def _ref(entry: list, seq: int) -> Ref | None:
    ref, position, bet, amount = entry[:4]
    player = entry[4] if len(entry) > 4 else None
    text = str(amount)
    value = _AMOUNTS.get(text)
    if value is None:
        try:
            value = read_amount(text)
        except ValueError:
            return None
        if len(_AMOUNTS) >= AMOUNTS:
            _AMOUNTS.clear()
        _AMOUNTS[text] = value
    return Ref(str(ref), str(position), str(bet), value, str(player or position), seq)
