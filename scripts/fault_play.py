"""The play of a wallet fault run (scripts/wallet_faults.py): players'
bets through the platforms' HTTP API, each table's rounds driven through
its dealer's API, and the kills at random moments meanwhile.

Every step is read from the table's state, never assumed: a table killed
under a request comes back with its round recovered, and the driver goes
on from the state it finds."""

from __future__ import annotations

import concurrent.futures
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass

import httpx

from fault_procs import Child, PlatformProc, Table, wait_until
import webclient  # (on the path fault_procs puts it on)

WHEEL = ("1", "3", "5", "10", "20", "joker", "logo")
FOOTBALL = ("upper", "lower", "odd", "even", "middle")
FORTUNE3_BOXES = 7
FOOTBALL_BOXES = [str(b) for b in range(1, 11)] + ["common"]
#: how long a round's step may wait for a table (or its restart): pure waiting
BUDGET = 180.0


@dataclass
class Player:
    id: str
    session: str


class Bets:
    """Players' bets through whichever platform is up; the answers counted."""

    def __init__(self, platforms: list[PlatformProc], rng: random.Random, workers: int = 16) -> None:
        self.platforms = platforms
        self.rng = rng
        self.lock = threading.Lock()
        self.answers: Counter = Counter()
        self.players: set[str] = set()  # who bet through the platforms' API
        self.samples: dict[str, list] = {}  # a few messages of each kind of answer but placed
        self.decisions: Counter = Counter()  # remote Fortune 3 decisions by answer
        self.pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="bettor")

    def place(self, player: Player, body: dict, pick: float) -> None:
        live = [p for p in self.platforms if p.up() and p.url] or self.platforms
        via = live[int(pick * len(live))]
        try:
            r = webclient.post(f"{via.url}/api/bets", json=body, timeout=60,
                               headers={"Authorization": f"Bearer {player.session}"})
            answer = r.json()
            status, message = answer.get("status", str(r.status_code)), answer.get("message")
        except (httpx.HTTPError, ValueError) as exc:
            status, message = "no_answer", type(exc).__name__  # (the platform died under it: the stream decides)
        with self.lock:
            self.answers[status] += 1
            self.players.add(player.id)
            if status != "placed" and len(self.samples.setdefault(status, [])) < 3:
                self.samples[status].append(message)

    def decide(self, player: Player, body: dict, pick: float, deciding=lambda: False) -> None:
        """A remote player's Play or fold on Fortune 3's remote hand, through whichever platform is up;
        asked again while the platform's picture does not show the decisions yet and the table
        (``deciding()``) still waits for them."""
        deadline = time.monotonic() + 15.0
        while True:
            live = [p for p in self.platforms if p.up() and p.url] or self.platforms
            via = live[int(pick * len(live))]
            try:
                r = webclient.post(f"{via.url}/api/decisions", json=body, timeout=60,
                                   headers={"Authorization": f"Bearer {player.session}"})
                status = r.json().get("status", str(r.status_code))
            except (httpx.HTTPError, ValueError) as exc:
                status = f"no_answer ({type(exc).__name__})"
            # (the platform's picture may not show the decisions yet: a player asks again, as the page does)
            if status != "not_deciding" or time.monotonic() > deadline or not deciding():
                break
            time.sleep(0.2)
        with self.lock:
            self.decisions[status] += 1

    def decide_all(self, table: str, round_id: str, remote: list[Player], deciding=lambda: False) -> None:
        """Each remote player plays, folds, or says nothing (the timer folds them)."""
        with self.lock:
            picks = [(self.rng.random(), self.rng.random()) for _ in remote]
        asks = [(p, {"table": table, "round": round_id, "decision": "play" if a < 0.5 else "fold"}, b)
                for p, (a, b) in zip(remote, picks) if a < 0.85]
        list(self.pool.map(lambda a: self.decide(*a, deciding=deciding), asks))

    def all(self, bets: list[tuple[Player, dict]]) -> None:
        with self.lock:
            picks = [self.rng.random() for _ in bets]
        list(self.pool.map(lambda a: self.place(*a), [(p, b, x) for (p, b), x in zip(bets, picks)]))


#: the player who places more bets in one round than a wallet credit names (the protocol's 100)
WHALE_BETS = 120


def choose_bets(game: str, table: str, players: list[Player], rng: random.Random, share: float,
                whale: bool = False) -> list:
    """A round's bets, as players really place them: several bets a player
    on several spots. At the wheel a share of the players, one to four
    symbols each (and, once, one player with ``WHALE_BETS`` bets of 1, past
    what one credit names); football: a dozen players, one to three bets on
    boxes and spots each; Fortune 3: a player a box, an Ante (folded by the
    dealer) or a Pair Plus alone, and remote players on the shared remote
    hand, an Ante each and a Pair Plus for some (they play or fold: ``decide``)."""
    out = []
    if game == "wheel":
        for p in players[1:] if whale else players:
            if rng.random() < share:
                for symbol in rng.sample(WHEEL, rng.randint(1, 4)):
                    out.append((p, {"table": table, "bet": symbol, "amount": str(rng.randint(1, 20))}))
        if whale:
            out += [(players[0], {"table": table, "bet": "1", "amount": "1"})] * WHALE_BETS
    elif game == "football":
        for p in rng.sample(players, min(len(players), 12)):
            for _ in range(rng.randint(1, 3)):
                out.append((p, {"table": table, "bet": rng.choice(FOOTBALL), "amount": str(rng.randint(1, 20)),
                                "position": rng.choice(FOOTBALL_BOXES)}))
    else:
        seated = rng.sample(players, min(len(players), FORTUNE3_BOXES + REMOTE_PLAYERS))
        for box, p in enumerate(seated[:FORTUNE3_BOXES], start=1):
            out.append((p, {"table": table, "bet": rng.choice(("ante", "pair_plus")),
                            "amount": str(rng.randint(1, 20)), "position": str(box)}))
        for p in seated[FORTUNE3_BOXES:]:
            out.append((p, {"table": table, "bet": "ante", "amount": str(rng.randint(1, 20)), "position": "remote"}))
            if rng.random() < 0.5:
                out.append((p, {"table": table, "bet": "pair_plus", "amount": str(rng.randint(1, 10)),
                                "position": "remote"}))
    return out


#: remote players on Fortune 3's shared remote hand, a round
REMOTE_PLAYERS = 8


def state(table: Table) -> dict:
    return wait_until(table.state, BUDGET, f"{table.table_id} answering")


def act(table: Table, name: str, body: dict | None = None, role: str = "dealer") -> None:
    """One dealer's action; a refusal is read from the state next, a table
    away is waited for."""
    try:
        table.act(name, body, role)
    except httpx.HTTPError:
        time.sleep(0.5)


def open_round(table: Table) -> str:
    t = state(table)
    if t["state"] != "betting_open":
        act(table, "open_round")
        t = wait_until(lambda: (s := table.state())["state"] == "betting_open" and s, BUDGET,
                       f"{table.table_id} betting open")
    return t["round_id"]


def wait_betting(platforms: list[PlatformProc], table: str, round_id: str, budget: float = 60.0) -> None:
    """Until every platform up sees the round taking bets (after ``budget``,
    the bets go anyway: a platform that does not see it refuses them)."""
    def seen() -> bool:
        for p in platforms:
            if not p.up():
                continue
            tables = webclient.get(f"{p.url}/api/tables", timeout=5).json()["tables"]
            t = next(t for t in tables if t["table"] == table)
            if not (t["betting"] and t["round"] == round_id):
                return False
        return True
    try:
        wait_until(seen, budget, f"the platforms seeing {table} {round_id} open")
    except RuntimeError:
        pass


def finish(table: Table, round_id: str, on_decisions=None) -> str:
    """Close betting and play the round to its end from whatever state it
    is in: its result's status. ``on_decisions()``: once, when the round
    waits for decisions (the remote players decide; the timer folds the rest)."""
    deadline = time.monotonic() + BUDGET
    while time.monotonic() < deadline:
        t = state(table)
        if t["round_id"] != round_id or t["state"] in ("complete", "void", "idle"):
            return t["state"]
        if t["state"] == "betting_open" and not t.get("bets"):
            void(table, round_id)  # (every bet of the round was lost on the way: the round closes empty)
            continue
        step = {"betting_open": "close_betting", "bets_closed": "spin" if table.game == "wheel" else "deal"}
        if t["state"] in step:
            act(table, step[t["state"]])
        elif t["state"] == "decisions":
            for box in pending(t):  # (the boxes first: the remote players then have the timer to themselves)
                act(table, "decide", {"box": box, "decision": "fold"})
            if on_decisions is not None:
                on_decisions()
                on_decisions = None
        else:
            time.sleep(0.2)
    raise RuntimeError(f"{table.table_id} round {round_id} did not end: {table.state()['state']}")


def pending(t: dict) -> list[str]:
    boxes = (t.get("view") or {}).get("boxes") or {}
    return [b for b, bets in (t.get("bets") or {}).items()
            if b != "remote" and "ante" in bets and not (boxes.get(b) or {}).get("decision")]


def void(table: Table, round_id: str) -> None:
    act(table, "void", {"why": "fault run: a void round's debits are cancelled"}, role="supervisor")


class Killer(threading.Thread):
    """``kills`` SIGKILLs at random moments, each target started again
    before the next; the kinds in turn so each is hit."""

    def __init__(self, rng: random.Random, kills: int, targets: dict[str, list[Child]], gap: tuple[float, float]):
        super().__init__(name="killer", daemon=True)
        self.rng, self.kills, self.targets, self.gap = rng, kills, targets, gap
        self.done: list[dict] = []
        self.error: str | None = None
        self.stopping = threading.Event()
        self.started_at = time.monotonic()

    def plan(self) -> list[str]:
        kinds: list[str] = []
        while len(kinds) < self.kills:
            turn = list(self.targets)
            self.rng.shuffle(turn)
            kinds += turn
        return kinds[:self.kills]

    def run(self) -> None:
        try:
            for kind in self.plan():
                if self.stopping.wait(self.rng.uniform(*self.gap)):
                    return
                target = self.rng.choice(self.targets[kind])
                at = round(time.monotonic() - self.started_at, 1)
                target.kill()
                time.sleep(self.rng.uniform(0.1, 1.0))
                target.start()
                self.done.append({"target": target.name, "at_s": at,
                                  "down_s": round(time.monotonic() - self.started_at - at, 1)})
        except Exception as exc:  # (reported; the run then fails)
            self.error = f"{type(exc).__name__}: {exc}"
