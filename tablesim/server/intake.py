"""Bet intake with group commit: many bets, one journal transaction, one fsync.

A live table takes thousands of bets in a betting window. Committing each in
its own transaction costs a full fsync per bet (a few hundred bets a second).
Here the bets that arrive together are validated one by one, in arrival
order, by the table's own ``place_bet`` (its rules, limits, pause and
incident checks, the same refusal texts as a single bet), all inside ONE
journal transaction; the transaction commits (with ``synchronous=FULL``)
and only then is every bet of the group answered. A refused bet changed
nothing (its checks come before its bet) and the others go on; if the
commit itself fails, the whole group is answered with the error and the
table's bet book is put back as it was: nothing is acknowledged that is not
on disk.

The group's accepted bets are journaled as ONE record (``input``
``place_bets``, ``tablecore.betbatch``: ``[ref, position, bet, amount,
player]`` each, and their Merkle root), in the same transaction: each bet
is checked and placed on its own, but neither its input nor a ``bet``
event of its own is written or published (the group is one ``bets_placed``
event for the table's listeners), so a bet costs a share of one record's
hash, commit, signature and message. A replay places the record's bets
again in order. Older journals hold a ``place_bet`` input and a ``bet``
event per bet and ``bet_refs`` records of up to 16 refs; every reader takes
both.

A bet may carry a ``ref``: the client's own id for it, journaled in its
group's record and indexed (``tablesim.journal.refs``), so a client that
lost the answer (a dropped connection, a table restarted after a crash)
sends the bet again with the same ref and is told it already stands
(``duplicate``) instead of betting twice. A ref is the player's own: two
players may use the same one (a bet with no player is the position's
seat's, as everywhere). An older journal's refs name no player
(``[ref, position, bet, amount]``): they stand for whoever sends them.

Two ways in:

- ``commit_bets(table, requests, refs)``: on the table's thread, synchronous;
  the caller owns the thread (a script, the studio's bus worker);
- ``BetIntake``: the asyncio side of a table served by one worker thread
  (``tablesim serve``, the studio): ``await intake.submit([...])`` from any
  number of callers; while one group commits, the next gathers.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Awaitable, Callable, Iterable, Sequence

from tablecore import betbatch
from tablecore.errors import IllegalAction, InputError
from tablecore.money import parse_amount
from tablecore.wording import CORE_WORDS as W, message_of
from tablecore.frozen import built
from tablecore.records import BetsPlaced
from tablesim.engine.actions import in_a_row
from tablesim.engine.inputs import PlaceBet
from tablesim.engine.table import GameTable
from tablesim.journal.refs import ANY_PLAYER, SEAT, ensure_index, index, placed_many
from tablesim.studio import receipts

#: the most bets committed in one transaction (a longer queue is split)
MAX_GROUP = 2000


@dataclass(frozen=True)
class BetRequest:
    """One bet as asked: ``position`` (box, player), ``bet`` (bet name or
    spot), ``amount`` (exact: parsed where the request came in, once), who asks
    (``actor``, as the journal names them) and the client's ``ref``."""

    position: str
    bet: str
    amount: Decimal
    actor: str = "player"
    ref: str | None = None
    #: whose bet it is; None: the position's own seat
    player: str | None = None


def bet_request(position: str, bet: str, amount: Decimal, actor: str = "player", ref: str | None = None,
                player: str | None = None) -> "BetRequest":
    """``BetRequest(...)``, built at once (the batch route builds thousands a second)."""
    return built(BetRequest, {"position": position, "bet": bet, "amount": amount, "actor": actor, "ref": ref,
                              "player": player})


@dataclass(frozen=True)
class BetOutcome:
    """What a bet request got, once its group is on disk. ``error`` is
    ``refused`` (the table's rules: ``action`` and ``reason`` as for a single
    bet) or ``bad_input``; ``duplicate``: the ref was already placed
    (``round_id`` says in which round)."""

    ok: bool
    round_id: str = ""
    error: str | None = None
    action: str | None = None
    reason: str | None = None
    detail: str | None = None
    duplicate: bool = False
    ref: str | None = None
    #: where the bet stands: its group's ``place_bets`` record and its place in it (None: not placed now)
    seq: int | None = None
    at: int | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "round_id": self.round_id}
        if self.ref is not None:
            out["ref"] = self.ref
        if self.duplicate:
            out["duplicate"] = True
        if self.error is not None:
            out["error"] = self.error
            if self.action is not None:
                out["action"] = self.action
                out["reason"] = self.reason
                said = message_of(self.reason)
                if said is not None:  # the reason's message id and values (a page words it in its language)
                    out["say"] = said
            out["detail"] = self.detail
        return out

    def raise_refusal(self) -> None:
        """The refusal as the exception a single bet raises (nothing if accepted)."""
        if self.ok:
            return
        if self.error == "refused":
            raise IllegalAction(self.action or "bet", self.reason or "")
        raise InputError(self.detail or "bad bet")


def _accepted(round_id: str, ref: str | None, seq: int | None = None, at: int | None = None) -> BetOutcome:
    """``BetOutcome(True, round_id, ref=ref, seq=seq, at=at)``, built at once (a group builds thousands)."""
    return built(BetOutcome, {"ok": True, "round_id": round_id, "error": None, "action": None, "reason": None,
                              "detail": None, "duplicate": False, "ref": ref, "seq": seq, "at": at})


def refused(exc: IllegalAction, ref: str | None = None, round_id: str = "") -> BetOutcome:
    return BetOutcome(False, round_id, "refused", exc.action, exc.reason, str(exc), ref=ref)


def bad_input(detail: str, ref: str | None = None) -> BetOutcome:
    return BetOutcome(False, error="bad_input", detail=detail, ref=ref)


class BetRefs:
    """The refs the table has placed bets under: what a retried bet is
    checked against. Every ref of the journal's whole life is indexed in the
    journal (``tablesim.journal.refs``); ``by_ref`` holds the refs of the
    group being placed (and, without a journal, every ref placed)."""

    def __init__(self) -> None:
        #: (player, ref) -> (round, (position, bet, amount))
        self.by_ref: dict[tuple[str | None, str], tuple[str, tuple[str, str, str]]] = {}
        #: the journal's entries under the refs of the group being placed (looked up once per group)
        self.known: dict[tuple[str, str], tuple[str, tuple[str, str, str]]] = {}
        #: the record the last group was journaled as (its bets' receipts are made of it)
        self.written = None

    def load(self, journal, table_id: str) -> "BetRefs":
        """Make sure the journal's index holds every ref its chain does (at start)."""
        ensure_index(journal, table_id)
        return self

    def prefetch(self, journal, table_id: str, requests: Sequence["BetRequest"]) -> None:
        """The journal's entries under the group's refs, in one query."""
        wanted = [req.ref for req in requests if req.ref is not None]
        self.known = placed_many(journal, table_id, wanted) if wanted else {}

    def find(self, player: str | None, ref: str) -> tuple[str, tuple[str, str, str]] | None:
        got = self.by_ref.get((player, ref))  # (the group's own: by the player who placed it)
        if got is None and self.known:
            got = self.known.get((SEAT if player is None else player, ref)) or self.known.get((ANY_PLAYER, ref))
        return got


def commit_bets(table: GameTable, requests: Sequence[BetRequest], refs: BetRefs | None = None) -> list[BetOutcome]:
    """Place ``requests`` in order on ``table`` (its thread), in one journal
    transaction; returns one outcome per request once it is committed.
    ``refs``: the table's placed refs (checked, and journaled with the group);
    None places every bet and ignores the refs.

    Raises what the commit raised (the journal failed): then nothing of the
    group stands, neither in the journal nor in the table's bet book.
    """
    journal = table.journal
    outcomes: list[BetOutcome] = []
    if journal is None:
        for req in requests:
            outcomes.append(_place(table, req, refs, None, amount=str(req.amount)))
        return outcomes
    book = table.book
    undo: list[tuple] = []  # what each accepted bet replaced (``BetBook.mark``), to put back
    added: list[tuple[str | None, str]] = []  # (player, ref) this group placed, to forget if it fails
    batch: list[list] = []  # the group's accepted bets, as its one record holds them
    placed_at: list[int] = []  # where each of them is in ``outcomes``
    actor = None
    try:
        with journal.transaction(group=True):
            if refs is not None:
                refs.prefetch(journal, table.table_id, requests)
            table.batching = True
            seq = journal.seq + 1  # the group's record, written once its bets are placed
            place = in_a_row(table, "place_bet")
            try:
                for req in requests:
                    # Noted before the bet: a journal failure half-way through
                    # it has already changed the book.
                    undo.append(book.mark(str(req.position), req.bet, req.player))
                    amount = str(req.amount) if type(req.amount) is Decimal else None  # (as the record writes it)
                    outcome = _place(table, req, refs, journal, seq, len(batch), amount, place)
                    if not outcome.ok or outcome.duplicate:
                        undo.pop()  # a refused bet changed nothing
                    else:
                        if req.ref is not None:
                            added.append((req.player, req.ref))
                        actor = req.actor if actor is None else actor
                        if amount is None:  # (an amount given as text: placed, it is one)
                            amount = _text(req.amount)
                        batch.append(betbatch.entry(req.ref, str(req.position), req.bet, amount, req.player,
                                                    None if req.actor == actor else req.actor))
                        placed_at.append(len(outcomes))
                    outcomes.append(outcome)
            finally:
                table.batching = False
            if batch:
                # One record for the group: its bets, their refs, their Merkle root (hashed,
                # committed, signed and published once, not about twice a bet)
                texts: list[str] = []
                tree = betbatch.levels(batch, texts)
                root = betbatch.root(batch, tree)
                record = journal.append(table.table_id, table.round_id, betbatch.KIND, betbatch.NAME,
                                        {"bets": batch, "root": root}, actor or "",
                                        betbatch.record_text(texts, root))
                receipts.remember_tree(batch, tree, texts)  # (the receipts' paths and bets read the same)
                if table.observed:  # (one event for the group: its listeners read its bets from the record's entries)
                    table.emit(BetsPlaced(batch))
                if refs is not None:
                    refs.written = record
                    if added:
                        index(journal, table.table_id, table.round_id, record.seq,
                              [e for e in batch if e[0] is not None])
                if record.seq != seq:  # (a record the bets' action wrote came first: not the usual case)
                    for at, i in enumerate(placed_at):
                        outcomes[i] = built(BetOutcome, {**outcomes[i].__dict__, "seq": record.seq, "at": at})
    except BaseException:
        for mark in reversed(undo):
            book.put_back(mark)
        if refs is not None:
            for key in added:
                refs.by_ref.pop(key, None)
        raise
    finally:
        if refs is not None:
            refs.by_ref.clear()  # committed (indexed in the journal) or undone
            refs.known = {}
    return outcomes


def _text(amount: Decimal | str) -> str:
    """An amount as the table's ``bet`` event wrote it (``str`` of the Decimal placed)."""
    return str(amount if type(amount) is Decimal else parse_amount(amount))


def _place(table: GameTable, req: BetRequest, refs: BetRefs | None, journal, seq: int | None = None,
           at: int | None = None, amount: str | None = None, place: Callable[..., Any] | None = None) -> BetOutcome:
    """One bet inside the group's transaction; accepted, it stands at ``at`` in the group's
    record ``seq``. ``amount``: the bet's amount as the record writes it (``_text``), if known;
    ``place``: the group's ``place_bet`` (``in_a_row``)."""
    if refs is not None:
        found = None if req.ref is None else refs.find(req.player, req.ref)
        if found is not None:
            rid, key = found
            if key[:2] == (str(req.position), req.bet) and _same_amount(key[2], req.amount):
                return BetOutcome(True, rid, duplicate=True, ref=req.ref)
            return refused(IllegalAction("bet", W("refusal.ref_used", ref=repr(req.ref))), req.ref,
                           table.round_id)
    # A bet of the position's own seat is placed (and journaled) as
    # ``place_bet(position, bet, amount)``, as a script or a dealer places it.
    try:
        if journal is None:
            table.act(PlaceBet(req.position, req.bet, req.amount, req.player, actor=req.actor))
        else:
            # (the group's one record names its actor: the action itself, checked by its rules, is
            # enough.) A bet of a group writes no record of its own (the group's one record holds
            # it), so it takes no savepoint (a tenth of a bet's cost): one that wrote a record and
            # was then refused fails the whole group, whose transaction then undoes everything.
            before = journal.tip.seq
            try:
                place(req.position, req.bet, req.amount, req.player)
            except (IllegalAction, InputError):
                if journal.tip.seq != before:
                    raise RuntimeError(f"a refused bet (ref {req.ref!r}) wrote to the journal: the group is undone")
                raise
    except IllegalAction as exc:
        return refused(exc, req.ref, table.round_id)
    except InputError as exc:
        return bad_input(str(exc), req.ref)
    if refs is not None and req.ref is not None:
        refs.by_ref[(req.player, req.ref)] = (table.round_id, (str(req.position), req.bet,
                                                               _text(req.amount) if amount is None else amount))
    return _accepted(table.round_id, req.ref, seq, at)


def _same_amount(placed: str, asked: Decimal) -> bool:
    """Whether a ref's placed amount (its text, as journaled) is the one asked again."""
    try:
        return Decimal(placed) == asked
    except ArithmeticError:
        return False


Run = Callable[[Callable[[], Any]], Awaitable[Any]]


class BetIntake:
    """Group commit for a table owned by one worker thread.

    ``run(fn)`` runs ``fn`` on the table's thread and returns its result (the
    server's ``TableRunner.call``). ``submit`` queues a caller's bets; one
    drain task at a time takes everything queued (up to ``MAX_GROUP`` bets),
    commits it with ``commit_bets`` and answers every caller. The first bet
    after a quiet spell is committed at once; bets arriving during a commit
    form the next group, so the group grows with the load and no bet waits
    for a timer.
    """

    def __init__(self, table: GameTable, run: Run, *, refs: BetRefs | None = None, max_group: int = MAX_GROUP) -> None:
        self.table = table
        self.run = run
        self.refs = refs if refs is not None else BetRefs()
        self.max_group = max_group
        self._waiting: list[tuple[list[BetRequest], bool, asyncio.Future]] = []
        self._drain: asyncio.Task | None = None
        #: the records of the latest groups, by seq (what their bets' receipts are made of)
        self.written: dict[int, Any] = {}
        #: groups committed and bets in them (for the benchmark and the log)
        self.groups = 0
        self.bets = 0
        #: the table's metrics (``tablesim.harness.metrics``): told each caller's outcomes and wait, or None
        self.metrics = None

    def load_refs(self) -> None:
        """Read the refs of the latest rounds from the journal (the table's thread)."""
        if self.table.journal is not None:
            self.refs.load(self.table.journal, self.table.table_id)

    async def submit(self, requests: Iterable[BetRequest], *, with_book: bool = False) -> tuple[list[BetOutcome], Any]:
        """Place ``requests``; returns their outcomes (and, with ``with_book``,
        the bet book right after their group) once they are on disk."""
        reqs = list(requests)
        if not reqs:
            return [], None
        started = time.perf_counter()
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self._waiting.append((reqs, with_book, fut))
        if self._drain is None or self._drain.done():
            self._drain = asyncio.create_task(self._drain_all(), name="bet-intake")
        got = await fut
        if self.metrics is not None:
            self.metrics.answered(got[0], started)
        return got

    async def _drain_all(self) -> None:
        while self._waiting:
            group, size = [], 0
            while self._waiting and (not group or size + len(self._waiting[0][0]) <= self.max_group):
                item = self._waiting.pop(0)
                group.append(item)
                size += len(item[0])
            flat = [r for reqs, _, _ in group for r in reqs]
            want_book = any(w for _, w, _ in group)
            table, refs = self.table, self.refs

            def job(flat=flat, want_book=want_book):
                refs.written = None
                outcomes = commit_bets(table, flat, refs)
                return outcomes, (table.book.snapshot() if want_book else None), refs.written

            try:
                outcomes, book, written = await self.run(job)
            except asyncio.CancelledError:
                for _, _, fut in group:
                    if not fut.done():
                        fut.cancel()
                raise
            except BaseException as exc:
                for _, _, fut in group:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            self.groups += 1
            self.bets += len(flat)
            if written is not None:
                if len(self.written) >= 64:  # (the groups whose answers are still being sent)
                    self.written.pop(next(iter(self.written)))
                self.written[written.seq] = written
            at = 0
            for reqs, _, fut in group:
                if not fut.done():
                    fut.set_result((outcomes[at:at + len(reqs)], book))
                at += len(reqs)
