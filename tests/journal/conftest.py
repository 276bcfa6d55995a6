"""Fixtures for the journal tests.

Every table here runs on mock devices fed from a script and journals to a
SQLite file through ``attach_and_recover`` (the call ``tablesim run`` makes),
so a test can drive a round to any state, drop the table without closing
anything (a power loss), build a fresh table on the same file and check what
came back.

Journals never go to the user's data directory: ``XDG_DATA_HOME`` points into
the test's ``tmp_path``.
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterable

import pytest
from click.testing import CliRunner
from rich.console import Console

from drivers.mock import MockShoe, MockShuffler, ScriptedCards
from drivers.mock.display import MockDisplay
from drivers.mock.wheel import MockWheelSensor, ScriptedSpins, Spin, WheelFault
from tablecore.cards import parse_dealt
from tablesim.cli.main import cli
from tablesim.games.football.draw import ScriptedDraw
from tablesim.games.football.machine import CARD_STATES
from tablesim.games.football.machine import S as FS
from tablesim.games.football.profile import load_profile as load_fb_profile
from tablesim.games.football.profile import FootballSettings
from tablesim.games.football.table import FootballTable
from tablesim.games.fortune3.machine import S as F3S
from tablesim.games.fortune3.profile import load_profile as load_f3_profile
from tablesim.games.fortune3.profile import Fortune3Settings
from tablesim.games.fortune3.table import Fortune3Table
from tablesim.cli.display import attach_journal
from tablesim.games.wheel.machine import AWAITING_SPIN
from tablesim.games.wheel.machine import S as WS
from tablesim.games.wheel.profile import load_profile as load_wheel_profile
from tablesim.games.wheel.profile import WheelSettings
from tablesim.games.wheel.table import WheelTable

ROOT = Path(__file__).resolve().parents[2]
F3_PROFILE = load_f3_profile()
FB_PROFILE = load_fb_profile()
WHEEL_PROFILE = load_wheel_profile()


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path, monkeypatch):
    """Journals go to a private data directory; the working directory is a
    private one too, so a stray journal file would show up there."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)


# --- raw access to a journal file --------------------------------------------------


def head(path: Path | str) -> tuple[int, str | None]:
    """(number of records, hash of the last one), read with plain sqlite3."""
    db = sqlite3.connect(str(path))
    try:
        count = db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
        row = db.execute("SELECT hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    finally:
        db.close()
    return count, (row[0] if row else None)


def rows(path: Path | str, round_id: str | None = None) -> list[dict[str, Any]]:
    """Every record as a dict (``data`` parsed), in sequence order."""
    db = sqlite3.connect(str(path))
    db.row_factory = sqlite3.Row
    try:
        sql = "SELECT * FROM records" + (" WHERE round_id = ?" if round_id else "") + " ORDER BY seq"
        out = [dict(r) for r in db.execute(sql, (round_id,) if round_id else ())]
    finally:
        db.close()
    for r in out:
        r["data"] = json.loads(r["data"])
    return out


@pytest.fixture
def jhead():
    return head


@pytest.fixture
def jrows():
    return rows


# --- the command line ----------------------------------------------------------------


class CliResult:
    def __init__(self, result) -> None:
        self.code = result.exit_code
        self.out = result.stdout
        self.err = result.stderr
        self.exception = result.exception

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]

    def json_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


@pytest.fixture
def run_cli():
    def invoke(*args: str) -> CliResult:
        return CliResult(CliRunner().invoke(cli, [str(a) for a in args]))

    return invoke


# --- tables of the three games --------------------------------------------------------


class Rig:
    """A table on mock devices, journaled to ``path`` via the CLI's attach_journal."""

    table: Any

    def _attach(self, path: Path | str | None) -> None:
        self.out = io.StringIO()
        self.console = Console(file=self.out, width=300, highlight=False, soft_wrap=True, color_system=None)
        self.events: list = []
        self.table.bus.subscribe(self.events.append)
        self.path = path
        self.report = attach_journal(self.console, self.table, None if path is None else str(path))

    @property
    def journal(self):
        return self.table.journal

    @property
    def console_text(self) -> str:
        return self.out.getvalue()

    def kinds(self, kind: str) -> list[dict]:
        return [e.data for e in self.events if e.kind == kind]

    def common_snapshot(self) -> dict:
        t = self.table
        return {
            "state": t.state.value,
            "round_id": t.round_id,
            "round_no": t.round_no,
            "paused": t.paused,
            "incident": t.incident,
            "bets": t.book.snapshot(),
        }


class F3Rig(Rig):
    def __init__(self, path, *, dealing: str = "shoe", cards: Iterable[str] | str = (), faults=(), table_id="F3J"):
        if isinstance(cards, str):
            cards = cards.split()
        self.source = ScriptedCards(parse_dealt(c) for c in cards)
        settings = Fortune3Settings(dealing=dealing)
        if dealing == "shoe":
            self.device = MockShoe(self.source, faults)
            self.table = Fortune3Table(F3_PROFILE, settings, shoe=self.device, table_id=table_id)
        else:
            self.device = MockShuffler(self.source, faults)
            self.table = Fortune3Table(F3_PROFILE, settings, shuffler=self.device, table_id=table_id)
        self._attach(path)

    def bet(self, bets: dict) -> None:
        for box, per in bets.items():
            for name, amount in per.items():
                self.table.place_bet(str(box), name, amount)

    def step(self, n: int = 1) -> None:
        """Hand ``n`` device events to the table, one action each."""
        for _ in range(n):
            event = self.device.next_event(0)
            assert event is not None, "the device has nothing more to report"
            self.table.handle(event)

    def finish(self, decisions: dict | None = None) -> None:
        """Go on from whatever state the round is in, to its end."""
        t = self.table
        if t.state is F3S.BETTING_OPEN:
            t.close_betting()
        if t.state is F3S.BETS_CLOSED:
            t.start_dealing()
        while t.state is F3S.DEALING:
            if not t.pump((F3S.DEALING,)):
                break
        if t.state is F3S.DECISIONS:
            for box in t.pending_decisions():
                t.decide(box, (decisions or {}).get(box, "play"))

    def snapshot(self) -> dict:
        t = self.table
        return {
            **self.common_snapshot(),
            "order": list(t.order),
            "cards": {who: [d.code for d in cs] for who, cs in t.cards.items()},
            "set_aside": [d.code for d in t.set_aside],
            "seen": sorted(c.code for c in t.cards_out()),
            "targets": list(t.targets),
            "decisions": dict(t.decisions),
            "incidents": list(t.incidents),
            "last_placed": None if t.last_placed is None else (t.last_placed[0], [d.code for d in t.last_placed[1]]),
        }


class FBRig(Rig):
    def __init__(self, path, *, decks: int = 1, cards: Iterable[str] | str = (), table_id="FBJ", display_faults=()):
        if isinstance(cards, str):
            cards = cards.split()
        self.source = ScriptedCards(parse_dealt(c) for c in cards)
        self.shoe = MockShoe(self.source)
        self.display = MockDisplay(display_faults)
        self.draws = ScriptedDraw()
        self.table = FootballTable(
            FB_PROFILE, FootballSettings(decks=decks), display=self.display, shoe=self.shoe,
            draws=self.draws, mode="script", table_id=table_id,
        )
        self._attach(path)

    def open(self, draw: int) -> None:
        self.draws.next = draw
        self.table.open_round()
        self.table.await_draw()

    def bet(self, bets: dict) -> None:
        for box, per in bets.items():
            for name, amount in per.items():
                self.table.place_bet(str(box), name, amount)

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            event = self.display.next_event(0) or self.shoe.next_event(0)
            assert event is not None, "the devices have nothing more to report"
            self.table.handle(event)

    def finish(self) -> None:
        t = self.table
        if t.state is FS.DRAWING:
            t.await_draw()
        if t.state is FS.BETTING_OPEN:
            t.close_betting()
            t.poll()
        if t.state is FS.BETS_CLOSED:
            t.start_dealing()
        t.pump(CARD_STATES)

    def snapshot(self) -> dict:
        t = self.table
        return {
            **self.common_snapshot(),
            "draw": None if t.draw is None else t.draw.index,
            "draw_id": t.draw_id,
            "order": list(t.order),
            "cards": {who: [d.code for d in cs] for who, cs in t.cards.items()},
            "targets": list(t.targets),
            "thirds": list(t.thirds),
            "round_cards": [c.code for c in t.round_cards],
            "set_aside": [d.code for d in t.set_aside],
        }


class WheelRig(Rig):
    def __init__(self, path, *, spins: Iterable[Spin] = (), faults: Iterable[WheelFault] = (), table_id="WJ"):
        self.source = ScriptedSpins(spins)
        self.sensor = MockWheelSensor(self.source, faults)
        self.device = self.sensor
        self.table = WheelTable(WHEEL_PROFILE, WheelSettings.for_profile(WHEEL_PROFILE), sensor=self.sensor,
                                table_id=table_id)
        self._attach(path)

    def bet(self, bets: list[tuple[str, str, object]]) -> None:
        for player, spot, amount in bets:
            self.table.place_bet(player, spot, amount)

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            event = self.sensor.next_event(0)
            assert event is not None, "the sensor has nothing more to report"
            self.table.handle(event)

    def finish(self) -> None:
        t = self.table
        if t.state is WS.BETTING_OPEN:
            t.close_betting()
        while t.state in AWAITING_SPIN:
            event = self.sensor.next_event(0)
            if event is None:
                break
            t.handle(event)

    def snapshot(self) -> dict:
        t = self.table
        return {
            **self.common_snapshot(),
            "no_spins": t.no_spins,
            "spins": [dict(s) for s in t.spins],
            "incidents": [dict(i) for i in t.incidents],
            "revolutions": t.revolutions,
            "direction": t.direction,
            "segment": t.segment,
            "symbol": t.symbol,
        }


@pytest.fixture
def f3():
    return F3Rig


@pytest.fixture
def fb():
    return FBRig


@pytest.fixture
def wheel():
    return WheelRig


def results_once(path, round_id: str) -> list[dict]:
    """The ``result`` records of a round."""
    return [r["data"] for r in rows(path, round_id) if r["kind"] == "event" and r["name"] == "result"]


@pytest.fixture
def round_results():
    return results_once


@pytest.fixture
def env(tmp_path):
    """The environment of a table process: the test's private data directory."""
    import os

    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1", "COLUMNS": "300"}
