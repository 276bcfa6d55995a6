"""The studio's supervised units (config/systemd/): the table, the platform,
the floor, the reference wallet. Each stops on a configuration error
(exit status 2) instead of restarting for ever, runs as its own user,
confined; its command line is one tablesim parses; where systemd-analyze is
installed, each passes ``verify`` and ``security`` rates it OK or better."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
UNITS = {name: ROOT / "config" / "systemd" / f"{name}.service"
         for name in ("tablesim@", "tablesim-platform", "tablesim-floor", "tablesim-wallet")}
USERS = {"tablesim@": "tablesim", "tablesim-platform": "tablesim-platform", "tablesim-floor": "tablesim-floor",
         "tablesim-wallet": "tablesim-wallet"}
INSTALLED = "/opt/tablesim/venv/bin/tablesim"
#: the worst exposure systemd-analyze calls OK
OK = 4.9


def settings(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


@pytest.mark.parametrize("name", UNITS)
def test_a_unit_stops_on_a_configuration_error_and_is_confined(name):
    s = settings(UNITS[name])
    assert s["Restart"] == ["on-failure"] and s["RestartPreventExitStatus"] == ["2"]
    assert s["User"] == [USERS[name]] and s["Group"] == [USERS[name]]
    for key, value in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                       ("PrivateTmp", "yes"), ("CapabilityBoundingSet", ""), ("RestrictNamespaces", "yes"),
                       ("SystemCallArchitectures", "native")):
        assert s[key] == [value], key
    families = s["RestrictAddressFamilies"][0].split()
    assert set(families) <= {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    if name == "tablesim@":  # the table's devices, and only those
        assert s["DevicePolicy"] == ["closed"] and "char-ttyUSB rw" in s["DeviceAllow"]
        assert s["SupplementaryGroups"] == ["dialout"]
    else:
        assert s["PrivateDevices"] == ["yes"] and "AF_NETLINK" not in families


@pytest.mark.parametrize("name", UNITS)
def test_a_units_command_line_is_one_tablesim_parses(name):
    exec_start = settings(UNITS[name])["ExecStart"][0]
    argv = exec_start.replace("%i", "fortune3-serial").replace("${WALLET_URL}", "http://wallet:8070/wallet/v1").split()
    assert argv[0] == INSTALLED
    args = argv[1:]
    # the group's own options first (every unit logs at info, as JSON lines)
    assert args[:3] == ["--log-level", "info", "--log-json"], args
    cli.make_context("tablesim", list(args[:3]) + ["run"])  # (checked as the group reads them)
    command, rest, path = cli, args[3:], ["tablesim"]
    while hasattr(command, "get_command"):  # down the groups to the command
        command = command.get_command(None, rest[0])
        assert command is not None, (name, rest[0])
        path, rest = [*path, rest[0]], rest[1:]
    command.make_context(" ".join(path), list(rest))  # every option parsed and checked; nothing run


def analyzer() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.skip("systemd-analyze is not installed here (Debian package systemd): the units were not verified")
    return found


def on_this_machine(name: str, folder: Path) -> Path:
    """The unit with its ExecStart on this environment's tablesim (verify looks for the program)."""
    here = shutil.which("tablesim") or str(Path(sys.executable).with_name("tablesim"))
    unit = folder / f"{name}{'fortune3-serial' if name.endswith('@') else ''}.service"
    unit.write_text(UNITS[name].read_text().replace(INSTALLED, here))
    return unit


@pytest.mark.parametrize("name", UNITS)
def test_systemd_analyze_verifies_the_unit_and_rates_it_ok(name, tmp_path):
    analyze = analyzer()
    unit = on_this_machine(name, tmp_path)
    checked = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and unit.name not in checked.stderr, checked.stderr
    rated = subprocess.run([analyze, "security", "--offline=yes", str(unit)], capture_output=True, text=True,
                           timeout=120)
    score = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", rated.stdout + rated.stderr)
    if score is None:
        pytest.skip(f"this systemd-analyze rates no unit file offline: {(rated.stderr or rated.stdout)[-200:]}")
    assert float(score.group(1)) <= OK, rated.stdout[-3000:]


def test_the_dealer_screen_is_confined_as_a_kiosk_browser_allows_and_rated_ok(tmp_path):
    """The dealer screen (cage and Chromium on tty1) keeps its seat's devices and
    the user namespaces Chromium's sandbox is built from; everything else is
    taken away, and a refused call is answered EPERM, never a killed browser."""
    screen = ROOT / "config" / "systemd" / "tablesim-screen.service"
    s = settings(screen)
    for key, value in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                       ("PrivateTmp", "yes"), ("CapabilityBoundingSet", ""), ("SystemCallErrorNumber", "EPERM"),
                       ("SystemCallArchitectures", "native"), ("User", "tablesim-screen")):
        assert s[key] == [value], key
    assert "RestrictNamespaces" not in s and "PrivateDevices" not in s and "MemoryDenyWriteExecute" not in s
    assert s["ReadWritePaths"] == ["-/run/user"]  # (the compositor's Wayland socket)
    assert all(group not in s["SystemCallFilter"][0] for group in ("@mount", "@resources", "@privileged"))
    analyze = analyzer()
    rated = subprocess.run([analyze, "security", "--offline=yes", str(screen)], capture_output=True, text=True,
                           timeout=120)
    score = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", rated.stdout + rated.stderr)
    if score is None:
        pytest.skip(f"this systemd-analyze rates no unit file offline: {(rated.stderr or rated.stdout)[-200:]}")
    assert float(score.group(1)) <= OK, rated.stdout[-3000:]
