"""``tablesim devices``: what a table PC can open, serial and USB."""

from __future__ import annotations

import json

import click


def serial_ports() -> tuple[list[dict], str | None]:
    try:
        from serial.tools import list_ports
    except ImportError as exc:  # pragma: no cover - pyserial is a dependency
        return [], f"pyserial is not installed ({exc})"
    ports = []
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        ports.append({
            "device": port.device,
            "description": port.description,
            "hwid": port.hwid,
            "vid": port.vid,
            "pid": port.pid,
            "serial_number": port.serial_number,
        })
    return ports, None


def usb_devices() -> tuple[list[dict], str | None]:
    try:
        import usb.core
    except ImportError as exc:
        return [], f"pyusb is not installed ({exc})"
    try:
        found = list(usb.core.find(find_all=True))
    except usb.core.NoBackendError:
        return [], "no libusb backend on this machine (install libusb-1.0): USB devices cannot be listed"
    except usb.core.USBError as exc:
        return [], f"USB access failed: {exc}"
    out = []
    for dev in found:
        out.append({"bus": dev.bus, "address": dev.address, "vid": f"{dev.idVendor:04x}", "pid": f"{dev.idProduct:04x}"})
    return out, None


@click.command("devices")
@click.option("--json", "as_json", is_flag=True)
def command(as_json: bool) -> None:
    """List serial ports (pyserial) and USB devices (pyusb), or say why not."""
    ports, serial_why = serial_ports()
    usb, usb_why = usb_devices()
    if as_json:
        click.echo(json.dumps({"serial": ports, "serial_error": serial_why, "usb": usb, "usb_error": usb_why}, indent=2))
        return
    click.echo("serial ports:" if ports else f"serial ports: none found{f' ({serial_why})' if serial_why else ''}")
    for p in ports:
        ids = f" [{p['vid']:04x}:{p['pid']:04x}]" if p["vid"] is not None else ""
        click.echo(f"  {p['device']}  {p['description']}{ids}")
    if usb_why:
        click.echo(f"USB devices: cannot list: {usb_why}")
    else:
        click.echo("USB devices:" if usb else "USB devices: none found")
        for d in usb:
            click.echo(f"  bus {d['bus']} address {d['address']}  {d['vid']}:{d['pid']}")
