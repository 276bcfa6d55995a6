"""Table configurations: ``config/tables/*.toml``.

One file describes one physical table: which game it runs under which rule
profile, its limits, how it is run, and where each of its devices is::

    [table]
    id = "T-01"
    game = "..."                     # a registered game (config/tables/ has one file per game)
    profile = "..."                  # optional: the game's default profile
    key_file = "T-01.key"            # optional: the journal chain's key (mode 0600), relative to
                                     # this file; default <data dir>/<id>.key; created on first use

    [studio]                         # optional: publish the journal to the studio (docs/studio.md)
    url = "nats://studio-bus:4222"   # or urls = ["nats://studio-1:4222", ...] (a cluster)
    signing_key = "T-01.sign.key"    # optional: the Ed25519 key records are signed with (mode 0600);
                                     # default beside the chain's key, <id>.sign.key; created on first use

    [limits]                         # optional: min/max per player's bet ("default" for the rest)
    some_bet = { min = 10, max = 5000 }  # position_max = N: all players on one position together
    unit = 5                         # the betting unit (default 1): bets are whole multiples
    payout_unit = 1                  # the smallest amount paid (default 0.01)

    [settings]                       # the game's table settings (optional): its options
                                     # (see `tablesim run --help`) and what its
                                     # config_settings part reads

    [devices.shoe]                   # one table per device kind the game uses
    backend = "serial"               # mock | serial | usb
    url = "/dev/ttyUSB0"             # serial: any serial_for_url URL
    baudrate = 115200
    timeouts = { ack_timeout = 0.2, heartbeat_interval = 1.0 }

    [operators]                      # optional: who may change the table through tablesim serve
    tokens_file = "T-01.tokens.json"    # relative to this file; generated (mode 0600) on the first run
    # or the operators themselves (each token 16 characters at least):
    # [[operators.list]]
    # name = "ana"
    # role = "dealer"                # dealer | supervisor
    # token = "..."

Without ``[operators]`` ``tablesim serve --config`` generates the tokens on
the first run next to the table's journal (and refuses to listen on an
address other than the loopback).

Everything is checked on load; an error is one line naming the file and the
field (``config/tables/x.toml: devices.shoe.baudrate: 9601 is not one of
...``), and unknown keys are refused so a typo never becomes a default.
Loading imports no device backend: a missing pyserial or pyusb shows only
when the device is opened (:meth:`TableConfig.open_devices`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.base import Device
from drivers.registry import backends, device_settings, open_device
from tablecore.errors import ConfigError, TablesimError
from tablesim.journal.keys import TABLE_ID
from tablecore.validate import Reader
from tablesim.engine.limits import Limits
from tablesim.games import registry
from tablesim.profiles import config_root, read_toml


@dataclass(frozen=True)
class DeviceConfig:
    kind: str
    backend: str
    settings: dict[str, Any]  # as in the file, without "backend"
    options: dict[str, Any]  # the checked constructor arguments

    def open(self, **objects: Any) -> Device:
        """Open this device (``objects``: e.g. ``timing=``, ``usb_backend=`` for an emulated USB reader)."""
        return open_device(self.kind, self.backend, {**self.settings, **objects})


#: the operator roles of ``[operators]`` (as ``tablesim.server.auth.ROLES``)
OPERATOR_ROLES = ("dealer", "supervisor")
#: the shortest operator token accepted
MIN_TOKEN_LENGTH = 16


@dataclass(frozen=True)
class OperatorEntry:
    name: str
    role: str
    token: str

    def __repr__(self) -> str:  # never print a token by accident
        return f"OperatorEntry(name={self.name!r}, role={self.role!r}, token='***')"


@dataclass(frozen=True)
class OperatorsConfig:
    """``[operators]``: a token file (``tokens_file``, resolved against the
    config file's folder; generated on the first run if absent) or the
    operators themselves (``[[operators.list]]``)."""

    where: str  # "<config file>: operators", for messages
    tokens_file: Path | None = None
    entries: tuple[OperatorEntry, ...] = ()


@dataclass(frozen=True)
class TableConfig:
    path: str
    table_id: str
    game: str
    profile: str | None
    limits: Limits
    settings: Any  # the game's settings (its config_settings part)
    devices: dict[str, DeviceConfig] = field(default_factory=dict)
    operators: OperatorsConfig | None = None  # None: tokens generated next to the journal
    key_file: Path | None = None  # the journal chain's key; None: <data dir>/<table id>.key
    studio_url: str | None = None  # [studio] url: publish the journal to the studio's NATS
    studio_signing_key: Path | None = None  # [studio] signing_key: the table's Ed25519 key; None: beside the chain key

    def open_device(self, kind: str, **objects: Any) -> Device:
        """Open one device; a port that cannot be opened, or no answer on it, is
        one line naming this file and the key that names the port."""
        device = self.devices[kind]
        try:
            return device.open(**objects)
        except TablesimError as exc:  # DeviceUnavailable, BackendUnavailable
            key = f"devices.{kind}" + (".url" if "url" in device.settings else "")
            raise ConfigError(f"{exc} (which device answers on which port: tablesim devices --probe)",
                              where=f"{self.path}: {key}") from None

    def open_devices(self, **objects: dict[str, Any]) -> dict[str, Device]:
        """Open every device (``objects[kind]``: extra objects for that device); all or none."""
        opened: dict[str, Device] = {}
        try:
            for kind in self.devices:
                opened[kind] = self.open_device(kind, **objects.get(kind, {}))
        except BaseException:
            for device in opened.values():
                device.close()
            raise
        return opened


def table_config_path(name: str | Path) -> Path:
    """A path as given, or ``config/tables/<name>.toml``."""
    candidate = Path(name)
    if candidate.suffix == ".toml" or candidate.exists():
        return candidate
    path = config_root() / "tables" / f"{name}.toml"
    if not path.exists():
        known = sorted(p.stem for p in (config_root() / "tables").glob("*.toml"))
        raise ConfigError(f"no table configuration {str(name)!r} (known: {', '.join(known) or 'none'})")
    return path


def load_table_config(name: str | Path) -> TableConfig:
    """Load and check a table configuration (a path or a name under config/tables/)."""
    path = table_config_path(name)
    top = Reader(read_toml(path), file=str(path))

    table = top.sub("table")
    table_id = table.str("id")
    if not TABLE_ID.fullmatch(table_id):
        # it names the journal and key files and rounds on the device link
        raise table.fail("id", f"{table_id!r} must be 1 to 32 of A-Z a-z 0-9 _ - (it names the table's files)")
    game = table.str("game", choices=registry.names())
    profile_name = table.str("profile") if table.has("profile") else None
    key_file = _key_file(table, path) if table.has("key_file") else None
    table.reject_unknown()
    profile = _load_profile(game, profile_name, table)

    settings_r = top.sub("settings") if top.has("settings") else Reader({}, "settings", file=str(path))
    limits_r = top.sub("limits") if top.has("limits") else None
    settings = registry.spec(game).part("config_settings")(profile, settings_r, limits_r)
    settings_r.reject_unknown()

    devices = _devices(top, game, settings)
    operators = _operators(top.sub("operators"), path) if top.has("operators") else None
    studio_url, signing_key = _studio(top.sub("studio"), path) if top.has("studio") else (None, None)
    top.reject_unknown()
    return TableConfig(str(path), table_id, game, profile_name, settings.limits, settings, devices, operators,
                       key_file, studio_url, signing_key)


def _key_file(table: Reader, path: Path, field: str = "key_file") -> Path:
    """``[table] key_file``: the journal chain's key, relative to the config file's folder."""
    name = table.str(field)
    if not name.strip():
        raise table.fail(field, "must name a file")
    file = Path(name).expanduser()
    if not file.is_absolute():
        file = path.resolve().parent / file
    if file.is_dir():
        raise table.fail(field, f"{file} is a directory")
    return file


def _studio(reader: Reader, path: Path) -> tuple[str, Path | None]:
    """``[studio] url = "nats://HOST:PORT"`` (or several, comma-separated) or
    ``urls = [...]`` (a cluster's nodes): where the table publishes its
    journal; ``signing_key``: its Ed25519 signing key (relative to this file)."""
    from tablecore import natsurl

    signing_key = _key_file(reader, path, "signing_key") if reader.has("signing_key") else None
    if reader.has("url") == reader.has("urls"):
        raise reader.fail(None, "give url or urls (the studio's NATS), one of them")
    key = "url" if reader.has("url") else "urls"
    given = reader.str("url") if key == "url" else reader.list("urls")
    if key == "urls" and not all(isinstance(u, str) for u in given):
        raise reader.fail("urls", "a list of NATS URLs (nats://HOST:PORT)")
    why, urls = natsurl.check(given)
    if why is not None:
        raise reader.fail(key, why)
    reader.reject_unknown()
    return urls, signing_key


def _operators(reader: Reader, path: Path) -> OperatorsConfig:
    where = reader.locate(reader.where)
    for key in reader.data:
        if key not in ("tokens_file", "list"):
            raise reader.fail(key, "unknown key (operators take tokens_file or list)")
    if reader.has("tokens_file") and reader.has("list"):
        raise reader.fail(None, "give tokens_file or list, not both")
    if reader.has("tokens_file"):
        name = reader.str("tokens_file")
        if not name.strip():
            raise reader.fail("tokens_file", "must name a file")
        file = Path(name).expanduser()
        if not file.is_absolute():
            file = path.resolve().parent / file
        if file.is_dir():
            raise reader.fail("tokens_file", f"{file} is a directory")
        reader.reject_unknown()
        return OperatorsConfig(where, tokens_file=file)
    if not reader.has("list"):
        raise reader.fail(None, "needs tokens_file = \"FILE\" or [[operators.list]] entries (name, role, token)")
    items = reader.list("list")
    if not items:
        raise reader.fail("list", "no operators: add at least one (name, role, token)")
    entries: list[OperatorEntry] = []
    names: set[str] = set()
    tokens: set[str] = set()
    for i, item in enumerate(items):
        op = Reader(item, f"{reader.at('list')}[{i}]", file=reader.file, error=reader.error)
        name = op.str("name")
        if not name or len(name) > 40 or not all(0x20 < ord(c) < 0x7F for c in name):
            raise op.fail("name", f"{name!r} must be 1 to 40 printable characters without spaces")
        role = op.str("role", choices=OPERATOR_ROLES)
        token = op.str("token")
        if len(token) < MIN_TOKEN_LENGTH:
            raise op.fail("token", f"too short ({len(token)} characters, {MIN_TOKEN_LENGTH} at least)")
        if any(c.isspace() for c in token) or not token.isprintable():
            raise op.fail("token", "must be printable characters without spaces")
        if name in names:
            raise op.fail("name", f"operator {name!r} is listed twice")
        if token in tokens:
            raise op.fail("token", "the same token is given to two operators")
        op.reject_unknown()
        names.add(name)
        tokens.add(token)
        entries.append(OperatorEntry(name, role, token))
    reader.reject_unknown()
    return OperatorsConfig(where, entries=tuple(entries))


def _load_profile(game: str, name: str | None, table: Reader) -> Any:
    try:
        return registry.spec(game).load_profile(name)
    except ConfigError as exc:
        raise table.fail("profile", str(exc)) from None


def required_devices(game: str, settings: Any) -> tuple[str, ...]:
    """The device kinds ``game``'s table needs with these settings."""
    return tuple(registry.spec(game).part("devices")(settings))


def _devices(top: Reader, game: str, settings: Any) -> dict[str, DeviceConfig]:
    allowed = registry.spec(game).device_kinds
    needed = required_devices(game, settings)
    if not top.has("devices"):
        raise top.fail("devices", f"missing: a {game} table needs " + " and ".join(f"[devices.{k}]" for k in needed))
    devices_r = top.sub("devices")
    known_backends = backends()
    out: dict[str, DeviceConfig] = {}
    for kind in devices_r.data:
        if kind not in allowed:
            raise devices_r.fail(kind, f"a {game} table has no {kind} (its devices: {', '.join(allowed)})")
        reader = devices_r.sub(kind)
        backend = reader.str("backend", choices=[b for b, kinds in known_backends.items() if kind in kinds])
        options = device_settings(kind, backend, reader)
        raw = {k: v for k, v in reader.data.items() if k != "backend"}
        out[kind] = DeviceConfig(kind, backend, raw, options)
    for kind in needed:
        if kind not in out:
            why = _chosen_by(game, settings) if needed != allowed else ""
            raise devices_r.fail(kind, f"missing: a {game} table needs a [devices.{kind}]{why}")
    return out


def _chosen_by(game: str, settings: Any) -> str:
    """Which settings chose the devices a table needs, e.g. `` (dealing = shoe)``."""
    chosen = [f"{o.name} = {getattr(settings, o.name)}" for o in registry.spec(game).options if hasattr(settings, o.name)]
    return f" ({', '.join(chosen)})" if chosen else ""


__all__ = [
    "DeviceConfig", "OPERATOR_ROLES", "OperatorEntry", "OperatorsConfig", "TableConfig",
    "load_table_config", "required_devices", "table_config_path",
]
