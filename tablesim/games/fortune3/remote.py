"""The shared remote hand of a Fortune 3 profile with ``[remote]``
(``macau-2008-remote``): one more position, dealt like a box after the
last box and before the dealer, on which any number of remote players bet,
each with their own Ante and Pair Plus. Each remote player plays or folds
alone within the decision timer; when it runs out (``close_decisions``,
asked by whoever runs the timer) every remote player who has not decided
folds. Each is settled exactly as a box (Art. 8-10) with the remote hand's
cards and their own decision.

A mixin of ``Fortune3Table``: it reads the table's book, hands and
profile. A remote player's decision may carry the platform's ``ref`` (the
id of its Play debit): a decision sent again with the same ref is known
(``remote_refs``) and never taken twice.

Below the mixin, the hand as the game's spec gives it to the rest (its
``remote`` part, ``VIEW``): the served table's decision timer and the
platform's decisions drive it through ``Fortune3Hand``, and the platform's
page lists and ranks its rounds through ``Fortune3View``.
"""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

from tablecore.cards import parse_dealt
from tablecore.errors import InputError
from tablecore.money import ZERO, add, fmt
from tablesim.engine.machine import Refused
from tablesim.games.fortune3.hands import classify
from tablesim.games.fortune3.profile import REMOTE
from tablesim.games.fortune3.machine import Decision
from tablesim.games.fortune3.machine import WORDS as W
from tablesim.games.gamespec import Felt, Follower, RemoteView, SharedHand


class RemoteHandMixin:
    @property
    def has_remote(self) -> bool:
        return self.profile.remote is not None

    def remote_seat_refusal(self, player: str) -> str | None:
        """Who may bet on the remote hand: named players, who bet on no box."""
        if player == REMOTE:
            return "the remote hand takes the bets of named remote players: name the player"
        for box, per in self.book.by_player.items():
            if box != REMOTE and player in per:
                return f"{player} sits at box {box}: a remote player bets on the remote hand only"
        return None

    def remote_players(self) -> list[str]:
        """The remote players with an Ante: each has a decision to make."""
        return [p for p, bets in self.book.player_bets(REMOTE).items() if "ante" in bets]

    def pending_remote(self) -> list[str]:
        if self.round.remote_closed:
            return []
        return [p for p in self.remote_players() if p not in self.round.remote_decisions]

    def check_remote_decision(self, decision: str, player: str | None, ref: str | None) -> None:
        if player is None:
            raise Refused(W("fortune3.refusal.remote_names_player"))
        if self.book.get(REMOTE, "ante", player) is None:
            raise Refused(W("fortune3.refusal.remote_no_ante", player=player))
        if player in self.round.remote_decisions:
            said = "remote_timed_out" if player in self.round.remote_timed_out else "remote_already_decided"
            raise Refused(W(f"fortune3.refusal.{said}", player=player, decision=self.round.remote_decisions[player]))
        if self.round.remote_closed:
            raise Refused(W("fortune3.refusal.remote_timer_over", player=player))
        if ref is not None and ref in self.round.remote_refs:
            raise Refused(W("fortune3.refusal.decision_ref_taken", ref=ref))

    def decide_remote(self, decision: str, player: str, ref: str | None) -> None:
        self.round.remote_decisions[player] = decision
        if ref is not None:
            self.round.remote_refs[ref] = (player, decision)
        if self.heard():
            extra: dict = {"ref": ref} if ref is not None else {}
            if decision == "play":
                extra["stake"] = fmt(self.book.get(REMOTE, "ante", player))
            self.emit(Decision(box=REMOTE, decision=decision, player=player, **extra))

    def fold_undecided(self) -> list[str]:
        """The timer ran out: every remote player not decided folds."""
        late = self.pending_remote()
        for player in late:
            self.round.remote_decisions[player] = "fold"
            self.round.remote_timed_out.append(player)
            if self.heard():
                self.emit(Decision(box=REMOTE, decision="fold", player=player, timed_out=True))
        self.round.remote_closed = True
        return late

    def remote_stakes(self, placed: dict[str, Decimal], player: str | None) -> dict[str, Decimal]:
        """The remote hand's stakes at risk: a player's bets and their Play if
        they played; for the hand as a whole, the Play of every player who played."""
        out = dict(placed)
        if player is not None:
            if "ante" in placed and self.round.remote_decisions.get(player) == "play":
                out = _with_play(placed, placed["ante"])
            return out
        play = ZERO
        for who, bets in self.book.player_bets(REMOTE).items():
            if "ante" in bets and self.round.remote_decisions.get(who) == "play":
                play = add(play, bets["ante"])
        return _with_play(placed, play) if play else out

    def remote_outcome(self) -> dict:
        """What the round records of the remote hand: who decided what, who
        the timer folded, and what the profile changes (with the articles)."""
        return {
            "profile": self.profile.name,
            "players": len(self.book.players_at(REMOTE)),
            "decisions": dict(sorted(self.round.remote_decisions.items())),
            "timed_out": sorted(self.round.remote_timed_out),
            "decision_seconds": self.profile.remote.decision_seconds,
            "changes": list(self.profile.remote.changes),
        }


def _with_play(placed: dict[str, Decimal], play: Decimal) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for bet, amount in placed.items():
        out[bet] = amount
        if bet == "ante":
            out["play"] = play
    return out


def summed(per_player: dict[str, dict[str, Decimal]]) -> dict[str, Decimal]:
    """The remote hand's result as a position: every remote player's, per bet."""
    out: dict[str, Decimal] = {}
    for results in per_player.values():
        for bet, value in results.items():
            out[bet] = add(out.get(bet, ZERO), value)
    return out


# --- what the platform's remote players see (the spec's ``remote`` part) ----------------------------------------

def _texts(pays: dict) -> dict[str, str]:
    return {k: format(v, "f") for k, v in pays.items()}


class Fortune3Hand(SharedHand):
    """The remote hand as the server and the platform drive it: a Play
    stakes the player's Ante again (Art. 9(1)); whoever has not decided when
    the timer runs out folds."""

    position = REMOTE
    deciding = "decisions"
    decisions = ("play", "fold")
    default = "fold"
    stakes = MappingProxyType({"play": "ante"})

    def active(self, table) -> bool:
        return getattr(getattr(table, "profile", None), "remote", None) is not None

    def seconds(self, table) -> int:
        return table.profile.remote.decision_seconds

    def pending(self, table) -> list[str]:
        return table.pending_remote()

    def close(self, table) -> None:
        table.close_decisions()

    def decide(self, table, player: str, decision: str, ref: str | None) -> None:
        table.decide(REMOTE, decision, player, ref)


class RankOfRemoteHand(Follower):
    """The remote hand's third card carries the hand's rank (its category):
    the remote players decide on it, and the page names it as the table's rules do."""

    def __init__(self) -> None:
        self._round, self._cards = "", []  # the round and its remote hand's cards, as shown

    def shown(self, msg: dict) -> dict:
        data = msg.get("data") or {}
        if msg.get("kind") != "card" or data.get("to") != REMOTE:
            return msg
        if self._round != msg.get("round_id"):
            self._round, self._cards = msg.get("round_id") or "", []
        self._cards.append(str(data.get("card") or ""))
        if len(self._cards) != 3:
            return msg
        try:
            category, _ = classify([parse_dealt(c).card for c in self._cards])
        except InputError:  # (a card not shown face up: no rank to name)
            return msg
        return {**msg, "data": {**data, "hand": category}}


class Fortune3View(RemoteView):
    """Remote players bet on the shared remote hand of the profile that has one."""

    box = REMOTE
    scene = "hands"
    #: the Ante's and the Pair Plus's betting circles
    felt = Felt(circles=True)
    profile = "macau-2008-remote"
    hand = Fortune3Hand()

    def short(self, outcome: dict) -> dict:
        dealer = outcome.get("dealer") or {}
        return {"hand": dealer.get("hand"), "qualifies": dealer.get("qualifies")}

    def rules(self, profile) -> dict:
        return {"ante_pays": format(profile.ante_pays, "f"), "play_pays": format(profile.play_pays, "f"),
                "ante_bonus": _texts(profile.ante_bonus), "pair_plus": _texts(profile.pair_plus),
                "ranking": list(profile.ranking),
                "qualifier": {"category": profile.qualifier_category, "high_card": profile.qualifier_high_card}}

    def follower(self) -> Follower:
        return RankOfRemoteHand()


VIEW = Fortune3View()
