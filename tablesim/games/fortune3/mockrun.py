"""``tablesim run --game fortune3 --mock``: a table with mock devices and
simulated players, shown round by round."""

from __future__ import annotations

import random
import secrets
from decimal import Decimal

from rich.console import Console
from rich.markup import escape

from drivers.mock import MockShoe, MockShuffler, ShuffledShoe
from tablesim.cli.display import signed
from tablesim.cli.session import SessionPlan, run_session
from tablesim.engine.runopts import RunOptions
from tablesim.engine.table import resolve_unattended
from tablesim.core.errors import IllegalAction
from tablesim.games.fortune3.machine import S
from tablesim.games.fortune3.players import decide, random_bets
from tablesim.games.fortune3.profile import load_profile
from tablesim.games.fortune3.settings import Fortune3Settings
from tablesim.games.fortune3.table import DEALER, Fortune3Table

NAMES = {
    "straight_flush": "straight flush",
    "three_of_a_kind": "three of a kind",
    "straight": "straight",
    "flush": "flush",
    "pair": "pair",
    "high_card": "high card",
}


def build_table(options: RunOptions, rng: random.Random) -> Fortune3Table:
    profile = load_profile(options.profile)
    settings = Fortune3Settings(dealing=options.dealing or "shoe")
    source = ShuffledShoe(rng, 1, reshuffle_each_load=True, exposed_rate=0.01)
    if settings.dealing == "shoe":
        return Fortune3Table(profile, settings, shoe=MockShoe(source), table_id="F3-MOCK")
    return Fortune3Table(profile, settings, shuffler=MockShuffler(source), table_id="F3-MOCK")


def play_round(table: Fortune3Table, rng: random.Random, *, all_boxes: bool = False) -> list[tuple[str, Decimal]]:
    """Play one round with simulated players, from whatever state the table is
    in (a recovered round goes on where it stopped); returns each stake as
    (bet, amount)."""
    if table.state in (S.IDLE, S.COMPLETE, S.VOID):
        table.open_round()
    if table.state is S.BETTING_OPEN:
        for box, bet, amount in random_bets(rng, table.profile, table.settings.limits, all_boxes=all_boxes):
            try:
                table.place_bet(box, bet, amount)
            except IllegalAction:
                pass  # e.g. over the limit on a box a recovered round already holds
        table.close_betting()
    if table.state is S.BETS_CLOSED:
        table.start_dealing()
    while table.state is S.DEALING:
        table.pump((S.DEALING,))
        if not resolve_unattended(table):
            break
    if table.state is S.DECISIONS:
        for box in table.pending_decisions():
            has_pp = table.book.get(box, "pair_plus") is not None
            table.decide(box, decide(table.profile, table.evaluator, table.hands[box], has_pp))
    if table.state is S.DEALING:  # the mock shoe never stalls; guard anyway
        table.void("device_timeout")
    wagered: list[tuple[str, Decimal]] = []
    for box, bet, amount in table.book.items():
        wagered.append((bet, amount))
        if bet == "ante" and table.decisions.get(box) == "play":
            wagered.append(("play", amount))
    return wagered


def render(table: Fortune3Table) -> list[str]:
    result = table.result
    if result.status == "void":
        return [f"[bold]{result.round_id}[/]: [red]void[/] ({result.void_reason}); every bet returned"]
    out = result.outcome
    dealer = out["dealer"]
    lines = [
        f"[bold]{result.round_id}[/]  dealer {' '.join(dealer['cards'])} "
        f"({NAMES[dealer['hand']]}), {'qualifies' if dealer['qualifies'] else '[yellow]does not qualify[/]'}"
    ]
    for box, info in out["boxes"].items():
        bets = result.bets[box]
        stakes = ", ".join(f"{k} {v}" for k, v in bets.items())
        res = ", ".join(f"{k} {signed(v)}" for k, v in result.results[box].items())
        decision = f" {info['decision']}" if info["decision"] else ""
        lines.append(
            f"  box {box}: {' '.join(info['cards'])} ({NAMES[info['hand']]}){decision}"
            f"  {escape('[' + stakes + ']')} -> {res}  net {signed(result.net[box])}"
        )
    return lines


def plan(table: Fortune3Table, rng: random.Random, devices: str) -> SessionPlan:
    return SessionPlan(
        banner=f"Fortune 3 Card Poker, profile {table.profile.name}, dealing by {table.settings.dealing}, {devices}",
        play_round=lambda: play_round(table, rng),
        render=lambda: render(table),
        summary_title="Fortune 3 Card Poker: hold per bet (ante includes the ante bonus)",
        fold_into={"ante_bonus": "ante"},
    )


def run_mock(options: RunOptions, console: Console) -> int:
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    rng = random.Random(seed)
    table = build_table(options, rng)
    session = plan(table, rng, f"mock devices, seed {seed}")
    # A recovered round goes on with the cards still in the (mock) shoe.
    session.after_recover = lambda: table.devices[0].source.exclude(table.seen)
    return run_session(table, options, console, session)


def table_for_devices(devices: dict, settings: Fortune3Settings, *, profile: str | None, table_id: str,
                      seeded: bool = False) -> Fortune3Table:
    """A table on real (serial, USB) or emulated devices."""
    return Fortune3Table(load_profile(profile), settings, shoe=devices.get("shoe"),
                         shuffler=devices.get("shuffler"), table_id=table_id)


def run_table(table: Fortune3Table, options: RunOptions, console: Console, devices: str) -> int:
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    return run_session(table, options, console, plan(table, random.Random(seed), f"{devices}, players' seed {seed}"))


__all__ = ["run_mock", "play_round", "build_table", "DEALER", "table_for_devices", "run_table"]
