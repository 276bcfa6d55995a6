"""The table's driver: the one thread that touches the table.

The table is not thread-safe, so every access (an API call, a device event,
the bet timer, a snapshot for a client, a history read from the journal)
is a command run on one worker thread, one at a time. The asyncio side
awaits the command's result. Around each command the table's events are
collected and published to the stream once the command returned (its
journal transaction committed); a command that raised publishes nothing.

Background tasks on the event loop:

- the pump: asks the devices for what they reported and hands it to the
  table. Real (or emulated) devices report when the dealer acts at the
  table: each pump command waits for a report at most ``DEVICE_WAIT``
  seconds on the table's thread (so a report is handled as soon as it
  arrives, and an API call waits at most that long behind the pump), then
  the next command is queued behind whatever the API asked meanwhile. Their
  reports are taken also while the table is paused or holds a blocking
  incident (a link restored ends its incident), but the cards and hands
  among them wait, in order, until the table is resumed or the incident
  resolved (the cards drawn after a misread follow the card the
  supervisor names for it; none is dealt into a paused round). A device
  quiet for ``QUIET_NOTICE`` seconds while the round waits for it gets a
  notice on the console; the round is never voided for it (the dealer
  calls a misdeal, a supervisor voids), except a draw display's
  read-back (``display_timeout``).
  Mock devices stand in for the dealer's hands, so they are asked at a
  realistic pace, not while the table is paused or holds a blocking
  incident, and only when the game's console adapter lets them (e.g. once
  the dealer pressed "spin"): the console's mock dealer goes on with the
  round through the game's own dealer (``tablesim.games.console.MockDealer``);
- the bet timer (``bet_seconds``): closes betting that many seconds after it
  opened (frozen while the table is paused). With no bet on the table it
  keeps betting open and starts again;
- the autoplay dealer (``autoplay``, ``tablesim serve --autoplay``): the
  dealer's moves made by the table itself, one step at a time on the
  table's thread (``tablesim.server.autoplay``).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import secrets
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from decimal import Decimal
from typing import Any

from tablecore import betbatch
from tablecore.errors import IllegalAction
from tablecore.wording import CORE_WORDS as W
from tablecore.threadnames import name_this_thread
from tablesim.engine.events import TableEvent
from tablesim.engine.table import GameTable
from tablesim.games import registry
from tablesim.games.console import GameAdapter, MockDealer
from tablesim.games.rig import MockRig
from tablesim.harness.metrics import TableMetrics
from tablesim.harness.sdnotify import Notifier
from tablesim.journal.audit import first_forged
from tablesim.journal.history import round_summary, select_rounds
from tablesim.web import redaction
from tablesim.studio import totals as round_totals
from tablesim.server.bettimer import BetTimer
from tablesim.server.devicefeed import DeviceFeed
from tablesim.server.executor import TableThread
from tablesim.server.intake import BetIntake, BetOutcome, BetRequest, bet_request
from tablesim.server.notices import Notices
from tablesim.server.remotehand import RemoteHandRunner, shared_hand
from tablesim.server.snapshot import TableView
from tablesim.server.stream import EventStream, event_message, journal_events_since, jsonable, now_ts

log = logging.getLogger("tablesim.server")

#: results the board keeps (and loads from the journal at start)
RESULTS_KEPT = 50


def journal_stream_id(path: str) -> str:
    """The stream of a journal: the same across restarts on it, without saying where it is."""
    where = str(Path(path).resolve())
    return "journal:" + hashlib.sha256(where.encode()).hexdigest()[:16]


class TableRunner(TableThread):
    """A served table: its thread (``executor``), the commands the routes
    call and the stream they publish to, and the parts it owns, each with
    its own state: its view (``view``, ``snapshot``), bet timer (``timer``,
    ``bettimer``), device feed (``feed``, ``devicefeed``), notices
    (``notices``) and, where the table has one, its shared remote hand
    (``remote``, ``remotehand``)."""

    def __init__(
        self,
        table: GameTable,
        *,
        rig: MockRig | None = None,
        adapter: GameAdapter | None = None,
        pace: float = 0.5,
        bet_seconds: float | None = None,
        recovery: Any = None,
        notifier: Notifier | None = None,
        studio: str | None = None,
        autoplay: Any = None,
    ) -> None:
        self.table = table
        #: the table plays rounds by itself (``tablesim.server.autoplay``), or None: people deal
        self.autoplay = autoplay
        #: nats://HOST:PORT: the journal goes to the studio and bets come in over the bus (tablesim.studio)
        self.studio_url = studio
        self.studio = None
        self._studio_said: set[str] = set()  # the studio link's incidents opened (diverged, stalled)
        from tablesim.server.shift import Shift

        self.shift = Shift()  # the dealer on duty (signed in at the console)
        #: systemd's notify socket (READY, WATCHDOG from the pump loop), or nothing outside systemd
        self.notifier = notifier if notifier is not None else Notifier.from_env()
        self.rig = rig
        self.adapter = adapter or registry.spec(table.game).part("console")(table, rig)
        #: mock devices: the dealer's hands, through the game's dealer
        self.mock_dealer = MockDealer(self.adapter) if rig is not None else None
        self.pace = pace
        self.bet_seconds = bet_seconds
        self.recovery = recovery.describe() if hasattr(recovery, "describe") else recovery
        self.journal = table.journal
        #: whether the table's positions are spots (boxes), not its players (the wheel)
        self.spots = bool(self.adapter.layout().get("positions"))
        self.remote_hand = shared_hand(table)  # None: the table has none
        self.stream = self._open_stream()
        self._init_running()
        self.view = TableView(self)
        self.timer = BetTimer(self)
        self.feed = DeviceFeed(self)
        self.notices = Notices(self)
        self.remote = RemoteHandRunner(self, self.remote_hand) if self.remote_hand is not None else None
        #: bets go through group commit: many in one journal transaction
        #: (bets give the mock dealer's hands nothing to do: the pump is not woken for them)
        self.intake = BetIntake(table, functools.partial(self.call, lazy_snapshot=True, pokes=False))
        #: ``GET /metrics`` (``tablesim.harness.metrics``): its own registry, one per served table
        self.metrics = TableMetrics(table, studio=lambda: self.studio)
        self.intake.metrics = self.metrics
        #: faults raised and never cleared ("device:code" -> the fault), kept across restarts by the journal
        self.active_faults: dict[str, dict] = {}
        #: why the journal's last transaction failed (a full disk, an I/O error); None once one commits again
        self.storage_error: str | None = None
        self.started = False

    def _open_stream(self) -> EventStream:
        """The table's event stream, numbered on from its journal (or its bus,
        without one); its events are the public view's (tablesim.web.redaction)."""
        if self.journal is not None:
            stream_id, start_seq = journal_stream_id(self.journal.path), self.journal.seq
        else:
            stream_id, start_seq = f"memory:{secrets.token_hex(8)}", self.table.bus.seq
        hand = self.remote_hand
        return EventStream(stream_id, start_seq=start_seq,
                           redact=redaction.event_redactor(self.adapter.redact, spots=self.spots,
                                                           shared=hand.position if hand is not None else None))

    def _init_running(self) -> None:
        """What the runner keeps while it serves: its thread and loop, the
        events not yet published, the round's last instruction and results."""
        self.executor: ThreadPoolExecutor | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: list[asyncio.Task] = []
        self._pending: list[dict] = []
        self._round_over = False
        self._subscribed = False
        self.instruction: str | None = None
        self.results: deque[dict] = deque(maxlen=RESULTS_KEPT)
        self.state_since = time.monotonic()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"table-{self.table.table_id}",
                                           initializer=name_this_thread)  # (``top -H`` shows it so)
        await self.call(self._setup, publish=False)
        self.tasks = [asyncio.create_task(self.feed.run(), name="pump")]
        if self.bet_seconds:
            self.tasks.append(asyncio.create_task(self.timer.run(), name="bet-timer"))
        if self.autoplay is not None:
            from tablesim.server.autoplay import AutoDealer

            self.tasks.append(asyncio.create_task(AutoDealer(self, self.autoplay).run(), name="autoplay"))
        if self.remote is not None:  # a shared remote hand: its decision timer (remotehand.py)
            self.tasks.append(asyncio.create_task(self.remote.run(), name="decision-timer"))
        if self.studio_url and self.journal is not None:
            from tablesim.studio.attach import start_link
            from tablesim.studio.bus_bets import BusBets

            bets = BusBets(self.table.table_id, self._bus_bets, self.loop)
            hooks = [bets.attach]
            if self.remote is not None:
                from tablesim.studio.bus_decisions import BusDecisions

                hooks.append(BusDecisions(self.table.table_id, self.remote.bus_decision, self.loop,
                                          self.remote_hand.decisions).attach)
            loop = self.loop
            self.studio = start_link(self.table, self.studio_url, hooks=hooks,
                                     on_change=lambda: loop.call_soon_threadsafe(self._studio_changed))
        self.started = True
        self.notifier.ready(f"{self.table.table_id}: {self.table.game}, serving")

    async def stop(self) -> None:
        self.started = False
        self.notifier.stopping()
        if self.studio is not None:  # first: bets in flight over the bus still reach the table
            from tablesim.studio.attach import stop_link

            said = await asyncio.to_thread(stop_link, self.studio)
            # a warning only when records are left behind or the link diverged
            (log.info if said.endswith("every record published") else log.warning)(said)
            journal = self.table.journal
            if journal is not None and self.studio.wake in journal.on_commit:
                journal.on_commit.remove(self.studio.wake)
            self.studio = None
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        self.tasks = []
        if self.executor is not None:
            self.executor.submit(self._teardown).result()
            self.executor.shutdown(wait=True)
            self.executor = None
        self.metrics.detach()
        self.notifier.close()

    def _setup(self) -> None:
        t = self.table
        if not self._subscribed:
            t.bus.subscribe(self._on_event)
            self.metrics.attach()
            self._subscribed = True
        if self.journal is not None:
            from tablesim.journal.recovery import active_faults

            self.active_faults = dict(active_faults(self.journal))
            for rid in select_rounds(self.journal, RESULTS_KEPT, None):
                summary = round_summary(self.journal, rid)
                if summary.get("status") in ("settled", "void"):
                    self.results.append(self._board_entry(rid, summary))
        if t.state is t.BETTING and self.bet_seconds:
            self.timer.remaining = self.bet_seconds
        self.shift.recover(self.journal, t.table_id)
        self.intake.load_refs()
        if self.remote is not None:
            self.remote.load_refs()
        self.view.refresh(True)

    def _on_event(self, event: TableEvent) -> None:
        """Bus subscriber (the table's thread): collect, follow the round."""
        t = self.table
        if t.replaying:
            return
        seq = self.journal.seq if self.journal is not None else event.seq
        kind, data = event.kind, event.data
        if kind == "bets_placed":
            # A group of bets (its one record, just written, is their seq): the stream's clients
            # get a ``bet`` event each, as they did when the table published one a bet, made
            # here from the record's entries (text already: thousands a second, not walked again)
            ts, rid, bet_event = now_ts(), event.round_id, betbatch.bet_event
            self._pending += [{"type": "event", "seq": seq, "kind": "bet", "round_id": rid, "ts": ts,
                               "data": bet_event(e)} for e in data["bets"]]
            self._tell_adapter(kind, data)
            return
        if kind == "bet":  # (a bet's fields are text already, not walked again)
            msg = {"type": "event", "seq": seq, "kind": "bet", "round_id": event.round_id, "ts": now_ts(),
                   "data": data}
        else:
            msg = event_message(seq, kind, event.round_id, data)
        self._pending.append(msg)
        if kind == "state":
            self.state_since = time.monotonic()
            self.notices.quiet_noticed = False
            if data.get("trigger") == t.PROCEDURE.opening:
                self.instruction = None
                self.recovery = None  # the recovered round is over: the console stops showing it
            if data.get("state") == t.BETTING.value and self.bet_seconds:
                self.timer.restart()
            elif data.get("state") != t.BETTING.value:
                self.timer.remaining = None
            if data.get("state") in {s.value for s in t.FINALS}:
                self.instruction = None
                self._round_over = True  # (the collector's turn once its events are out: server/gctuning.py)
        elif kind == "instruction":
            self.instruction = data.get("text")
        elif kind == "result":
            self.results.append(self._board_entry(event.round_id, msg["data"]))
        elif kind == "fault":
            self.active_faults[f"{data.get('device')}:{data.get('code')}"] = msg["data"]
        elif kind == "fault_cleared":
            self.active_faults.pop(f"{data.get('device')}:{data.get('code')}", None)
        self._tell_adapter(kind, data)

    def _tell_adapter(self, kind: str, data: dict) -> None:
        try:
            self.adapter.on_event(kind, data)
        except Exception:  # pragma: no cover - an adapter bug must not break the table
            log.exception("adapter on_event failed")

    @staticmethod
    def _board_entry(round_id: str, data: dict) -> dict:
        keys = ("game", "status", "void_reason", "outcome", "net")
        entry = {"round_id": round_id, **{k: data.get(k) for k in keys}}
        if data.get("players"):  # each named player's part
            entry["players"] = data["players"]
        return entry

    async def place_bet(self, actor: str, position: str, bet: str, amount: Decimal, ref: str | None = None,
                        player: str | None = None) -> dict:
        """One bet, committed with whatever bets arrived with it; the bet book
        after it, or the refusal raised as for any action."""
        (outcome,), book = await self.intake.submit([BetRequest(position, bet, amount, actor, ref, player)],
                                                    with_book=True)
        outcome.raise_refusal()
        return book

    async def place_bets(self, requests: list[BetRequest]) -> list[BetOutcome]:
        """Bets answered one by one, each only once it is on disk."""
        outcomes, _ = await self.intake.submit(requests)
        return outcomes

    def _studio_changed(self) -> None:
        """The studio link went up, down or diverged: the console shows it at once
        (a diverged link as an incident: the stream holds what the journal does not)."""
        if self.started and self.executor is not None:
            task = asyncio.ensure_future(self.call(self.view.refresh, True, publish=False))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            link = self.studio
            if link is not None and (link.state == "diverged" or link.stalled or "stalled" in self._studio_said):
                from tablesim.studio.attach import loud

                task = asyncio.ensure_future(self.call(loud, self.table, link, self._studio_said))
                task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _bus_bets(self, bets: list[dict]) -> list[dict]:
        """Bets from the studio's bus (``tablesim.studio.bus_bets``), through the same intake."""
        now = self.table.round_id  # (a bet paid for another round is refused: tablesim.studio.bus_bets)
        taken = [b for b in bets if b.get("round") in (None, now)]
        # (built at once: the frozen dataclass's set-up a field is a tenth of a bus bet's own work)
        outcomes = iter(await self.place_bets([bet_request(b["position"], b["bet"], b["amount"], b["actor"], b["ref"],
                                                           b.get("player")) for b in taken]) if taken else [])
        return [self._bus_result(next(outcomes)) if b.get("round") in (None, now) else _other_round(b, now)
                for b in bets]

    def _bus_result(self, outcome: BetOutcome) -> dict:
        """A bus bet's result, with the record its group was journaled as and its place in it
        (``group``, ``at``: what the bus makes its receipt of, and takes off the reply)."""
        if outcome.seq is not None:
            group = self.intake.written.get(outcome.seq)
            if group is not None:
                if outcome.ok and outcome.error is None and not outcome.duplicate and outcome.ref is not None:
                    # (a bet placed now, the usual one: ``as_json``'s fields, made at once)
                    return {"ok": True, "round_id": outcome.round_id, "ref": outcome.ref, "group": group,
                            "at": outcome.at}
                out = outcome.as_json()
                out["group"], out["at"] = group, outcome.at
                return out
        return outcome.as_json()

    async def withdraw_bet(self, actor: str, position: str, bet: str, player: str | None = None) -> dict:
        def do():
            self.table.withdraw_bet(position, bet, player)
            return self.table.book.snapshot()

        return await self.call(do, actor=actor)

    async def action(self, actor: str, name: str, body: Any) -> Any:
        return await self.call(self.run_action, actor, name, body, actor=actor)

    def run_action(self, actor: str, name: str, body: Any) -> Any:
        """A dealer's action on the table's thread (the API's, or the autoplay dealer's)."""
        act = self.adapter.actions()[name]
        t = self.table
        if not act.journaled:
            # A mock-only action (e.g. a spin button standing in for the dealer) is no table action: it
            # still respects a pause and a blocking incident, and the
            # journal records it as an operator record.
            held = t.hold_refusal()
            if held is not None:
                raise IllegalAction(name.replace("_", " "), held)
        out = act.run(body)
        if not act.journaled and self.journal is not None:
            self.journal.append(t.table_id, t.round_id, "operator", name, {"state": t.state.value}, actor)
        if name == "open_round":  # (who deals the round, in the round's own records)
            self.shift.round_opened(t, self.journal, actor)
        return jsonable(out) if isinstance(out, (dict, list)) else None

    async def pause(self, actor: str, why: str) -> None:
        await self.call(lambda: self.table.pause(actor=actor, why=why), actor=actor)

    async def resume(self, actor: str, why: str) -> None:
        await self.call(lambda: self.table.resume(actor=actor, why=why), actor=actor)

    async def void(self, actor: str, why: str, reason: str) -> dict:
        def do():
            result = self.table.void(reason, actor=actor, why=why)
            return {"round_id": result.round_id, **result.as_json()}

        return jsonable(await self.call(do, actor=actor))

    async def resolve_incident(self, actor: str, decision: str, why: str, card: str | None) -> None:
        await self.call(lambda: self.table.resolve_incident(decision, actor=actor, why=why, card=card), actor=actor)

    async def history(self, last: int | None, round_id: str | None) -> list[dict] | None:
        if self.journal is None:
            return None

        def do():
            ids = select_rounds(self.journal, last if last else (None if round_id else 10), round_id)
            forged = first_forged(self.journal, ids, self.journal.key(self.table.table_id))
            if forged is not None:  # (edited behind the table's back, before its last start's check)
                raise IllegalAction("history", W("refusal.journal_forged", seq=forged))
            out = []
            for rid in ids:
                summary = round_summary(self.journal, rid)
                out.append(redaction.summary(self.adapter.redact_summary, summary, self.spots))
            return out

        return await self.call(do, publish=False)

    async def backlog(self, since: int, upto: int) -> tuple[list[dict], bool]:
        """Events after ``since`` up to ``upto``: the ring first, then the journal."""
        events, complete = self.stream.from_ring(since, upto)
        if complete or self.journal is None:
            return events, complete

        def do():
            return journal_events_since(self.journal, since, upto)

        older, complete = await self.call(do, publish=False)
        # The ring's oldest seq may be a group of bets it kept only the end of (they share
        # their one record's seq): up to it the journal's events, after it the ring's.
        first = events[0]["seq"] if events else None
        merged = [self.stream.redact(m) for m in older if first is None or m["seq"] <= first]
        merged += [m for m in events if m["seq"] != first]
        merged.sort(key=lambda m: m["seq"])
        return merged, complete

    async def book(self) -> dict[str, Any]:
        return await self.call(self.view.book, publish=False)

    async def snapshot(self) -> dict[str, Any]:
        return await self.call(self.view.build, publish=False)

    async def incident_detail(self) -> dict[str, Any] | None:
        """The open incident whole, its card too: for the authenticated console only."""
        return await self.call(lambda: jsonable(self.table.incident.as_dict()) if self.table.incident else None,
                               publish=False)

    def board(self, last: int) -> list[dict]:
        """The last results as the open board shows them: totals, no player."""
        return [round_totals.result(r, self.spots) for r in list(self.results)[-last:][::-1]]


def _other_round(bet: dict, now: str) -> dict:
    """A bus bet paid for another round than the table's (refused, nothing placed)."""
    reason = (W("refusal.other_round", round=bet["round"], now=now) if now
              else W("refusal.other_round_none", round=bet["round"]))
    return {"ok": False, "round_id": now, "ref": bet["ref"], "error": "refused", "action": "bet", "reason": str(reason),
            "say": reason.message(), "detail": f"bet refused: {reason}"}
