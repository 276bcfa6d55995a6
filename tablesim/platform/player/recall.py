"""A player's own rounds, from the stream's picture (``Rounds``): which
rounds they had bets in, and for each what they bet, what came out and what
each bet and the round returned. Every platform process follows the whole
stream, so any of them answers it, for a player who played through another.
"""

from __future__ import annotations

from collections import OrderedDict

from tablecore.money import ZERO, add, fmt
from tablesim.platform.player.public import outcome
from tablesim.platform.roundcredits import part_of, signed
from tablesim.platform.rounds import Round, Rounds

#: rounds shown (GLI-19: the last game and the nine before it)
RECALL = 10
#: rounds kept per player in the index (the open ones come on top of those shown)
KEPT = 2 * RECALL


class Recall:
    def __init__(self, rounds: Rounds) -> None:
        self.rounds = rounds
        self.index: dict[str, OrderedDict[tuple[str, str], None]] = {}

    def note(self, owner: str, table: str, round_id: str) -> None:
        """``owner`` has a bet in the round (in stream order)."""
        keys = self.index.setdefault(owner, OrderedDict())
        keys[(table, round_id)] = None
        while len(keys) > KEPT:
            keys.popitem(last=False)

    def closed(self, player: str, n: int = RECALL) -> list[dict]:
        """The player's last ``n`` closed rounds, the latest first."""
        out = []
        for key in reversed(self.index.get(player, {})):
            rnd = self.rounds.rounds.get(key)
            if rnd is not None and rnd.closed:
                out.append(entry(rnd, player))
                if len(out) == n:
                    break
        return out

    def open_bets(self, player: str, table: str, round_id: str) -> list[dict]:
        """The player's bets standing in a round still open (the table holds them),
        each spot with the ids of the bets in it: a page that was also answered
        ``placed`` for one of them counts it once (the answer and this list race)."""
        rnd = self.rounds.rounds.get((table, round_id))
        if rnd is None:
            return []
        ids: dict[tuple[str, str], list[str]] = {}
        for ref in rnd.of(player):
            if not ref.withdrawn:
                ids.setdefault((ref.position, ref.bet), []).append(ref.ref)
        return [{**b, "ids": ids.get((b["position"], b["bet"]), [])} for b in _bets(rnd, player)]


def _bets(rnd: Round, player: str) -> list[dict]:
    """The player's standing bets in the round, one per spot (the table settles per spot)."""
    spots: dict[tuple[str, str], object] = {}
    for ref in rnd.of(player):
        if not ref.withdrawn:
            key = (ref.position, ref.bet)
            spots[key] = add(spots.get(key, ZERO), ref.amount)
    return [{"position": p, "bet": b, "amount": fmt(a)} for (p, b), a in spots.items()]


def _nets(result: dict, player: str) -> dict:
    """position -> bet -> net of the player, as the result records them."""
    named = (result.get("players") or {}).get(player)
    if isinstance(named, dict):
        return named.get("results") or {}
    return {player: (result.get("results") or {}).get(player) or {}}


def entry(rnd: Round, player: str) -> dict:
    """One closed round of the player: bets with their nets, the outcome, the round's net and return."""
    result = rnd.result or {}
    part = part_of(rnd, player)
    bets = _bets(rnd, player)
    nets = _nets(result, player) if result.get("status") == "settled" else {}
    for bet in bets:
        raw = (nets.get(bet["position"]) or {}).get(bet["bet"])
        try:
            bet["net"] = fmt(signed(raw)) if raw is not None else None
        except ValueError:
            bet["net"] = None
    void = result.get("status") == "void"
    return {"table": rnd.table, "round_id": rnd.round_id, "seq": rnd.result_stream_seq, "bets": bets,
            **outcome(result),
            "net": "0" if void or part is None else fmt(part.net),
            "returned": fmt(part.staked) if void and part else fmt(part.credit) if part else "0"}
