"""The game tables on serial drivers and emulators: what each emulator fault
does to a round is what the table's rules say (void, no spin, incident)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tablecore.errors import IllegalAction

from drivers.emulators.launcher import running_emulators
from drivers.events import SHUFFLER_JAM
from drivers.registry import open_device
from tablesim.games.football.machine import CARD_STATES
from tablesim.games.football.machine import S as FS
from tablesim.games.football.profile import load_profile as football_profile
from tablesim.games.football.profile import FootballSettings
from tablesim.games.football.table import FootballTable
from tablesim.games.fortune3.machine import S as F3
from tablesim.games.fortune3.profile import load_profile as f3_profile
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.games.wheel.machine import AWAITING_SPIN
from tablesim.games.wheel.machine import S as WS
from tablesim.games.wheel.profile import load_profile as wheel_profile
from tablesim.games.wheel.profile import WheelSettings
from tablesim.games.wheel.table import WheelTable
from test_serial_support import STEADY, no_leaks  # noqa: F401 - fixture

WAIT = 3.0  # a device event takes at most this long (the emulators run at time_scale 0.01)


@contextmanager
def devices(kinds: list[str], faults: dict[str, list[str]] | None = None, seed: int = 5) -> Iterator[dict]:
    with running_emulators(kinds, seed=seed, time_scale=0.01, faults=faults, timing=STEADY) as urls:
        opened = {}
        try:
            for kind in kinds:
                opened[kind] = open_device(kind, "serial", {"url": urls[kind], "timing": STEADY})
            yield opened
        finally:
            for device in opened.values():
                device.close()


def play_fortune3(table: Fortune3Table, boxes: tuple[str, ...] = ("1", "3")) -> None:
    table.open_round()
    for box in boxes:
        table.place_bet(box, "ante", "10")
    table.close_betting()
    table.start_dealing()
    while table.state is F3.DEALING and table.pump((F3.DEALING,), timeout=WAIT):
        pass
    if table.state is F3.DECISIONS:
        for box in table.pending_decisions():
            table.decide(box, "play")


def test_fortune3_rounds_dealt_from_the_serial_shoe() -> None:
    with devices(["shoe"]) as d:
        table = Fortune3Table(f3_profile(), Fortune3Settings("shoe"), shoe=d["shoe"], table_id="F3-T")
        for _ in range(2):
            play_fortune3(table)
            assert table.state is F3.COMPLETE and table.result.status == "settled"
            assert all(len(table.cards[who]) == 3 for who in table.order)
            assert table.incidents == []


def test_fortune3_shuffler_jam_voids_the_round() -> None:
    with devices(["shuffler"], faults={"shuffler": ["jam@hand=2"]}) as d:
        table = Fortune3Table(f3_profile(), Fortune3Settings("shuffler"), shuffler=d["shuffler"], table_id="F3-T")
        play_fortune3(table)
        assert table.state is F3.VOID and table.result.void_reason == "shuffler_fault"
        assert set(d["shuffler"].health.faults) == {SHUFFLER_JAM}
        # Art. 11(4): the failed shuffler deals again only once a supervisor says it was replaced
        with pytest.raises(IllegalAction, match="Art. 11"):
            table.open_round()
        table.confirm_shuffler(actor="supervisor", why="shuffler replaced")
        play_fortune3(table)  # the next round reloads and shuffles: the jam is cleared
        assert table.state is F3.COMPLETE


@pytest.mark.parametrize("fault, cards", [("short-hand@hand=2", 2), ("long-hand@hand=1", 4)])
def test_fortune3_a_shuffler_hand_of_the_wrong_size_is_a_misdeal_at_once(fault, cards) -> None:
    """Art. 11(1): a hand of 2 or 4 cards through the real serial
    driver reaches the table, which voids the round as a misdeal (fault 302)
    at once: not a refused frame the table waits 30 s for."""
    with devices(["shuffler"], faults={"shuffler": [fault]}) as d:
        table = Fortune3Table(f3_profile(), Fortune3Settings("shuffler"), shuffler=d["shuffler"], table_id="F3-T")
        table.device_timeout = 30.0
        faults: list[dict] = []
        table.bus.subscribe(lambda ev: faults.append(dict(ev.data)) if ev.kind == "fault" else None)
        start = time.monotonic()
        play_fortune3(table)
        assert table.state is F3.VOID and table.result.void_reason == "misdeal"
        # at once: well inside the device timeout it would otherwise wait out (not
        # a fixed few seconds, which a loaded machine can take for a round)
        assert time.monotonic() - start < table.device_timeout / 2
        assert [(f["code"], f["text"]) for f in faults] == [
            (302, f"the shuffler dispensed {cards} card(s), the hand needs 3")]
        play_fortune3(table)  # the next round is dealt as usual
        assert table.state is F3.COMPLETE


def test_fortune3_misread_holds_the_round_for_a_supervisor() -> None:
    with devices(["shoe"], faults={"shoe": ["misread@card=2"]}) as d:
        table = Fortune3Table(f3_profile(), Fortune3Settings("shoe"), shoe=d["shoe"], table_id="F3-T")
        play_fortune3(table)
        assert table.state is F3.DEALING and table.incident is not None and table.incident.code == 201


def test_wheel_short_spin_is_a_no_spin_then_the_spin_counts() -> None:
    with devices(["wheel"], faults={"wheel": ["short-spin@spin=1"]}) as d:
        profile = wheel_profile()
        table = WheelTable(profile, WheelSettings.for_profile(profile), sensor=d["wheel"], table_id="WH-T")
        table.open_round()
        table.place_bet("p1", profile.spots[0], "10")
        table.close_betting()
        while table.state in AWAITING_SPIN and table.pump(AWAITING_SPIN, timeout=WAIT):
            pass
        assert table.state is WS.COMPLETE
        assert table.no_spins == 1 and [s["counts"] for s in table.spins] == [False, True]


def test_wheel_sensors_disagree_voids_the_round() -> None:
    with devices(["wheel"], faults={"wheel": ["disagree"]}) as d:
        profile = wheel_profile()
        table = WheelTable(profile, WheelSettings.for_profile(profile), sensor=d["wheel"], table_id="WH-T")
        table.open_round()
        table.place_bet("p1", profile.spots[0], "10")
        table.close_betting()
        while table.state in AWAITING_SPIN and table.pump(AWAITING_SPIN, timeout=WAIT):
            pass
        assert table.state is WS.VOID


def play_football(table: FootballTable) -> None:
    table.open_round()
    table.await_draw(WAIT)
    if table.state is not FS.BETTING_OPEN:
        return
    table.place_bet("1", "upper", "10")
    table.close_betting()
    table.start_dealing()
    while table.state in CARD_STATES and table.pump(CARD_STATES, timeout=WAIT):
        pass


def test_football_round_on_the_serial_shoe_and_display() -> None:
    with devices(["shoe", "display"]) as d:
        table = FootballTable(football_profile(), FootballSettings(decks=1), display=d["display"], shoe=d["shoe"],
                              table_id="FB-T")
        play_football(table)
        assert table.state is FS.COMPLETE and table.result.status == "settled"


def test_football_readback_mismatch_voids_then_the_display_is_cleared() -> None:
    with devices(["shoe", "display"], faults={"display": ["readback@show=1"]}) as d:
        table = FootballTable(football_profile(), FootballSettings(decks=1), display=d["display"], shoe=d["shoe"],
                              table_id="FB-T")
        play_football(table)
        assert table.state is FS.VOID and table.result.void_reason == "display_fault"
        assert d["display"].health.ok  # the void cleared the display
        play_football(table)
        assert table.state is FS.COMPLETE
