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
  keeps betting open and starts again.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import math
import os
import secrets
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from drivers.events import CardRead, HandDispensed
from tablesim.engine.events import TableEvent
from tablesim.engine.table import GameTable
from tablecore.errors import IllegalAction
from tablesim.harness.intake import BetIntake, BetOutcome, BetRequest
from tablesim.harness.sdnotify import Notifier
from tablesim.journal.audit import first_forged
from tablesim.journal.history import round_summary, select_rounds
from tablesim.journal.store import StorageError
from tablesim.games.console import MockDealer
from tablesim.server import public
from tablesim.server.adapters import GameAdapter, adapter_for
from tablesim.server.mock import MockRig
from tablesim.server.stream import EventStream, event_message, journal_events_since, jsonable, now_ts

log = logging.getLogger("tablesim.server")

#: how often the pump asks mock devices when none had anything to say
IDLE_POLL = 0.05
#: real devices: how long one pump command waits for a report on the table's thread
DEVICE_WAIT = 0.02
#: real devices: what waits while the table is paused or a blocking incident holds the round
HELD_WHILE_BLOCKED = (CardRead, HandDispensed)
#: real devices: a notice when the device the round waits for was quiet this long (seconds)
QUIET_NOTICE = 30.0
#: results the board keeps (and loads from the journal at start)
RESULTS_KEPT = 50
#: while bets stream in, the table's snapshot (O(bets on the table) to build
#: and to send) is rebuilt at most this often; the bet events go out at once
SNAPSHOT_EVERY = 0.25
#: how long a look at the journal's free space stands (health, watchdog)
SPACE_CHECK_EVERY = 0.5


def journal_stream_id(path: str) -> str:
    """The stream of a journal: the same across restarts on it, without saying where it is."""
    where = str(Path(path).resolve())
    return "journal:" + hashlib.sha256(where.encode()).hexdigest()[:16]


def _space_problem(journal) -> str | None:
    """A full disk under the journal (where the file really is, through a symlink)."""
    if journal.path == ":memory:" or journal.reserve <= 0:
        return None
    try:
        st = os.statvfs(Path(journal.path).resolve().parent)
    except OSError:
        return None
    if st.f_bavail * st.f_frsize < journal.reserve:
        return f"the journal's disk is full (less than {journal.reserve // 1024} KiB free)"
    return None


class TableRunner:
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
    ) -> None:
        self.table = table
        #: nats://HOST:PORT: the journal goes to the studio and bets come in over the bus (tablesim.studio)
        self.studio_url = studio
        self.studio = None
        #: systemd's notify socket (READY, WATCHDOG from the pump loop), or nothing outside systemd
        self.notifier = notifier if notifier is not None else Notifier.from_env()
        self.rig = rig
        self.adapter = adapter or adapter_for(table, rig)
        #: mock devices: the dealer's hands, through the game's dealer
        self.mock_dealer = MockDealer(self.adapter) if rig is not None else None
        self.pace = pace
        self.bet_seconds = bet_seconds
        self.recovery = recovery.describe() if hasattr(recovery, "describe") else recovery
        self.journal = table.journal
        if self.journal is not None:
            stream_id = journal_stream_id(self.journal.path)
            start_seq = self.journal.seq
        else:
            stream_id = f"memory:{secrets.token_hex(8)}"
            start_seq = table.bus.seq
        # the open stream's events are the public view's (tablesim.server.public)
        self.stream = EventStream(stream_id, start_seq=start_seq, redact=public.event_redactor(self.adapter.redact))
        self.executor: ThreadPoolExecutor | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: list[asyncio.Task] = []
        self._pending: list[dict] = []
        self._subscribed = False
        self.instruction: str | None = None
        self.results: deque[dict] = deque(maxlen=RESULTS_KEPT)
        self.state_since = time.monotonic()
        self.last_report = time.monotonic()  # real devices: the last report handled
        self._quiet_noticed = False
        #: real devices: cards read while the table is paused or a blocking incident holds
        #: the round, handed on (in order) once it is resumed or resolved
        self.held: deque = deque()
        # bet timer (owned by the worker thread)
        self.timer_remaining: float | None = None
        self._timer_tick_at = time.monotonic()
        self._timer_shown: int | None = None
        self.snapshot_cache: dict[str, Any] = {}
        self._snapshot_at = 0.0
        self._snapshot_every = SNAPSHOT_EVERY
        self._snapshot_due = False  # a lazy refresh is scheduled
        #: bets go through group commit: many in one journal transaction
        self.intake = BetIntake(table, functools.partial(self.call, lazy_snapshot=True))
        #: faults raised and never cleared ("device:code" -> the fault), kept across restarts by the journal
        self.active_faults: dict[str, dict] = {}
        #: why the journal's last transaction failed (a full disk, an I/O error); None once one commits again
        self.storage_error: str | None = None
        self._space_checked = (0.0, None)  # (when, the free-space problem found then)
        self._status_said: str | None = None
        self.started = False

    # --- the worker thread -------------------------------------------------------

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"table-{self.table.table_id}")
        await self.call(self._setup, publish=False)
        self.tasks = [asyncio.create_task(self._pump_loop(), name="pump")]
        if self.bet_seconds:
            self.tasks.append(asyncio.create_task(self._timer_loop(), name="bet-timer"))
        if self.studio_url and self.journal is not None:
            from tablesim.studio.attach import start_link
            from tablesim.studio.bus_bets import BusBets

            bets = BusBets(self.table.table_id, self._bus_bets, self.loop)
            loop = self.loop
            self.studio = start_link(self.table, self.studio_url, hooks=[bets.attach],
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
            if self.studio.wake in self.table.bus.subscribers:
                self.table.bus.subscribers.remove(self.studio.wake)
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
        self.notifier.close()

    def _teardown(self) -> None:
        if self._subscribed and self._on_event in self.table.bus.subscribers:
            self.table.bus.subscribers.remove(self._on_event)
        self._subscribed = False

    async def call(self, fn: Callable[..., Any], *args: Any, actor: str | None = None, publish: bool = True,
                   lazy_snapshot: bool = False, **kwargs: Any) -> Any:
        """Run ``fn`` on the table's thread; its events go out when it returned.
        ``lazy_snapshot``: the table's snapshot follows within ``SNAPSHOT_EVERY``
        (bet groups), not at once."""
        if self.executor is None or self.loop is None:
            raise RuntimeError("the table runner is not running")
        job = functools.partial(self._run, fn, args, kwargs, actor, publish, lazy_snapshot)
        return await self.loop.run_in_executor(self.executor, job)

    def _run(self, fn, args, kwargs, actor: str | None, publish: bool, lazy_snapshot: bool = False) -> Any:
        table = self.table
        self._pending = []
        if actor is not None:
            # Journal the game's own actions (bets, close betting, deal...) with
            # the operator who asked, instead of the generic "dealer"/"player".
            table.actor_for = lambda action, _a=actor: _a  # type: ignore[method-assign]
        seq = self.journal.seq if self.journal is not None else 0
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            self._pending = []  # refused or failed: its journal transaction rolled back
            if isinstance(exc, StorageError):
                self.storage_error = exc.reason
            raise
        finally:
            if actor is not None:
                del table.actor_for
        if self.storage_error is not None and self.journal is not None and self.journal.seq > seq:
            self.storage_error = None  # a transaction committed again
        pending, self._pending = self._pending, []
        if pending or publish:
            self.stream.publish_all(pending)
            if lazy_snapshot and time.monotonic() - self._snapshot_at < self._snapshot_every:
                self._refresh_later()
            else:
                self._refresh_snapshot(True)
        return result

    def _refresh_later(self) -> None:
        """(The table's thread) rebuild the snapshot once ``SNAPSHOT_EVERY`` is up."""
        if self._snapshot_due or self.loop is None:
            return
        self._snapshot_due = True

        def due() -> None:
            if self.executor is not None:
                asyncio.ensure_future(self.call(self._refresh_due, publish=False))

        self.loop.call_soon_threadsafe(self.loop.call_later, self._snapshot_every, due)

    def _refresh_due(self) -> None:
        if self._snapshot_due:
            self._refresh_snapshot(True)

    def _setup(self) -> None:
        t = self.table
        if not self._subscribed:
            t.bus.subscribe(self._on_event)
            self._subscribed = True
        if self.journal is not None:
            from tablesim.journal.recovery import active_faults

            self.active_faults = dict(active_faults(self.journal))
            for rid in select_rounds(self.journal, RESULTS_KEPT, None):
                summary = round_summary(self.journal, rid)
                if summary.get("status") in ("settled", "void"):
                    self.results.append(self._board_entry(rid, summary))
        if t.state is t.BETTING and self.bet_seconds:
            self.timer_remaining = self.bet_seconds
        self.intake.load_refs()
        self._refresh_snapshot(True)

    def _on_event(self, event: TableEvent) -> None:
        """Bus subscriber (the table's thread): collect, follow the round."""
        t = self.table
        if t.replaying:
            return
        seq = self.journal.seq if self.journal is not None else event.seq
        msg = event_message(seq, event.kind, event.round_id, event.data)
        self._pending.append(msg)
        kind, data = event.kind, event.data
        if kind == "state":
            self.state_since = time.monotonic()
            self._quiet_noticed = False
            if data.get("trigger") == t.PROCEDURE.opening:
                self.instruction = None
                self.recovery = None  # the recovered round is over: the console stops showing it
            if data.get("state") == t.BETTING.value and self.bet_seconds:
                self.timer_remaining = float(self.bet_seconds)
                self._timer_tick_at = time.monotonic()
                self._timer_shown = None
            elif data.get("state") != t.BETTING.value:
                self.timer_remaining = None
            if data.get("state") in {s.value for s in t.FINALS}:
                self.instruction = None
        elif kind == "instruction":
            self.instruction = data.get("text")
        elif kind == "result":
            self.results.append(self._board_entry(event.round_id, msg["data"]))
        elif kind == "fault":
            self.active_faults[f"{data.get('device')}:{data.get('code')}"] = msg["data"]
        elif kind == "fault_cleared":
            self.active_faults.pop(f"{data.get('device')}:{data.get('code')}", None)
        try:
            self.adapter.on_event(kind, data)
        except Exception:  # pragma: no cover - an adapter bug must not break the table
            log.exception("adapter on_event failed")

    @staticmethod
    def _board_entry(round_id: str, data: dict) -> dict:
        keys = ("game", "status", "void_reason", "outcome", "net")
        entry = {"round_id": round_id, **{k: data.get(k) for k in keys}}
        if data.get("players"):  # each named player's part (issue 14.1)
            entry["players"] = data["players"]
        return entry

    # --- the view --------------------------------------------------------------

    def _refresh_snapshot(self, announce: bool) -> None:
        start = time.monotonic()
        self.snapshot_cache = self._snapshot()
        self._snapshot_at, self._snapshot_due = time.monotonic(), False
        # A big table (thousands of bets) takes long to show: show it less often.
        self._snapshot_every = max(SNAPSHOT_EVERY, 20 * (self._snapshot_at - start))
        if announce:
            self.stream.publish({"type": "snapshot", "seq": self.stream.last_seq, "table": self.snapshot_cache})

    def _snapshot(self) -> dict[str, Any]:
        t = self.table
        a = self.adapter
        actions = [x.describe() for x in a.actions().values()]
        blocking = t.blocked
        actions += [
            {"name": "pause", "label": "Pause", "role": "dealer", "enabled": t.can("pause"), "fields": ["why"], "hidden": False},
            {"name": "resume", "label": "Resume", "role": "dealer", "enabled": t.can("resume"), "fields": ["why"], "hidden": False},
            {"name": "void", "label": "Void round", "role": "supervisor", "enabled": t.can("void"),
             "fields": ["why"], "hidden": False},
            {"name": "resolve_incident", "label": "Resolve incident", "role": "supervisor",
             "enabled": t.can("resolve_incident"), "fields": ["decision", "why", "card"], "hidden": True},
        ]
        if t.paused or blocking:
            for act in actions:
                if act["name"] not in ("pause", "resume", "void", "resolve_incident"):
                    act["enabled"] = False
        devices = [
            {"name": d.name, "kind": d.kind, "link_up": d.health.link_up, "ok": d.health.ok,
             "faults": public.device_faults({str(k): v for k, v in d.health.faults.items()})}
            for d in t.devices
        ]
        result = None
        if t.result is not None:
            result = {"round_id": t.result.round_id, **t.result.as_json()}
        timer = None
        if self.bet_seconds:
            timer = {"seconds": self.bet_seconds,
                     "remaining": None if self.timer_remaining is None else round(max(self.timer_remaining, 0.0), 1),
                     "running": self.timer_remaining is not None and not t.paused}
        out = jsonable({
            "game": t.game,
            "title": a.title,
            "table_id": t.table_id,
            "state": t.state.value,
            "round_id": t.round_id,
            "betting_open": t.state is t.BETTING,
            "paused": t.paused,
            "incident": public.incident(t.incident.as_dict() if t.incident is not None else None),
            "total_bet": t.book.total(),
            "limits": a.limits(),
            "devices": devices,
            "active_faults": public.faults(self.active_faults),
            "bet_timer": timer,
            "instruction": self.instruction,
            "layout": a.layout(),
            "view": a.view(),
            "actions": actions,
            "result": result,
            "recovery": self.recovery,
            "held_reports": len(self.held),
            "mock": self.rig is not None,
            "journal": Path(self.journal.path).name if self.journal is not None else None,  # (not where it is)
            "studio": self.studio.status() if self.studio is not None else None,
            "stream_id": self.stream.stream_id,
            "seq": self.stream.last_seq,
        })
        out["bets"] = t.book.snapshot()  # plain text already: the largest part, not walked again
        # each position's bets by player (position -> player -> bet -> amount), where bets name players
        out["players"] = t.book.players_snapshot() if t.book.named else {}
        return out

    async def snapshot(self) -> dict[str, Any]:
        return await self.call(self._snapshot, publish=False)

    async def incident_detail(self) -> dict[str, Any] | None:
        """The open incident whole, its card too: for the authenticated console only."""
        return await self.call(lambda: jsonable(self.table.incident.as_dict()) if self.table.incident else None,
                               publish=False)

    # --- commands ----------------------------------------------------------------

    async def place_bet(self, actor: str, position: str, bet: str, amount: Any, ref: str | None = None,
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
            task = asyncio.ensure_future(self.call(self._refresh_snapshot, True, publish=False))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            link = self.studio
            if link is not None and link.state == "diverged" and not getattr(self, "_studio_incident", False):
                from tablesim.studio.attach import diverged_incident

                self._studio_incident = True
                task = asyncio.ensure_future(self.call(diverged_incident, self.table, link))
                task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _bus_bets(self, bets: list[dict]) -> list[dict]:
        """Bets from the studio's bus (``tablesim.studio.bus_bets``), through the same intake."""
        now = self.table.round_id  # (a bet paid for another round is refused: tablesim.studio.bus_bets)
        taken = [b for b in bets if b.get("round") in (None, now)]
        outcomes = iter(await self.place_bets([BetRequest(b["position"], b["bet"], b["amount"], b["actor"], b["ref"],
                                                          b.get("player")) for b in taken]) if taken else [])
        return [next(outcomes).as_json() if b.get("round") in (None, now) else _other_round(b, now) for b in bets]

    async def withdraw_bet(self, actor: str, position: str, bet: str, player: str | None = None) -> dict:
        def do():
            self.table.withdraw_bet(position, bet, player)
            return self.table.book.snapshot()

        return await self.call(do, actor=actor)

    async def action(self, actor: str, name: str, body: Any) -> Any:
        act = self.adapter.actions()[name]

        def do():
            t = self.table
            if not act.journaled:
                # A mock-only action (e.g. a spin button standing in for the dealer) is no table action: it
                # still respects a pause and a blocking incident, and the
                # journal records it as an operator record.
                if t.paused:
                    raise IllegalAction(name.replace("_", " "), "the table is paused")
                if t.blocked:
                    raise IllegalAction(name.replace("_", " "), f"incident {t.incident.id} must be resolved first")
            out = act.run(body)
            if not act.journaled and self.journal is not None:
                self.journal.append(t.table_id, t.round_id, "operator", name, {"state": t.state.value}, actor)
            return jsonable(out) if isinstance(out, (dict, list)) else None

        return await self.call(do, actor=actor)

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
                raise IllegalAction("history", f"record {forged} of the journal was altered or forged (its keyed "
                                    "link does not verify): nothing is shown; run `tablesim audit verify`")
            out = []
            for rid in ids:
                summary = round_summary(self.journal, rid)
                out.append(public.summary(self.adapter.redact_summary, summary))
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
        seen = {m["seq"] for m in events}
        merged = [self.stream.redact(m) for m in older if m["seq"] not in seen] + events
        merged.sort(key=lambda m: m["seq"])
        return merged, complete

    def board(self, last: int) -> list[dict]:
        return list(self.results)[-last:][::-1]

    # --- health ----------------------------------------------------------------------

    def journal_problem(self) -> str | None:
        """Why the journal cannot commit now, or None: it failed for good, its
        last transaction failed, or its disk has less free space than an action
        needs. (Any thread: it reads, and caches the free space for a moment.)"""
        journal = self.journal
        if journal is None:
            return None
        if journal.failed:
            return f"the journal cannot commit: {journal.failed}"
        if self.storage_error is not None:
            return f"the journal's last commit failed: {self.storage_error}"
        now = time.monotonic()
        at, problem = self._space_checked
        if now - at > SPACE_CHECK_EVERY:
            problem = _space_problem(journal)
            self._space_checked = (now, problem)
        return problem

    def _feed_watchdog(self) -> None:
        """Ping systemd's watchdog only while the table can do its work: a
        journal that cannot commit stops the pings (and says why), so systemd
        sees the table as failed instead of well."""
        if not self.notifier.enabled:
            return
        problem = self.journal_problem()
        if problem != self._status_said:
            self._status_said = problem
            self.notifier.status(problem or f"{self.table.table_id}: {self.table.game}, serving")
        if problem is None:
            self.notifier.watchdog()

    # --- background tasks ------------------------------------------------------------

    def _pump_once(self) -> float | None:
        """Hand the table one device event; returns how long to wait before the
        next, or None if no device had anything to say."""
        if self.mock_dealer is None:
            return self._pump_devices()
        delay = self.mock_dealer.step(time.monotonic() - self.state_since)
        return None if delay is None else delay * self.pace

    def _pump_devices(self) -> float | None:
        """Real or emulated devices: wait up to DEVICE_WAIT for a report and
        hand it to the table; 0 (already waited) or None (no devices)."""
        t = self.table
        if not t.devices:
            return None
        blocked = t.paused or (t.blocked)
        if self.held and not blocked:
            t.handle(self.held.popleft())  # in the order they were read, before anything newer
            return 0.0
        event = self._next_report(DEVICE_WAIT)
        now = time.monotonic()
        if event is not None:
            self.last_report, self._quiet_noticed = now, False
            if blocked and isinstance(event, HELD_WHILE_BLOCKED):
                self._hold(event)
            else:
                t.handle(event)
            return 0.0
        self.adapter.stalled(now - self.state_since)
        self._notice_quiet(now)
        return 0.0

    def _hold(self, event: Any) -> None:
        """A card (or hand) read while the table is paused or a blocking
        incident holds the round waits until it is resumed or resolved: e.g.
        the cards the dealer drew after a misread follow the card the
        supervisor names for it."""
        t = self.table
        self.held.append(event)
        if len(self.held) == 1:
            why = "the table is paused" if t.paused else f"incident {t.incident.id} holds the round"
            until = "it is resumed" if t.paused else "the incident is resolved"
            self.stream.publish({
                "type": "notice", "level": "warning", "ts": now_ts(), "round_id": t.round_id,
                "text": f"the {event.device} reported a card while {why}: it waits until {until}",
            })
        self._refresh_snapshot(True)

    def _next_report(self, wait: float):
        """The next report of any device, waiting up to ``wait`` seconds (the
        table's device pump: no polling, a report is taken as it arrives)."""
        table = self.table
        return table.device_pump.next_event(table.devices, wait)

    def _notice_quiet(self, now: float) -> None:
        """Tell the console once when the device the round waits for stays quiet."""
        if self._quiet_noticed or self.table.paused:
            return
        device = self.adapter.waiting_for()
        if device is None:
            return
        quiet = now - max(self.state_since, self.last_report)
        if quiet < QUIET_NOTICE:
            return
        self._quiet_noticed = True
        t = self.table
        self.stream.publish({
            "type": "notice", "level": "warning", "ts": now_ts(), "round_id": t.round_id,
            "text": (f"no report from the {device} for {int(quiet)} s while the round is {t.state.value}: "
                     "check the device; the dealer may call a misdeal, a supervisor may void the round"),
        })

    async def _pump_loop(self) -> None:
        while True:
            try:
                wait = await self.call(self._pump_once, publish=False)
            except asyncio.CancelledError:
                raise
            except IllegalAction as exc:
                log.warning("device event refused: %s", exc)
                wait = None
            except Exception:
                log.exception("device event failed")
                self.stream.publish({"type": "notice", "level": "error", "ts": now_ts(),
                                     "text": "a device event could not be handled: see the server log"})
                wait = IDLE_POLL * 10
            # The table's thread answered: it is alive. A hung thread (or a
            # journal that cannot commit) stops the pings, and systemd restarts
            # the table, which recovers its journal.
            self._feed_watchdog()
            await asyncio.sleep(IDLE_POLL if wait is None else max(wait, 0.0))

    def _timer_tick(self) -> bool:
        """Count the bet timer down; True when betting is due to close."""
        t = self.table
        now = time.monotonic()
        elapsed, self._timer_tick_at = now - self._timer_tick_at, now
        if self.timer_remaining is None or t.state is not t.BETTING:
            return False
        if t.paused or (t.blocked):
            return False  # the timer is frozen
        self.timer_remaining -= elapsed
        shown = max(math.ceil(self.timer_remaining), 0)
        if self.timer_remaining > 0:
            if shown != self._timer_shown:
                self._timer_shown = shown
                self.stream.publish({"type": "timer", "round_id": t.round_id, "remaining": shown,
                                     "seconds": self.bet_seconds})
            return False
        if not t.book.bets:
            self.timer_remaining = float(self.bet_seconds)
            self._timer_shown = None
            self.stream.publish({"type": "notice", "level": "info", "ts": now_ts(), "round_id": t.round_id,
                                 "text": "bet timer: no bets on the table, betting stays open"})
            return False
        return True

    def _timer_close(self) -> None:
        t = self.table
        if t.state is t.BETTING and self.timer_remaining is not None and self.timer_remaining <= 0:
            self.timer_remaining = None
            t.close_betting()

    async def _timer_loop(self) -> None:
        while True:
            try:
                if await self.call(self._timer_tick, publish=False):
                    await self.call(self._timer_close, actor="timer")
            except asyncio.CancelledError:
                raise
            except IllegalAction as exc:
                self.stream.publish({"type": "notice", "level": "warning", "ts": now_ts(), "text": str(exc)})
            except Exception:
                log.exception("bet timer failed")
            await asyncio.sleep(0.1)


def _other_round(bet: dict, now: str) -> dict:
    """A bus bet paid for another round than the table's (refused, nothing placed)."""
    reason = f"the bet is for round {bet['round']}, the table's round is {now or 'not open'}"
    return {"ok": False, "round_id": now, "ref": bet["ref"], "error": "refused", "action": "bet", "reason": reason,
            "detail": f"bet refused: {reason}"}
