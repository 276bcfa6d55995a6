"""docs/drivers.md's template backend runs: registered, opened from a
configuration's settings on a pty, a printed card is a CardRead, a bad
setting is a located ConfigError."""

from __future__ import annotations

import re
import time
import types

import pytest

from drivers.emulators.transport import PtyPort
from drivers.events import CardRead, FaultRaised
from drivers.registry import BACKENDS, open_device, register_backend
from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from tablecore.errors import ConfigError
from tablesim.profiles import config_root

DOC = config_root().parent / "docs" / "drivers.md"


def template_module() -> types.ModuleType:
    (code,) = re.findall(r"```python\n(\"\"\"acme_tablesim/shoe.py.*?)```", DOC.read_text(), re.S)
    module = types.ModuleType("acme_shoe")
    exec(compile(code, str(DOC), "exec"), module.__dict__)
    return module


@pytest.fixture
def acme():
    register_backend("acme", "shoe", template_module().AcmeShoe)
    yield
    BACKENDS.pop("acme", None)


def next_event(device, seconds=10.0):  # pure waiting
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        event = device.next_event(0.2)
        if event is not None:
            return event
    raise AssertionError("no event")


def test_the_template_backend_reads_cards(acme):
    port = PtyPort()
    try:
        shoe = open_device("shoe", "acme", {"url": port.path})
        try:
            port.write(b"QH\n")
            assert isinstance(next_event(shoe), FaultRaised)  # disarmed: fault 204, never a card
            shoe.arm("R1", 3)
            port.write(b"garbage\nTS\n")
            event = next_event(shoe)
            assert isinstance(event, CardRead) and (event.round_id, event.index, event.card.code) == ("R1", 0, "TS")
        finally:
            shoe.close()
    finally:
        port.close()


def test_the_template_backend_owns_its_settings(acme):
    with pytest.raises(ConfigError, match=r"devices.shoe.parity: unknown key"):
        open_device("shoe", "acme", {"url": "/dev/null", "parity": "E"}, open=False)
