"""The fan-out of one platform process: every record the process's follower
reads (it reads the whole stream once, for all its players) goes through
each table's public view once; a message shown is serialised once and
framed once, and what a table shows within ``FLUSH_EVERY`` goes to each of
its watchers in one write of the same bytes, straight to the connection
(``tablesim.web.wsframes``; through a bounded queue per player on
another server). A player too far behind is dropped (their page
reconnects and is given the table again), never waited for: one slow phone
never holds the others back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from datetime import datetime
from itertools import islice

from tablecore import betbatch
from tablesim.platform.player.layouts import game_of, table_layout
from tablesim.platform.player.inforce import ROUND_RECORD, layout_in_force
from tablesim.platform.player.public import PublicTable, outcome, short
from tablesim.platform.player.recall import Recall, entry
from tablesim.platform.rounds import BETTING
from tablesim.platform.tables import Offer
from tablesim.web.wsframes import Wire, text_frame
from tablesim.studio.wire import WireRecord

log = logging.getLogger("tablesim.platform")

#: messages waiting for one player before they are dropped as too slow
QUEUE = 512
#: bets a connection remembers it was answered ``placed`` for (more: it forgets them, and gets ``mine`` again)
TOLD = 1000
#: a round's public events kept for a player who comes in mid-round
ROUND_EVENTS = 1000
#: results per table in the lobby
LAST_RESULTS = 10
#: results kept per table for the table's roadmap (its recent results, given with the table)
ROADMAP = 50
#: the whole lobby goes to the players looking at it at most this often (seconds)
LOBBY_EVERY = 0.5
#: a table's watchers are written to at most this often (seconds) while its records stream in;
#: the first after a quiet spell goes at once (a write a player costs as much as its bytes)
FLUSH_EVERY = 0.02


#: compact JSON, the encoder made once (``json.dumps`` with arguments makes one a call)
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def dumps(msg) -> str:
    return _ENCODE(msg)


class Client:
    """One socket's sending side. With a ``wire`` (the platform's own server):
    frames written to the connection at once, a client more than the wire's
    bytes behind dropped. Without (another ASGI server, the tests): texts in
    a bounded queue that the socket's writer sends."""

    def __init__(self, player: str, limit: int = QUEUE, wire: Wire | None = None) -> None:
        self.player = player
        self.wire = wire
        self.queue: asyncio.Queue[str | None] | None = asyncio.Queue(limit) if wire is None else None
        self.table: str | None = None
        self.gone: str | None = None  # why the hub let it go
        self.told: set[str] = set()  # bet ids this connection's own requests were answered ``placed`` for
        #: bet ids this connection's own requests placed, their answers still to come (at most the
        #: socket's requests in flight): their record is usually read before the table's reply
        self.coming: set[str] = set()
        #: of those, the ones a record held already: (table, round) the answer's ``mine`` would be of
        self.owed: dict[str, tuple[str, str]] = {}

    def placed(self, bet_id: str) -> None:
        """This connection was answered ``placed`` for ``bet_id``: its page shows
        the bet already, so the bet's record need not send it ``mine``."""
        if len(self.told) >= TOLD:
            self.told.clear()
        self.told.add(bet_id)

    def expects(self, bet_id: str) -> None:
        """A bet of this connection's is on its way under ``bet_id``: its answer will come here."""
        self.coming.add(bet_id)

    def answered(self, bet_id: str, placed: bool) -> tuple[str, str] | None:
        """``bet_id``'s answer is going to this connection. The (table, round) whose
        ``mine`` it is owed: a record held the bet and the answer does not say
        ``placed`` (no answer came from the table, and the bet stood); else None."""
        self.coming.discard(bet_id)
        owed = self.owed.pop(bet_id, None)
        if placed:
            self.placed(bet_id)
            return None
        return owed

    def put(self, text: str) -> bool:
        if self.wire is not None:
            return self.deliver((text,), text_frame(text.encode()))
        if self.gone:
            return False
        try:
            self.queue.put_nowait(text)
            return True
        except asyncio.QueueFull:
            self.drop("too_slow")
            return False

    def deliver(self, texts: tuple[str, ...] | list[str], frames: bytes) -> bool:
        """Messages (their texts, and the same framed as one run of bytes)."""
        if self.gone:
            return False
        if self.wire is None:
            return all(self.put(t) for t in texts)
        if self.wire.write(frames):
            return True
        self.drop("too_slow" if self.wire.open else "closed")
        return False

    def drop(self, why: str) -> None:
        """Stop sending: what waits is thrown away and the connection closed
        (the writer told to close it, or, on a wire, dropped at once)."""
        self.gone = why
        if self.wire is not None:
            self.wire.abort()
            return
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)


class LiveTable:
    """A table as its players see it now."""

    def __init__(self, offer: Offer, game: str) -> None:
        self.offer = offer
        self.view = PublicTable(offer.table, game)
        self.events: deque[dict] = deque(maxlen=ROUND_EVENTS)  # the current round's, shown
        self.results: deque[dict] = deque(maxlen=ROADMAP)
        self.timer: dict | None = None
        self.watchers: set[Client] = set()
        self.pending: list[str] = []  # shown, not yet sent to the watchers (sent together)
        self.lobby_due = False  # the watchers get the table's line of the lobby with what is pending
        self.line_players = -1  # the players count of the last line they got
        self.flush_due = False
        self.flushed_at = 0.0
        #: the layout and limits under the profile the table's last round began under (None: the game's default)
        self.in_force: dict | None = None

    def summary(self) -> dict:
        v = self.view
        drawn = table_layout(self.offer)
        if self.in_force is not None and "layout" in drawn:
            drawn = {**drawn, **self.in_force}
        return {**drawn, "state": v.state, "round_id": v.round_id, "betting": v.state == BETTING,
                "players": len(self.watchers), "last": list(islice(self.results, LAST_RESULTS)), "timer": self.timer}


class Hub:
    """Messages to a table's watchers are serialised once and framed once,
    and what is shown in one turn of the event loop (a fetch of records, a
    state change with its lobby line) goes to each watcher as one write.
    The whole lobby goes only to the players looking at it, at most every
    ``LOBBY_EVERY``; a player at a table gets that table's line of it."""

    def __init__(self, offers: dict[str, Offer], rounds) -> None:
        self.rounds = rounds
        self.recall = Recall(rounds)
        self.tables = {t: LiveTable(o, g) for t, o in offers.items() if (g := game_of(o)) is not None}
        self.clients: set[Client] = set()
        self.in_lobby: set[Client] = set()  # the clients watching no table
        self.by_player: dict[str, set[Client]] = {}
        self.counts = {"shown": 0, "sent": 0, "dropped": 0}
        self._lobby_due = False
        self._held: dict[Client, list[str]] | None = None  # (inside ``held``: each client's messages kept)

    # --- players ---------------------------------------------------------------

    def join(self, player: str, wire: Wire | None = None) -> Client:
        client = Client(player, wire=wire)
        self.clients.add(client)
        self.in_lobby.add(client)
        self.by_player.setdefault(player, set()).add(client)
        return client

    def leave(self, client: Client) -> None:
        self.clients.discard(client)
        self.by_player.get(client.player, set()).discard(client)
        if not self.by_player.get(client.player):
            self.by_player.pop(client.player, None)
        self.watch(client, None)
        self.in_lobby.discard(client)

    def watch(self, client: Client, table: str | None) -> dict | None:
        """``client`` watches ``table`` (None: the lobby only): the table's snapshot."""
        if client.table in self.tables:
            self.tables[client.table].watchers.discard(client)
        client.table = table if table in self.tables else None
        if client.table is None:
            if client in self.clients:
                self.in_lobby.add(client)
            return None
        self.in_lobby.discard(client)
        live = self.tables[client.table]
        self.flush(live)  # (what is pending is in the snapshot's events: not sent to this one again)
        live.watchers.add(client)
        return {"type": "table", **live.summary(), "events": list(live.events), "roadmap": list(live.results),
                "mine": self.recall.open_bets(client.player, live.offer.table, live.view.round_id)}

    def lobby(self) -> dict:
        return {"type": "lobby", "tables": [t.summary() for t in self.tables.values()]}

    # --- the stream ------------------------------------------------------------

    def take(self, rec: WireRecord, stream_seq: int) -> None:
        """A record the follower read, signed by its table (after the picture took it)."""
        live = self.tables.get(rec.table_id)
        if live is None:
            return
        if rec.name == "bet_refs" or rec.name == betbatch.NAME:
            # (only this record's refs: a round's thousands of bets, each noted once)
            refs = self.rounds.round(rec.table_id, rec.round_id).refs
            owners: dict[str, set[str]] = {}
            for entry in rec.data.get("refs" if rec.name == "bet_refs" else "bets") or []:
                ref = refs.get(str(entry[0])) if isinstance(entry, list) and entry else None
                if ref is not None:
                    owners.setdefault(ref.owner, set()).add(ref.ref)
            for owner in owners:  # (once a player: each of their bets in it notes the same round)
                self.recall.note(owner, rec.table_id, rec.round_id)
            self._mine(live, rec.round_id, owners)
            return
        if rec.kind == "event" and rec.name == "result":
            self._result(live, rec)
            return
        if (rec.kind, rec.name) == ROUND_RECORD:
            self._profile(live, rec)
            return
        msg = live.view.shown(rec)
        if msg is None:
            return
        if rec.name == "state":
            self._state(live, rec)
        live.events.append(msg)
        self.publish(live, msg)
        if rec.name == "state" and live.line_players != len(live.watchers):
            self.lobby_changed(live)  # (its watchers follow the state from the event: the count is news)
        elif rec.name == "state":
            self._lobby_soon()

    def _mine(self, live: LiveTable, round_id: str, owners: dict[str, set[str]]) -> None:
        """Each of this process's players whose bets a record holds, watching
        the table, gets their standing bets again: a page that came back
        (a reload) between its bet and the record, or another of the player's
        pages, learns of the bet here. A connection that was itself answered
        ``placed`` for each of the record's bets of that player shows them
        already and is not sent them again (at 2,000 bets a second, the list
        again at every bet was about a third of the platform's CPU a bet);
        nor is one whose answers for them are still on their way (the record
        usually comes first: under load, for nine bets in ten), unless the
        answer then does not say ``placed`` (``Client.answered``)."""
        table = live.offer.table
        for player in owners.keys() & self.by_player.keys():
            refs = owners[player]
            watching = []
            for c in self.by_player[player]:
                unsaid = refs - c.told if c in live.watchers else None
                if not unsaid:  # (not watching this table, or answered ``placed`` for them all)
                    continue
                if unsaid <= c.coming:
                    # (their answers are on the way to this connection: ``placed`` says it; any
                    # other answer sends ``mine`` then, ``send_mine``)
                    for ref in unsaid:
                        c.owed[ref] = (table, round_id)
                    continue
                watching.append(c)
            if watching:
                text = self._mine_text(player, table, round_id)
                for client in watching:
                    self._send(client, text)

    def _mine_text(self, player: str, table: str, round_id: str) -> str:
        """The ``mine`` message: ``player``'s standing bets in ``round_id`` of ``table``."""
        return dumps({"type": "mine", "table": table, "round_id": round_id,
                      "mine": self.recall.open_bets(player, table, round_id)})

    def balance(self, player: str, currency: str, balance: str) -> None:
        """``player``'s balance as the wallet answered a credit or cancel of settlement,
        to each of their pages (``tablesim.platform.balances``)."""
        clients = self.by_player.get(player)
        if clients:
            text = dumps({"type": "balance", "balance": balance, "currency": currency})
            for client in list(clients):
                self._send(client, text)

    def send_mine(self, client: Client, table: str, round_id: str) -> None:
        """``client``'s player's standing bets in ``round_id`` of ``table``, if it
        still watches that table (``Client.answered``: a record held a bet its
        answer did not say was placed)."""
        if client.table == table and table in self.tables:
            self._send(client, self._mine_text(client.player, table, round_id))

    def _profile(self, live: LiveTable, rec: WireRecord) -> None:
        """A round begins under the profile its first record names: the page
        draws the table under it (its watchers get the table's line again
        when it changed)."""
        drawn = layout_in_force(live.view.game, rec.data)
        if drawn != live.in_force:
            live.in_force = drawn
            self.lobby_changed(live)

    def _state(self, live: LiveTable, rec: WireRecord) -> None:
        if rec.data.get("state") == BETTING:
            live.events.clear()
            live.timer = _timer(live.offer, rec)
        elif rec.data.get("previous") == BETTING:
            live.timer = None

    def _result(self, live: LiveTable, rec: WireRecord) -> None:
        rnd = self.rounds.rounds.get((rec.table_id, rec.round_id))
        if rnd is None or rnd.result is None:
            return
        listed = short(live.view.game, rnd.result)  # (the roadmap's and the lobby's, the game's own short result)
        shown = {"type": "outcome", "table": live.offer.table, "round_id": rec.round_id, "seq": rec.seq,
                 **outcome(rnd.result), "short": listed}
        live.results.appendleft({"round_id": rec.round_id, **listed})
        live.events.append(shown)
        self.publish(live, shown)
        # (the table's line of the lobby, its last results now this one, goes out with the outcome:
        # noted after the players' own results, whose first write takes what is pending for the
        # table with it, it went to every watcher in a write of its own, 5,000 writes more a round)
        self.lobby_changed(live)
        owners = set(rnd.owners)
        for player in owners & set(self.by_player):
            mine = dumps({"type": "result", **entry(rnd, player)})
            for client in list(self.by_player.get(player, ())):
                self._send(client, mine)

    # --- sending -----------------------------------------------------------------

    def publish(self, live: LiveTable, msg: dict) -> None:
        """``msg`` to every watcher of ``live``: serialised now, sent with
        whatever else it shows within ``FLUSH_EVERY``."""
        self.counts["shown"] += 1
        live.pending.append(dumps(msg))
        self._flush_soon(live)

    def lobby_changed(self, live: LiveTable) -> None:
        """The table's line of the lobby changed: its watchers get it with
        what is pending, the lobby's players the whole lobby (coalesced)."""
        live.lobby_due = True
        self._flush_soon(live)
        self._lobby_soon()

    def _lobby_soon(self) -> None:
        if self._lobby_due or not self.in_lobby:
            return
        self._lobby_due = True
        loop = _loop()
        if loop is None:
            self.send_lobby()
        else:
            loop.call_later(LOBBY_EVERY, self.send_lobby)

    def send_lobby(self) -> None:
        self._lobby_due = False
        if self.in_lobby:
            self._to(list(self.in_lobby), [dumps(self.lobby())])

    def _flush_soon(self, live: LiveTable) -> None:
        if live.flush_due:
            return
        loop = _loop()
        if loop is None:  # (no loop: a test walking records; sent at once)
            self.flush(live)
            return
        live.flush_due = True
        wait = live.flushed_at + FLUSH_EVERY - loop.time()
        if wait > 0:
            loop.call_later(wait, self.flush, live)
        else:
            loop.call_soon(self.flush, live)

    def flush(self, live: LiveTable) -> None:
        """What is pending for ``live``'s watchers, to each in one write."""
        live.flush_due = False
        texts, live.pending = live.pending, []
        if live.lobby_due:
            live.lobby_due = False
            live.line_players = len(live.watchers)
            texts.append(dumps({"type": "lobby", "tables": [live.summary()]}))
        loop = _loop()
        if loop is not None:
            live.flushed_at = loop.time()
        if texts and live.watchers:
            self._to(list(live.watchers), texts)

    def _to(self, clients: list[Client], texts: list[str]) -> None:
        frames = b"".join(text_frame(t.encode()) for t in texts)  # (once, whoever gets them)
        for client in clients:
            if client.deliver(texts, frames):
                self.counts["sent"] += len(texts)
            else:
                self._gone(client)

    @contextlib.contextmanager
    def held(self):
        """Messages to single clients (``_send``) kept while inside, then written
        to each client in one write, in the order they were sent (a batch of bets'
        answers: one write a socket, not one a bet, in the same turn of the loop)."""
        if self._held is not None:  # (held already: the outer one writes)
            yield
            return
        self._held = {}
        try:
            yield
        finally:
            held, self._held = self._held, None
            for client, texts in held.items():
                self._send_all(client, texts)

    def _send(self, client: Client, text: str) -> None:
        """A message for one client, after what is pending for its table."""
        if self._held is not None:
            self._held.setdefault(client, []).append(text)
            return
        self._send_all(client, (text,))

    def _send_all(self, client: Client, texts: list[str] | tuple[str, ...]) -> None:
        live = self.tables.get(client.table) if client.table else None
        if live is not None and (live.pending or live.lobby_due):
            self.flush(live)
        if client.gone:
            return
        if len(texts) == 1:
            ok = client.put(texts[0])
        else:
            ok = client.deliver(texts, b"".join(text_frame(t.encode()) for t in texts)
                                if client.wire is not None else b"")
        if ok:
            self.counts["sent"] += len(texts)
        else:
            self._gone(client)

    def _gone(self, client: Client) -> None:
        if client in self.clients:
            if client.gone == "too_slow":
                self.counts["dropped"] += 1
                log.info("platform: a player's socket was dropped: too far behind")
            self.leave(client)


def _loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _timer(offer: Offer, rec: WireRecord) -> dict | None:
    """When betting closes by the table's timer (epoch ms), from when the table opened it."""
    if not offer.bet_seconds:
        return None
    try:
        opened = datetime.fromisoformat(rec.ts).timestamp()
    except ValueError:
        opened = time.time()
    return {"round_id": rec.round_id, "seconds": offer.bet_seconds,
            "closes_at": int((opened + offer.bet_seconds) * 1000)}


def tap(rounds, hub: Hub) -> None:
    """Hand every record the picture takes to the hub too (after it): the
    follower and the picture stay as they are, the hub is one more reader."""
    apply = rounds.apply

    def apply_and_show(rec: WireRecord, stream_seq: int) -> None:
        apply(rec, stream_seq)
        try:
            hub.take(rec, stream_seq)
        except Exception:  # the players' view must never stop the money's picture
            log.exception("platform: showing record %s of %s", rec.seq, rec.table_id)

    rounds.apply = apply_and_show
