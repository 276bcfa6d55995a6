"""A table configuration's devices, each replaced by its emulator:
``tablesim run --config FILE --emulated``.

Every device keeps its backend and its settings, only its line is an
emulator's: a ``serial`` device gets the TDL/1 emulator of its kind on a
pty, a ``usb`` shoe reader the emulated USB backend (vendor, product and
serial number as configured), a ``hid`` reader an emulated keyboard typing
its codes, an ``evdev`` reader the input events of one in a pipe, a ``line`` device the emulator built from its
own line description (cued by its driver when the device takes no arm
command), and a ``mock`` stays a mock. So a configuration made for a table
PC runs on a laptop as it is.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from drivers.base import Device
from drivers.emulators import KINDS, make_emulator
from drivers.emulators.launcher import split_faults
from drivers.emulators.server import EmulatorServer
from tablecore.errors import ConfigError, InputError
from tablesim.harness.tableconfig import DeviceConfig, TableConfig

#: backends whose devices have an emulator here
EMULATED_BACKENDS = ("serial", "usb", "hid", "evdev", "line", "mock")


def _decks(config: TableConfig) -> int:
    return int(getattr(config.settings, "decks", 1) or 1)


def _seed(seed: int | None, kind: str) -> int | None:
    return None if seed is None else seed + 1000 * KINDS.index(kind)


def _line(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int | None, time_scale: float,
          faults: list[str], **objects: Any) -> tuple[Device, str]:
    from drivers.lineproto.emulator import LineEmulator

    try:
        emulator = LineEmulator(device.options["spec"], seed=seed, time_scale=time_scale, decks=_decks(config),
                                faults=faults)
    except ValueError as exc:
        raise ConfigError(f"cannot emulate it: {exc}", where=f"{config.path}: devices.{device.kind}") from None
    server = stack.enter_context(EmulatorServer(emulator, pty=True))
    opened = config.open_device(device.kind, url=server.url, **objects)
    opened.cues.append(emulator.cue)  # type: ignore[attr-defined]
    return opened, server.url


def _serial(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int | None, time_scale: float,
            faults: list[str]) -> tuple[Device, str]:
    options = {"decks": _decks(config)} if device.kind == "shoe" else {}
    emulator = make_emulator(device.kind, seed=seed, time_scale=time_scale, faults=faults, **options)
    server = stack.enter_context(EmulatorServer(emulator, pty=True))
    return config.open_device(device.kind, url=server.url), server.url


def _usb(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int | None, time_scale: float,
         faults: list[str]) -> tuple[Device, str]:
    from drivers.usb.emulated_backend import EmulatedShoeBackend

    o = device.options
    backend = EmulatedShoeBackend(vid=o["vid"], pid=o["pid"], serial_number=o.get("serial_number", "EMU-SHOE-1"),
                                  seed=seed, time_scale=time_scale, faults=faults, decks=_decks(config))
    stack.callback(backend.close)
    return config.open_device(device.kind, usb_backend=backend), f"usb {o['vid']:04x}:{o['pid']:04x} (emulated)"


def _hid(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int | None, time_scale: float,
         faults: list[str]) -> tuple[Device, str]:
    from drivers.usb.hid_backend import EmulatedHidReader

    if faults:
        raise ValueError("the emulated HID reader takes no faults")
    o = device.options
    reader = EmulatedHidReader(vid=o["vid"], pid=o["pid"], serial_number=o.get("serial_number", "EMU-HID-1"),
                               cards=o.get("cards"), seed=seed, time_scale=time_scale)
    stack.callback(reader.close)
    opened = config.open_device(device.kind, usb_backend=reader)
    opened.cues.append(reader.cue)  # type: ignore[attr-defined]
    return opened, f"usb {o['vid']:04x}:{o['pid']:04x} (emulated HID reader)"


def _evdev(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int | None, time_scale: float,
           faults: list[str]) -> tuple[Device, str]:
    from drivers.evdev.emulator import EmulatedKeyboard

    if faults:
        raise ValueError("the emulated keyboard reader takes no faults")
    keyboard = EmulatedKeyboard(cards=device.options.get("cards"), seed=seed, time_scale=time_scale)
    stack.callback(keyboard.close)
    opened = config.open_device(device.kind, path=keyboard.path)
    opened.cues.append(keyboard.cue)  # type: ignore[attr-defined]
    return opened, f"{keyboard.path} (emulated keyboard reader)"


def emulated_devices(stack: ExitStack, config: TableConfig, *, seed: int | None = None, time_scale: float = 0.02,
                     faults: list[str] | tuple[str, ...] = (),
                     taps: dict[str, dict[str, Any]] | None = None) -> tuple[dict[str, Device], str]:
    """Open each device of ``config`` on its emulator (closed by ``stack``); the
    devices and a description of where each one runs. ``taps``: settings that
    code passes to a line device by kind (a capture's ``transport_wrapper``)."""
    try:
        per_kind = split_faults(list(faults), list(config.devices))
    except ValueError as exc:
        raise InputError(str(exc), where="--fault") from None
    devices: dict[str, Device] = {}
    where = []
    for kind, device in config.devices.items():
        if device.backend == "mock":
            if per_kind[kind]:
                raise InputError(f"the {kind} is a mock: --fault applies to emulated devices", where="--fault")
            devices[kind] = config.open_device(kind)
            stack.callback(devices[kind].close)
            where.append(f"{kind} mock")
            continue
        opener = {"line": _line, "serial": _serial, "usb": _usb, "hid": _hid, "evdev": _evdev}.get(device.backend)
        if opener is None:
            raise ConfigError(f"the {device.backend} backend has no emulator (emulated: "
                              f"{', '.join(EMULATED_BACKENDS)})", where=f"{config.path}: devices.{kind}.backend")
        try:
            more = (taps or {}).get(kind, {}) if device.backend == "line" else {}
            devices[kind], url = opener(stack, config, device, _seed(seed, kind), time_scale, per_kind[kind], **more)
        except ValueError as exc:  # a fault spec the emulator does not take
            raise InputError(str(exc), where="--fault") from None
        stack.callback(devices[kind].close)  # closed before its emulator stops (the stack runs backwards)
        where.append(f"{kind} {device.backend} on {url}")
    return devices, ", ".join(where)


__all__ = ["EMULATED_BACKENDS", "emulated_devices"]
