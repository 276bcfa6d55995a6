"""A table as a systemd ``Type=notify`` service: READY=1 once it serves,
WATCHDOG=1 from its main loop (and none while that loop is hung), STOPPING=1
on the way out, on a notify socket the test opens."""

from __future__ import annotations

import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from server_process import Serve
from tablesim.harness.sdnotify import Notifier

ROOT = Path(__file__).resolve().parents[2]


class NotifySocket:
    """A datagram socket standing in for systemd's; records (time, message)."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.path = path
        self.messages: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            self.messages.append((time.monotonic(), data.decode()))

    def wait_for(self, text: str, timeout: float = 15.0) -> float:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for at, message in list(self.messages):
                if text in message.split("\n"):
                    return at
            time.sleep(0.01)
        raise AssertionError(f"no {text} in {self.messages}")

    def until_pings(self, start: float, count: int, timeout: float) -> int:
        """The pings since ``start``, once there are ``count`` of them (or ``timeout`` passed)."""
        end = time.monotonic() + timeout
        while self.pings(start, time.monotonic()) < count and time.monotonic() < end:
            time.sleep(0.05)
        return self.pings(start, time.monotonic())

    def pings(self, start: float, end: float) -> int:
        return sum(1 for at, m in list(self.messages) if start <= at <= end and m == "WATCHDOG=1")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def notify(tmp_path):
    ns = NotifySocket(tmp_path / "notify.sock")
    yield ns
    ns.close()


def test_serve_notifies_ready_pings_the_watchdog_and_says_stopping(env, tmp_path, notify):
    env = {**env, "NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "200000"}
    s = Serve(env, "--game", "fortune3", "--mock", "--port", "0", "--journal", str(tmp_path / "f3.sqlite"))
    try:
        ready = notify.wait_for("READY=1")
        first = next(m for _, m in notify.messages if "READY=1" in m)
        assert "STATUS=F3-MOCK: fortune3, serving" in first.split("\n")
        # every 0.1 s (half the period); on a loaded machine the first second after READY may pass with
        # one ping (seen at a load of 12 on 2 cores), so: pings keep coming, not exactly how fast
        assert notify.until_pings(ready, 3, timeout=15.0) >= 3, notify.messages
    finally:
        assert s.stop(signal.SIGTERM) == 0
    notify.wait_for("STOPPING=1", timeout=2)


def test_no_ping_while_the_tables_thread_is_hung(serve, notify, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", str(notify.path))
    monkeypatch.setenv("WATCHDOG_USEC", "100000")
    s = serve("wheel", journal=False)
    notify.wait_for("READY=1")
    notify.wait_for("WATCHDOG=1")
    start = time.monotonic()
    s.on_table(lambda: time.sleep(0.8))  # the table's thread hangs for 0.8 s
    end = time.monotonic()
    assert notify.pings(start + 0.2, end - 0.05) == 0, notify.messages
    assert notify.until_pings(end, 1, timeout=15.0) >= 1  # the loop is back, so are the pings


def test_an_abstract_socket_and_no_socket(tmp_path):
    name = f"@tablesim-test-{time.monotonic_ns()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name[1:])
    sock.settimeout(2)
    try:
        notifier = Notifier.from_env({"NOTIFY_SOCKET": name, "WATCHDOG_USEC": "2000000"})
        assert notifier.watchdog_every == 1.0
        assert notifier.ready("up")
        assert sock.recv(100) == b"READY=1\nSTATUS=up"
        assert notifier.watchdog(now=10.0) and not notifier.watchdog(now=10.5) and notifier.watchdog(now=11.0)
        notifier.close()
    finally:
        sock.close()
    silent = Notifier.from_env({})
    assert not silent.enabled and not silent.ready() and not silent.watchdog()
    other = Notifier.from_env({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"})
    assert other.watchdog_every is None  # the watchdog is another process's
    gone = Notifier(str(tmp_path / "nobody.sock"))
    assert gone.ready() is False  # systemd gone: the table goes on


def test_the_shipped_unit_is_a_notify_service_with_a_watchdog():
    unit = (ROOT / "config" / "systemd" / "tablesim@.service").read_text()
    lines = {line.split("=", 1)[0]: line.split("=", 1)[1] for line in unit.splitlines() if "=" in line
             and not line.startswith("#")}
    assert lines["Type"] == "notify" and lines["WatchdogSec"].rstrip("s").isdigit()
    assert lines["NotifyAccess"] == "main" and lines["Restart"] in ("on-failure", "always")
    # ExecStart is a command line tablesim takes (parsed, not run)
    import shlex

    from tablesim.cli.main import cli

    argv = shlex.split(lines["ExecStart"].replace("%i", "fortune3-serial"))
    assert argv[0].endswith("/tablesim")
    group = cli.make_context("tablesim", argv[1:])
    i = argv.index("serve")
    assert group.params["log_json"] is True  # journald keeps one JSON record per line
    name, rest = argv[i], argv[i + 1:]
    serve = cli.get_command(group, name).make_context(name, rest, parent=group)
    assert name == "serve" and serve.params["config_path"] == "/etc/tablesim/fortune3-serial.toml"
    assert serve.params["journal"].startswith("/var/lib/tablesim/")
    # the data directory (the journal chain's key, a generated token file) is the state directory
    env = dict(e.split("=", 1) for e in lines["Environment"].split())
    assert f"{env['XDG_DATA_HOME']}/tablesim" == f"/var/lib/{lines['StateDirectory']}"


@pytest.mark.skipif(not Path("/usr/bin/systemd-analyze").exists(), reason="needs systemd-analyze")
def test_systemd_accepts_the_unit(tmp_path):
    """systemd's own check of the unit (ExecStart pointed at a binary that exists)."""
    import subprocess

    text = (ROOT / "config" / "systemd" / "tablesim@.service").read_text()
    unit = tmp_path / "tablesim@fortune3-serial.service"
    unit.write_text(text.replace("/opt/tablesim/venv/bin/tablesim", "/bin/true"))
    res = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True,
                         timeout=60)
    problems = [line for line in (res.stdout + res.stderr).splitlines() if str(unit.name) in line or "Failed" in line]
    assert res.returncode == 0 and problems == [], res.stdout + res.stderr


def test_the_udev_rules_name_each_device_by_vendor_product_and_serial():
    import re

    rules = [line for line in (ROOT / "config" / "udev" / "99-tablesim.rules").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    pair = re.compile(r'\s*([A-Z_]+(?:\{[A-Za-z_]+\})?)\s*(==|!=|\+=|=|:=)\s*"([^"]*)"\s*')
    links = {}
    for rule in rules:
        parts = rule.split(",")
        fields = {}
        for part in parts:
            m = pair.fullmatch(part)
            assert m, f"not a udev key: {part!r} in {rule}"
            fields[m[1]] = (m[2], m[3])
        assert fields["GROUP"] == ("=", "dialout") and fields["MODE"] == ("=", "0660")
        if fields["SUBSYSTEM"][1] == "tty":
            for key in ("ATTRS{idVendor}", "ATTRS{idProduct}", "ATTRS{serial}"):
                assert fields[key][0] == "==" and fields[key][1], (key, rule)
            op, link = fields["SYMLINK"]
            assert op == "+=" and link.startswith("tablesim/")
            links[link] = fields["ATTRS{serial}"][1]
        else:
            assert fields["SUBSYSTEM"][1] == "usb" and "ATTR{serial}" in fields
    assert set(links) == {"tablesim/shuffler", "tablesim/shoe", "tablesim/display", "tablesim/wheel"}
    assert len(set(links.values())) == 4  # one adapter each
