"""The devices of a table configuration put through the driver contract
(:mod:`drivers.contract`): ``tablesim devices check --config FILE
[--emulated]``.

On its real devices only what the host alone can do is checked (the
checks that need the device's side are skipped). With ``--emulated``
each device runs on its emulator over TCP (a serial, line or USB device),
so the kit can also silence it and cut its line.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from drivers.base import Device
from drivers.contract import DeviceSide, Outcome, check_device
from drivers.emulators import make_emulator
from drivers.emulators.server import EmulatorServer
from tablecore.errors import ConfigError
from tablesim.harness.tableconfig import DeviceConfig, TableConfig


def _tcp(stack: ExitStack, emulator: Any) -> EmulatorServer:
    return stack.enter_context(EmulatorServer(emulator, pty=False, tcp=0))


def _emulated(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int) -> tuple[Device, DeviceSide | None]:
    kind = device.kind
    if device.backend == "mock":
        return config.open_device(kind), None
    if device.backend == "serial":
        emulator = make_emulator(kind, seed=seed, time_scale=0)
        server = _tcp(stack, emulator)
        opened = config.open_device(kind, url=server.url)
        return opened, DeviceSide(emulator.mute, server.drop, supervised=True)
    if device.backend == "line":
        from drivers.lineproto.emulator import LineEmulator

        spec = device.options["spec"]
        emulator = LineEmulator(spec, seed=seed, time_scale=0)
        server = _tcp(stack, emulator)
        opened = config.open_device(kind, url=server.url, reconnect=0.2)
        opened.cues.append(emulator.cue)  # type: ignore[attr-defined]
        supervised = spec.poll_interval is not None or spec.status_interval is not None
        return opened, DeviceSide(emulator.mute, server.drop, supervised=supervised)
    if device.backend == "usb":
        from drivers.usb.emulated_backend import EmulatedShoeBackend

        o = device.options
        backend = EmulatedShoeBackend(vid=o["vid"], pid=o["pid"], serial_number=o.get("serial_number", "EMU-SHOE-1"),
                                      seed=seed, time_scale=0)
        stack.callback(backend.close)
        return config.open_device(kind, usb_backend=backend), DeviceSide(backend.emulator.mute, None)
    if device.backend == "hid":
        return _hid(stack, config, device, seed)
    if device.backend == "evdev":
        return _evdev(stack, config, device, seed)
    raise ConfigError(f"the {device.backend} backend has no emulator", where=f"{config.path}: devices.{kind}.backend")


def _hid(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int) -> tuple[Device, DeviceSide]:
    import threading

    from drivers.usb.hid_backend import EmulatedHidReader

    o = device.options
    reader = EmulatedHidReader(vid=o["vid"], pid=o["pid"], serial_number=o.get("serial_number", "EMU-HID-1"),
                               cards=o.get("cards"), seed=seed, time_scale=0)
    stack.callback(reader.close)
    opened = config.open_device(device.kind, usb_backend=reader)
    opened.cues.append(reader.cue)  # type: ignore[attr-defined]

    def cut() -> None:  # unplugged, and plugged in again a moment later
        reader.unplug()
        threading.Timer(0.3, reader.replug).start()

    return opened, DeviceSide(reader.mute, cut, supervised=False)


def _segments(config: TableConfig, kind: str) -> int | None:
    """A wheel's segments, from its table's profile, the game's (None for other kinds)."""
    if kind != "wheel":
        return None
    from tablesim.games import registry

    layout = getattr(registry.spec(config.game).load_profile(config.profile), "layout", None)
    return None if layout is None else len(layout)


def _evdev(stack: ExitStack, config: TableConfig, device: DeviceConfig, seed: int) -> tuple[Device, DeviceSide]:
    import threading

    from drivers.evdev.emulator import EmulatedKeyboard

    keyboard = EmulatedKeyboard(cards=device.options.get("cards"), seed=seed, time_scale=0)
    stack.callback(keyboard.close)
    opened = config.open_device(device.kind, path=keyboard.path, reconnect=0.1)
    opened.cues.append(keyboard.cue)  # type: ignore[attr-defined]

    def cut() -> None:  # unplugged, and plugged in again a moment later
        keyboard.unplug()
        threading.Timer(0.3, keyboard.replug).start()

    return opened, DeviceSide(keyboard.mute, cut, supervised=False)


def check_config(config: TableConfig, *, emulated: bool, wait: float = 10.0) -> dict[str, list[Outcome]]:
    """Each device of ``config`` through the contract: kind -> outcomes."""
    results: dict[str, list[Outcome]] = {}
    for i, (kind, device) in enumerate(config.devices.items()):
        with ExitStack() as stack:
            if emulated:
                opened, side = _emulated(stack, config, device, seed=7 + i)
            else:
                opened, side = config.open_device(kind), None
            stack.callback(opened.close)  # closed before its emulator stops
            results[kind] = check_device(opened, kind, side, wait=wait, segments=_segments(config, kind))
    return results


__all__ = ["check_config"]
