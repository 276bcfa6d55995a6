"""Device backends by name, python-can style.

A backend is a name (``mock``, ``serial``, ``usb``) with, per device kind,
a ``"module:attribute"`` target imported only when that backend is used.
So a machine without pyserial, pyusb or libusb loses only the backend that
needs it, with a one-line :class:`BackendUnavailable` error.

::

    shoe = open_device("shoe", "serial", {"url": "/dev/ttyUSB0"})
    shoe = open_device("shoe", "usb", {"vid": 0x1209, "pid": 0x0001})
    wheel = open_device("wheel", "mock", {"seed": 7})

``settings`` are what a table config's ``[devices.<kind>]`` holds (without
``backend``), checked by :func:`device_settings` with located one-line
errors. Code may add objects no file can hold: ``timing`` (a
``LinkTiming``), ``usb_backend`` (a pyusb backend object, for ``usb``),
``transport_wrapper`` (a listener on a serial or USB device's bytes: a
recorder or a replayer, ``tablesim.harness.recording``), ``draws`` (the
display's combinations), ``faults`` (mock fault objects), and for mock
devices ``rng`` (the generator they draw from: a game's mock table shares
one with its simulated players, so a seed replays a whole session) and
``source`` (the pack or the spins they deal from: a shoe and a shuffler of
one table share a pack, a script feeds its own).

More backends can be added with :func:`register_backend`, or by a package
through the ``tablesim.devices`` entry point group (name
``<backend>.<kind>``, value ``module:attribute``). A target is either a
class with a ``from_settings(dict)`` classmethod, a ``Device`` class taking
the settings as keyword arguments, or a factory function taking the dict.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping
from importlib import metadata
from typing import Any, Callable

from drivers.base import Device
from tablecore.errors import ConfigError
from tablecore.validate import Reader

KINDS = ("shuffler", "shoe", "display", "wheel")
BAUDRATES = (9600, 19200, 38400, 57600, 115200, 230400)
ENTRY_POINT_GROUP = "tablesim.devices"

#: backend -> kind -> "module:attribute"
BACKENDS: dict[str, dict[str, str]] = {
    "mock": {
        "shuffler": "drivers.registry:mock_shuffler",
        "shoe": "drivers.registry:mock_shoe",
        "display": "drivers.registry:mock_display",
        "wheel": "drivers.registry:mock_wheel",
    },
    "serial": {
        "shuffler": "drivers.serial.shuffler:SerialShuffler",
        "shoe": "drivers.serial.shoe:SerialShoe",
        "display": "drivers.serial.display:SerialDisplay",
        "wheel": "drivers.serial.wheel:SerialWheel",
    },
    "usb": {
        "shoe": "drivers.usb.shoe:UsbShoe",
    },
    "hid": {
        "shoe": "drivers.usb.hid:HidShoe",
    },
    "evdev": {
        "shoe": "drivers.evdev.shoe:EvdevShoe",
    },
    "line": {
        "shoe": "drivers.lineproto.kinds:LineShoe",
        "display": "drivers.lineproto.kinds:LineDisplay",
        "wheel": "drivers.lineproto.kinds:LineWheel",
    },
}

#: backend -> "module:function(kind, reader) -> settings": backends that check their own settings
SETTINGS: dict[str, str] = {"line": "drivers.lineproto.spec:line_settings", "hid": "drivers.usb.hid:hid_settings",
                            "evdev": "drivers.evdev.shoe:evdev_settings"}

#: what each backend needs installed, for the error when it is missing
REQUIRES = {"serial": "pyserial", "usb": "pyusb and libusb 1.0", "line": "pyserial", "hid": "pyusb and libusb 1.0"}
#: the modules each backend imports (checked first, so a missing one is named plainly)
REQUIRES_MODULES = {"serial": ("serial",), "usb": ("usb.core",), "line": ("serial",), "hid": ("usb.core",)}

#: settings that code may pass and no file can hold
OBJECT_SETTINGS = ("timing", "usb_backend", "transport_wrapper", "draws", "faults", "rng", "source")

_entry_points_loaded = False


class BackendUnavailable(ConfigError):
    """A backend cannot be used here (a dependency is missing); the others still can."""


def register_backend(backend: str, kind: str, target: str | Callable[..., Device]) -> None:
    """Add (or replace) the ``kind`` device of ``backend``: ``"module:attribute"`` or a callable."""
    if kind not in KINDS:
        raise ValueError(f"unknown device kind {kind!r} (kinds: {', '.join(KINDS)})")
    BACKENDS.setdefault(backend, {})[kind] = target  # type: ignore[assignment]


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    try:
        found = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - broken metadata must not stop the built-in backends
        return
    for ep in found:
        backend, dot, kind = ep.name.partition(".")
        if dot and kind in KINDS:
            BACKENDS.setdefault(backend, {}).setdefault(kind, ep.value)


def backends() -> dict[str, tuple[str, ...]]:
    """Every backend name with the kinds it provides."""
    _load_entry_points()
    return {name: tuple(k for k in KINDS if k in kinds) for name, kinds in BACKENDS.items()}


def _target(kind: str, backend: str) -> str | Callable[..., Device]:
    _load_entry_points()
    if kind not in KINDS:
        raise ConfigError(f"unknown device kind {kind!r} (kinds: {', '.join(KINDS)})")
    if backend not in BACKENDS:
        raise ConfigError(f"unknown device backend {backend!r} (backends: {', '.join(BACKENDS)})")
    target = BACKENDS[backend].get(kind)
    if target is None:
        offered = ", ".join(BACKENDS[backend]) or "none"
        raise ConfigError(f"the {backend} backend has no {kind} (it offers: {offered})")
    return target


def resolve(kind: str, backend: str) -> Callable[..., Any]:
    """The class or factory of ``kind`` on ``backend``, imported now."""
    target = _target(kind, backend)
    if not isinstance(target, str):
        return target
    module_name, _, attribute = target.partition(":")
    try:
        for needed in REQUIRES_MODULES.get(backend, ()):
            importlib.import_module(needed)
        module = importlib.import_module(module_name)
    except ImportError as exc:
        need = REQUIRES.get(backend, "its dependencies")
        raise BackendUnavailable(f"{backend} backend unavailable: {exc} (it needs {need})") from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ConfigError(f"{backend} backend: {module_name} has no {attribute}") from None


# -- settings ------------------------------------------------------------------------


def _seconds(reader: Reader, key: str, default: float | None) -> float | None:
    if not reader.has(key):
        reader.raw(key, None)
        return default
    value = reader.decimal(key)
    if value <= 0:
        raise reader.fail(key, f"must be more than 0 seconds, got {value}")
    return float(value)


def _timing(reader: Reader) -> dict[str, Any]:
    """``[devices.<kind>.timeouts]``: link timing and how long to wait for IDN, in seconds."""
    from drivers.serial.timing import LinkTiming  # no third-party import

    if not reader.has("timeouts"):
        return {}
    sub = reader.sub("timeouts")
    base = LinkTiming()
    timing = LinkTiming(
        ack_timeout=_seconds(sub, "ack_timeout", base.ack_timeout),  # type: ignore[arg-type]
        max_resends=sub.int("max_resends", base.max_resends, lo=0, hi=10),
        heartbeat_interval=_seconds(sub, "heartbeat_interval", base.heartbeat_interval),
        heartbeat_misses=sub.int("heartbeat_misses", base.heartbeat_misses, lo=1, hi=20),
        max_gap=_seconds(sub, "max_gap", base.max_gap),  # type: ignore[arg-type]
    )
    out: dict[str, Any] = {"timing": timing}
    identify = _seconds(sub, "identify", None)
    if identify is not None:
        out["identify_timeout"] = identify
    reconnect = _seconds(sub, "reconnect", None)
    if reconnect is not None:
        out["reconnect_interval"] = reconnect
    sub.reject_unknown()
    return out


def device_settings(kind: str, backend: str, reader: Reader) -> dict[str, Any]:
    """Check one device's settings (a file's ``[devices.<kind>]`` minus ``backend``);
    the constructor's keyword arguments. Imports no backend."""
    _target(kind, backend)
    if backend in SETTINGS:  # the backend checks its own settings (no third-party import)
        module_name, _, attribute = SETTINGS[backend].partition(":")
        return getattr(importlib.import_module(module_name), attribute)(kind, reader)
    out: dict[str, Any] = {}
    if reader.has("name"):
        out["name"] = reader.str("name")
    if backend == "serial":
        out["url"] = reader.str("url")
        if not out["url"].strip():
            raise reader.fail("url", "must name a port (e.g. /dev/ttyUSB0 or socket://127.0.0.1:7002)")
        baudrate = reader.int("baudrate", 115200)
        if baudrate not in BAUDRATES:
            raise reader.fail("baudrate", f"{baudrate} is not one of {', '.join(map(str, BAUDRATES))}")
        out["baudrate"] = baudrate
        out.update(_timing(reader))
    elif backend == "usb":
        out["vid"] = reader.int("vid", lo=0, hi=0xFFFF)
        out["pid"] = reader.int("pid", lo=0, hi=0xFFFF)
        if reader.has("serial_number"):
            out["serial_number"] = reader.str("serial_number")
        out["interface"] = reader.int("interface", 0, lo=0, hi=255)
        out.update(_timing(reader))
    elif backend == "mock":
        if reader.has("seed"):
            out["seed"] = reader.int("seed", lo=0)
        if kind in ("shoe", "shuffler"):
            if reader.has("decks"):
                out["decks"] = reader.int("decks", lo=1, hi=8)
            if reader.has("exposed_rate"):
                rate = float(reader.decimal("exposed_rate"))
                if not 0 <= rate < 1:
                    raise reader.fail("exposed_rate", f"must be 0 to less than 1, got {rate}")
                out["exposed_rate"] = rate
        if kind == "shoe" and reader.has("reshuffle_each_load"):
            out["reshuffle_each_load"] = reader.bool("reshuffle_each_load")
        if kind == "wheel" and reader.has("segments"):
            out["segments"] = reader.int("segments", lo=2, hi=999)
    else:
        # A registered backend checks its own settings: pass them through.
        out.update({k: reader.raw(k) for k in reader.data})
    reader.reject_unknown()
    return out


def open_device(kind: str, backend: str, settings: Mapping[str, Any] | None = None, *, open: bool = True) -> Device:
    """A ``kind`` device on ``backend``, opened (unless ``open=False``).

    ``settings`` are checked like a table config's (one-line ConfigError
    naming the bad field); see the module doc for the extra object keys.
    """
    data = dict(settings or {})
    objects = {k: data.pop(k) for k in OBJECT_SETTINGS if k in data}
    if "usb_backend" in objects:
        objects["backend"] = objects.pop("usb_backend")  # UsbShoe/HidShoe(backend=...): what usb.core.find gets
    data.pop("backend", None)  # the registry's backend name, when a whole [devices.x] table is passed
    kwargs = device_settings(kind, backend, Reader(data, f"devices.{kind}"))
    kwargs.update(objects)
    factory = resolve(kind, backend)
    from_settings = getattr(factory, "from_settings", None)
    try:
        device = from_settings(kwargs) if from_settings is not None else factory(**kwargs)
    except TypeError as exc:
        raise ConfigError(f"the {backend} {kind} does not take these settings: {exc}", where=f"devices.{kind}") from None
    if open:
        device.open()
    return device


# -- the mock backend's factories -------------------------------------------------------


def _rng(seed: int | None, rng: random.Random | None = None) -> random.Random:
    return rng if rng is not None else random.Random(seed)


def mock_shoe(*, seed: int | None = None, rng: random.Random | None = None, source: Any = None, decks: int = 1,
              exposed_rate: float = 0.0, reshuffle_each_load: bool | None = None, name: str | None = None,
              faults: Any = ()) -> Device:
    from drivers.mock import MockShoe, ShuffledShoe

    if source is None:
        reshuffle = decks == 1 if reshuffle_each_load is None else reshuffle_each_load
        source = ShuffledShoe(_rng(seed, rng), decks, reshuffle_each_load=reshuffle, exposed_rate=exposed_rate)
    return MockShoe(source, faults, name=name)


def mock_shuffler(*, seed: int | None = None, rng: random.Random | None = None, source: Any = None, decks: int = 1,
                  exposed_rate: float = 0.0, name: str | None = None, faults: Any = ()) -> Device:
    from drivers.mock import MockShuffler, ShuffledShoe

    if source is None:
        source = ShuffledShoe(_rng(seed, rng), decks, reshuffle_each_load=True, exposed_rate=exposed_rate)
    return MockShuffler(source, faults, name=name)


def mock_display(*, seed: int | None = None, rng: random.Random | None = None, name: str | None = None,
                 faults: Any = ()) -> Device:
    from drivers.mock.display import MockDisplay

    return MockDisplay(faults, name=name)


def mock_wheel(*, seed: int | None = None, rng: random.Random | None = None, source: Any = None, segments: int = 52,
               name: str | None = None, faults: Any = ()) -> Device:
    from drivers.mock.wheel import MockWheelSensor, RandomSpins

    return MockWheelSensor(source if source is not None else RandomSpins(_rng(seed, rng), segments), faults, name=name)
