"""One platform process: its bus connection, its picture of the stream,
its two wallet clients, the bet desk, the orphan sweep and its share of
settlement."""

from __future__ import annotations

import asyncio
import logging
from decimal import Decimal
from pathlib import Path

import nats

from tablesim.platform import balances
from tablesim.platform.backstop import AFTER, Backstop
from tablesim.platform.betdesk import Answer, Desk
from tablesim.platform.decisions import Decisions
from tablesim.platform.faults import NO_FAULTS, Faults
from tablesim.platform.follow import Follower
from tablesim.platform.held import HeldWrites
from tablesim.platform.intents import Intents
from tablesim.platform.orphans import Sweep
from tablesim.platform.rounds import Rounds
from tablesim.platform.sessions import Session, Sessions
from tablesim.platform.settle import ACK_WAIT, DURABLE, Settler
from tablesim.platform.tables import Offer
from tablesim.studio import natsio
from tablesim.studio.trust import Trust
from tablesim.wallet.client import WalletClient

log = logging.getLogger("tablesim.platform")


#: requests of one client at the wallet at once (the rest wait in the platform, unsigned)
IN_FLIGHT = 32


class Platform:
    def __init__(self, *, nats_url: str, wallet_url: str, secret: bytes, offers: dict[str, Offer], db: str | Path,
                 trust: Trust, alert_after: float = 30.0, session_hours: float = 12.0, sweep_every: float = 2.0,
                 durable: str = DURABLE, ack_wait: float = ACK_WAIT, backstop_after: float = AFTER,
                 faults: Faults = NO_FAULTS) -> None:
        """``faults``: the hook asked at the moments a fault run acts at (``faults``;
        none in production: a test's or a script's launcher hands its own)."""
        self.nats_url = nats_url
        self.offers = offers
        self.sessions = Sessions(secret, session_hours)
        self.intents = Intents(db)
        self.held = HeldWrites(self.intents.db, self.intents.lock)
        self.rounds = Rounds()
        # the player waits on the first; cancels wait for ever; credits alert after alert_after, then go on
        self.wallet = WalletClient(wallet_url, secret, attempts=4, give_up_after=10.0,
                                   max_in_flight=IN_FLIGHT)
        self.patient = WalletClient(wallet_url, secret, attempts=None, give_up_after=None,
                                    max_in_flight=IN_FLIGHT // 2)
        self.settling = WalletClient(wallet_url, secret, attempts=None, give_up_after=alert_after,
                                     max_in_flight=IN_FLIGHT)
        self.nc: nats.NATS | None = None
        self.follower = Follower(self._js, trust, self.rounds, lambda: self.nc)
        self.desk = Desk(wallet=self.wallet, patient=self.patient, nc_source=lambda: self.nc, rounds=self.rounds,
                         intents=self.intents, offers=offers, faults=faults)
        self.decisions = Decisions(self.desk)
        self.sweep = Sweep(self.desk, self.follower, every=sweep_every)
        self.settler = Settler(js_source=self._js, nc_source=lambda: self.nc, wallet=self.settling,
                               follower=self.follower, offers=offers, held=self.held,
                               alert_after=alert_after, durable=durable, ack_wait=ack_wait,
                               faults=faults)
        self.settler.on_balance = self._tell_balance
        self.backstop = Backstop(self.settler, self.follower, self.settling, after=backstop_after)
        self.tasks: list[asyncio.Task] = []
        #: the players' socket as a plain ASGI handler, in front of the web framework (``fastbets``)
        self.player_socket = None
        #: the players' pages of this process (``player.routes``), told each balance settlement moved
        self.hub = None

    def _js(self):
        return self.nc.jetstream(timeout=natsio.REQUEST_TIMEOUT)

    async def start(self) -> None:
        """Serve at once; the bus is connected in the background (until it is,
        no table is heard from, so no bet is taken and nothing debited)."""
        self.tasks = [asyncio.ensure_future(self._connect())]

    async def _connect(self) -> None:
        while self.nc is None:
            try:
                self.nc = await nats.connect(natsio.servers(self.nats_url), name="tablesim-platform", max_reconnect_attempts=-1,
                                             reconnect_time_wait=0.5, connect_timeout=2, error_cb=natsio.quiet,
                                             allow_reconnect=True, inbox_prefix=natsio.inbox_prefix(self.nats_url))
            except Exception as exc:
                log.warning("platform: the bus %s cannot be reached: %s", natsio.shown(self.nats_url),
                            f"{type(exc).__name__}: {exc}")
                await asyncio.sleep(1.0)
        try:  # (every process's pages, whichever process settled: ``balances``)
            await self.nc.subscribe(balances.SUBJECT, cb=self._balance_told)
        except Exception as exc:  # (a bus without the subject's permission: the pages ask the wallet, as before)
            log.warning("platform: balances settled elsewhere will not be told at once: %s",
                        f"{type(exc).__name__}: {exc}")
        self.tasks += [asyncio.ensure_future(c) for c in (self.follower.run(), self.sweep.run(), self.settler.run(),
                                                                    self.backstop.run())]

    def _tell_balance(self, player: str, currency: str, balance: Decimal) -> None:
        """A balance settlement moved, told to every platform process (this one too)."""
        nc = self.nc
        if nc is None:
            return
        task = asyncio.ensure_future(nc.publish(balances.SUBJECT, balances.note(player, currency, balance)))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (at most once: the page asks later)

    async def _balance_told(self, msg) -> None:
        got = balances.read(msg.data)
        if got is not None and self.hub is not None:
            self.hub.balance(*got)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for client in (self.wallet, self.patient, self.settling):
            await client.aclose()
        if self.nc is not None:
            await natsio.close(self.nc)
        self.intents.close()

    async def place(self, session: Session, doc: dict) -> Answer:
        """A player's bet, from any of the players' interfaces (``POST /api/bets``,
        the socket's ``bet``): checked, then debited and sent to the table in
        the batches of every bet placed meanwhile (``bets.Desk``); the answer
        once the table took it (or why not, its debit cancelled)."""
        return await self.desk.place(session, doc)

    async def decide(self, session: Session, doc: dict) -> Answer:
        """A player's decision on a table's shared remote hand (``decisions``)."""
        return await self.decisions.decide(session, doc)

    def health(self) -> dict:
        held = self.held.count_open()
        return {"ok": self.nc is not None and self.nc.is_connected and self.settler.stats["alerts"] == 0 and not held,
                "bus": {"url": natsio.shown(self.nats_url), "connected": bool(self.nc and self.nc.is_connected)},
                "stream": {"seq": self.rounds.stream_seq, "caught_up": self.follower.caught_up.is_set(),
                           "rejected": self.follower.rejected},
                "bets": dict(self.desk.counts), "decisions": dict(self.decisions.counts),
                "requests": {**self.desk.batches(), "stream_reads": self.follower.fetches},
                "intents": self.intents.counts(),
                "orphans_cancelled": self.sweep.orphans_cancelled, "settlement": dict(self.settler.stats),
                "backstop": {"checked": self.backstop.checked, "settled": self.backstop.settled},
                "stream_read_again": {"renumbered": self.follower.renumbered, "passed_over": self.follower.again},
                "held": held, "last_alert": self.settler.last_alert}
