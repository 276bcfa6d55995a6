"""What a game declares: one :class:`GameSpec` per game folder (``spec.py``).

A spec is data (name, title, default profile, options, device kinds, table
ids) plus the game's parts as ``"module:attribute"`` targets, imported only
when they are used: ``tablesim analyze wheel`` never imports the Fortune 3
tables, and a spec module imports nothing heavy. Every part has one
signature for all games (see the methods below), so the CLI, the server and
the harness drive any game the same way.
"""

from __future__ import annotations

import importlib
import importlib.resources
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

from tablecore.errors import InputError
from tablecore.validate import Reader

#: the parts a game provides, "module:attribute" each
PARTS = (
    "profile",  # load_profile(name | None) -> profile
    "settings",  # settings(profile, options) -> the table settings of a mock or emulated table
    "config_settings",  # config_settings(profile, settings: Reader, limits: Reader | None) -> settings (default: the options)
    "devices",  # devices(settings) -> the device kinds the table needs (default: all of ``device_kinds``)
    "table",  # table(devices, settings, *, profile, table_id, seed=None) -> table on those devices
    "mock",  # mock(options, *, profile, seed, seeded) -> MockRig: the table on mock devices (default: the registry's)
    "session",  # session(table, rng, devices: str) -> SessionPlan of `tablesim run`
    "script",  # script(table: Reader) -> ScriptSession (scripted rounds)
    "simulator",  # simulator(seed, profile=None, **options) -> .play_round()
    "simulation_exact",  # simulation_exact(profile=None, **options) -> {bet: {return, basis}} (default: none)
    "analyze",  # analyze(profile=None, **options) -> dict
    "render_analysis",  # render_analysis(dict) -> str (plain text; default: the dict as JSON)
    "console",  # the console adapter class: console(table, rig) -> GameAdapter (default: boxes and bets)
    "dealer",  # dealer(table, players: Players, hands: Hands): the round goes on from the table's state
    "diagram",  # diagram() -> the round machine as mermaid (default: the ``procedure``'s)
    "remote",  # the RemoteView: what remote players see and where they bet (default: RemoteView())
)

#: the parts a game may leave out where it is like the others: each one's stand-in, given the spec
#: (``defaults.py`` holds the longer ones, imported only when a game leaves the part out)
DEFAULTS: dict[str, Callable[["GameSpec"], Callable[..., Any]]] = {
    # a table that always has every kind of device it can have
    "devices": lambda spec: lambda settings: spec.device_kinds,
    # the diagram of the game's round procedure ("procedure": its "module:attribute")
    "diagram": lambda spec: lambda: _mermaid(load(spec.parts["procedure"])),
    "config_settings": lambda spec: _default("config_settings", spec),
    "mock": lambda spec: _default("mock", spec),
    "console": lambda spec: _default("console", spec),
    "render_analysis": lambda spec: _default("render_analysis", spec),
    "simulation_exact": lambda spec: _default("simulation_exact", spec),
    # (an object, not a function: the view itself)
    "remote": lambda spec: RemoteView(),
}


def _default(part: str, spec: "GameSpec") -> Callable[..., Any]:
    from tablesim.games import defaults

    return getattr(defaults, part)(spec)


def _mermaid(procedure: Any) -> str:
    from tablesim.engine.machine import mermaid

    return mermaid(procedure)


@dataclass(frozen=True)
class GameOption:
    """An option a game takes on the command line and in its settings
    (e.g. fortune3's ``dealing``): a choice of words, or a whole number in a
    range. The one place its values are checked."""

    name: str
    help: str
    default: Any
    choices: tuple[str, ...] | None = None
    lo: int | None = None
    hi: int | None = None
    #: whether the exact analysis takes it (``tablesim analyze --decks``)
    in_analysis: bool = False

    def read(self, reader: Reader) -> Any:
        """The option from a file (a table configuration, a script's ``table``)."""
        if self.choices is not None:
            return reader.str(self.name, self.default, choices=self.choices)
        return reader.int(self.name, self.default, lo=self.lo, hi=self.hi)

    def value(self, given: Any) -> Any:
        """The option from a command line (already checked by its type), or its default."""
        return self.default if given is None else given


@dataclass(frozen=True)
class IntakeSetup:
    """How ``tablesim bench`` fills a betting window through the served API
    (``tablesim serve --game NAME --mock``): many players, one bet each."""

    #: the bets the players take in turn
    bets: tuple[str, ...]
    #: a player's position is this followed by the player's number
    position_prefix: str
    #: what the report says the table is
    table: str
    #: the dealer's action that plays a round out once betting is closed (``/api/actions/<finish>``)
    finish: str = "deal"


@dataclass(frozen=True)
class CardsSetup:
    """How ``tablesim bench`` has cards dealt through the served API, from an
    emulated card device on a pty (the table's configuration file)."""

    #: a table configuration (TOML); ``{url}`` is the emulated device's
    config: str
    #: the emulator's kind (``drivers.emulators.make_emulator``)
    device: str
    #: play_round(call, wait) -> round id: one round through the API, where
    #: call(method, path, body=None) -> answer and wait(*states, timeout=30) -> snapshot
    play_round: Callable[..., str]


class SharedHand:
    """A game's shared remote hand: one more position, dealt like a box, on
    which any number of remote players bet, each deciding alone within a
    decision timer (the table asks ``close`` when it runs out: whoever has
    not decided gets the game's default). The server runs the timer and
    takes the decisions that come over the bus, the platform debits a
    decision that stakes more; both know the hand only through this object,
    which the game makes (its ``RemoteView.hand``).

    The table's side (``active`` .. ``stake``) runs on the table's thread.
    A round's outcome keeps the hand's part under ``remote``: its
    ``decisions`` (player -> decision) and ``timed_out`` (players) name
    players, so the open views count them instead (``studio.totals``)."""

    #: the hand's position at the table
    position: str = "remote"
    #: the table's state while its players decide
    deciding: str = "decisions"
    #: the decisions a remote player may send
    decisions: tuple[str, ...] = ()
    #: the decision of a player who does not decide in time, or whose stake the wallet refuses
    default: str = ""
    #: a decision that stakes more -> the player's bet on the hand whose amount it stakes again
    stakes: Mapping[str, str] = MappingProxyType({})

    def active(self, table: Any) -> bool:
        """Whether this table has the hand (its rule profile may leave it out)."""
        raise NotImplementedError

    def seconds(self, table: Any) -> int:
        """The decision timer's length."""
        raise NotImplementedError

    def pending(self, table: Any) -> list[str]:
        """The remote players who still have a decision to make."""
        raise NotImplementedError

    def close(self, table: Any) -> None:
        """The decision timer ran out."""
        raise NotImplementedError

    def decide(self, table: Any, player: str, decision: str, ref: str | None) -> None:
        """One remote player's decision (refused with the table's reason)."""
        raise NotImplementedError

    def page(self) -> dict:
        """What the player's page needs of the hand: the state in which its
        players decide, the decisions, the default and what they stake."""
        return {"deciding": self.deciding, "decisions": list(self.decisions), "default": self.default,
                "stakes": dict(self.stakes)}

    def stake(self, table: Any, player: str, decision: str) -> Any:
        """What ``decision`` stakes of ``player`` (a Decimal), or None."""
        bet = self.stakes.get(decision)
        return None if bet is None else table.book.get(self.position, bet, player)


@dataclass(frozen=True)
class Felt:
    """How the player's page lays out a game's spots on its felt. The
    default suits any game: its bets in one row, in the layout's order (a
    row of more than eight wraps; on a phone, more than four), drawn as
    boxes."""

    #: the spots in rows, as on the table: each row's spots share its width
    #: (a row of two beside a row of three: each of the two as wide as one and
    #: a half of the three); a bet the rows leave out goes in a row of its
    #: own after them, a bet the layout lacks is skipped; () for one row of all
    rows: tuple[tuple[str, ...], ...] = ()
    #: the spots drawn as betting circles (a few of them, centred), not boxes
    circles: bool = False

    def page(self) -> dict:
        """What the player's page reads of the felt."""
        return {"rows": [list(r) for r in self.rows], "circles": self.circles}


class Follower:
    """Follows one table's shown events for its remote players (one per
    table on the platform): may add what the game tells them of an event
    (e.g. a hand's rank once its cards are out). The default adds nothing."""

    def shown(self, msg: dict) -> dict:
        return msg


class RemoteView:
    """What a game shows the remote players of the platform and where they
    bet: one object per game (the spec's ``remote`` part). Each default suits
    a game whose remote players name the box they bet on; a game overrides
    what differs."""

    #: a bet's position at the platform: "box" (a spot of the table) or "player" (the player is the position)
    position: str = "box"
    #: at a table whose bets name a box, the box the remote players bet on (None: they name one)
    box: str | None = None
    #: the rule profile a table offered to remote players runs (None: the game's default)
    profile: str | None = None
    #: the game's shared remote hand, or None
    hand: SharedHand | None = None
    #: how the player's page pictures the table (the page's scenes): "spin"
    #: (a wheel of the layout's segments, turning while the sensor reports
    #: motion, at rest on the segment reported), "draw" (a draw of numbers as
    #: the display shows it, beside the cards of the box the remote players bet
    #: on), "hands" (the dealer's hand and the remote players' hand, face down
    #: until revealed); "" for none (the felt only). The scene names what the
    #: page draws, never the game: the same scene serves any game that sends
    #: its events (``draw``, ``card``, ``dealer``, ``spin_result``...)
    scene: str = ""
    #: how the page lays out the spots (rows of bets, boxes or circles)
    felt: Felt = Felt()

    def short(self, outcome: dict) -> dict:
        """A settled round's outcome as the lobby lists it, beside its status."""
        return {}

    def rules(self, profile: Any) -> dict:
        """What the page says of the game's pays and rules under ``profile``
        (amounts as decimal texts), beside the profile's name."""
        return {}

    def follower(self) -> Follower:
        return Follower()


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    default_profile: str
    #: "module:attribute" per part (see PARTS)
    parts: Mapping[str, str]
    options: tuple[GameOption, ...] = ()
    #: the device kinds the game's table can have
    device_kinds: tuple[str, ...] = ()
    #: table ids start with this: <prefix>-MOCK, -EMU, -SIM
    id_prefix: str = ""
    #: how the simulator's cards (or spins) come, for the report
    simulation_note: str = ""
    #: what the engine benchmark's table is (the simulator's seats)
    bench_table: str = ""
    #: more benchmarks of this game: name -> "module:attribute" (a function -> dict)
    benchmarks: Mapping[str, str] = field(default_factory=dict)
    #: the served table's benchmarks this game sets up: name (``bet_intake``,
    #: ``card_to_console``) -> "module:attribute" of an :class:`IntakeSetup`
    #: or a :class:`CardsSetup`; ``tablesim bench`` uses the first game that has one
    service_benches: Mapping[str, str] = field(default_factory=dict)
    #: the game's own part of the console and the board (a JavaScript module,
    #: see ``tablesim/server/static/common.js``): "package:path" of a file in
    #: the game's folder, served as ``/static/game.js`` by its table; "" for none
    console_piece: str = ""

    def __post_init__(self) -> None:
        missing = [p for p in PARTS if p not in self.parts and not self._defaulted(p)]
        if missing:
            raise ValueError(f"game {self.name!r} lacks {', '.join(missing)}")

    def _defaulted(self, name: str) -> bool:
        return name in DEFAULTS and (name != "diagram" or "procedure" in self.parts)

    def part(self, name: str) -> Callable[..., Any]:
        target = self.parts.get(name)
        if target is None and self._defaulted(name):
            return DEFAULTS[name](self)
        return load(self.parts[name])

    @property
    def required(self) -> tuple[str, ...]:
        """The parts every game must name (no stand-in for them)."""
        return tuple(p for p in PARTS if p not in DEFAULTS)

    def option(self, name: str) -> GameOption | None:
        return next((o for o in self.options if o.name == name), None)

    def read_options(self, reader: Reader) -> dict[str, Any]:
        """Every option of this game from a file's table (defaults where absent)."""
        return {o.name: o.read(reader) for o in self.options}

    def cli_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option of this game from the command line (defaults where not given)."""
        return {o.name: o.value(given.get(o.name)) for o in self.options}

    # --- the parts, one signature for all games -----------------------------------

    def load_profile(self, name: str | None = None) -> Any:
        return self.part("profile")(name)

    def table_id(self, kind: str) -> str:
        return f"{self.id_prefix}-{kind}"

    def remote_view(self) -> RemoteView:
        """What the game shows remote players (the ``remote`` part)."""
        return self.part("remote")  # type: ignore[return-value]

    def states(self) -> Any:
        """The enum of the game's round states (its procedure's), or None
        where the game names no procedure."""
        target = self.parts.get("procedure")
        return load(target).states if target else None

    def console_piece_file(self) -> Any:
        """The file of :attr:`console_piece` (an ``importlib.resources`` path), or None."""
        if not self.console_piece:
            return None
        package, _, path = self.console_piece.partition(":")
        return importlib.resources.files(package).joinpath(path)


    def catalog_dir(self) -> Path | None:
        """The folder of the game's own message catalogs (``i18n/`` beside its
        console part, or its table part: ``en.po``, ``pt.po``, ``zh-Hant.po``), or None without one."""
        package = (self.parts.get("console") or self.parts["table"]).partition(":")[0].rpartition(".")[0]
        try:
            folder = Path(str(importlib.resources.files(package) / "i18n"))
        except ModuleNotFoundError:
            return None
        return folder if folder.is_dir() else None


def folder_parts(package: str, console: str, *, devices: bool = False) -> dict[str, str]:
    """Every part where a game folder laid out like the built-in ones keeps it
    (``profile.py``, ``game.py``, ``machine.py``, ``dealer.py``,
    ``script.py``, ``simulation.py``, ``analysis.py``, ``console.py``); ``console``: the name of its console adapter class;
    ``devices``: the game says which devices a table needs
    (``game:devices``), not always all its ``device_kinds``. A game laid out
    otherwise names its parts itself."""
    return {
        "profile": f"{package}.profile:load_profile",
        "settings": f"{package}.game:settings",
        "config_settings": f"{package}.game:config_settings",
        **({"devices": f"{package}.game:devices"} if devices else {}),
        "table": f"{package}.game:table",
        "procedure": f"{package}.machine:PROCEDURE",
        "mock": f"{package}.dealer:mock",
        "session": f"{package}.dealer:session",
        "script": f"{package}.script:script_session",
        "simulator": f"{package}.simulation:simulator",
        "simulation_exact": f"{package}.simulation:simulation_exact",
        "analyze": f"{package}.analysis:analyze",
        "render_analysis": f"{package}.analysis:render_analysis",
        "console": f"{package}.console:{console}",
        "dealer": f"{package}.dealer:play_round",
    }


def load(target: str) -> Any:
    """The object ``"module:attribute"`` names, imported now."""
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise InputError(f"{module_name} has no {attribute}") from None
