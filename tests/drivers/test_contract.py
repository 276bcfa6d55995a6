"""The driver contract kit: ``tablesim devices check --config FILE
[--emulated]`` on the example configurations, a backend that breaks the
contract found out (exit 1), and the pytest fixture a backend in another
package runs."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from drivers.base import CardShoeReader
from drivers.events import CardRead
from drivers.registry import BACKENDS, register_backend
from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from line_support import emulated, settings_of
from tablecore.cards import DECK
from tablesim.cli.main import cli

pytest_plugins = ["drivers.contract_plugin"]


def check(*args: str):
    return CliRunner().invoke(cli, ["devices", "check", *args, "--json"])


@pytest.mark.parametrize("name, skipped", [
    ("wheel-line", {"no card twice"}),
    ("fortune3-line", set()),
    ("fortune3-hid", set()),
    ("fortune3-mock", {"silence is a fault, never a hang", "reconnect after a lost link",
                       "faults named with their source"}),
])
def test_the_examples_keep_the_contract_on_their_emulators(name, skipped):
    result = check("--config", name, "--emulated")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["passed"] is True
    (device,) = report["devices"].values()
    assert {c["check"] for c in device["checks"] if c["status"] == "skip"} == skipped, device
    assert all(c["status"] == "pass" for c in device["checks"] if c["check"] not in skipped)


class TwiceShoe(CardShoeReader):
    """A shoe that reports every card twice: what the contract must catch."""

    def __init__(self, **_: object) -> None:
        super().__init__("shoe")
        self.armed, self.round_id, self.index, self.pending = False, "", 0, []
        self.deck = iter(DECK)

    def load_shoe(self, shoe_id: str, decks: int) -> None:
        pass

    def arm(self, round_id: str, max_cards: int) -> None:
        self.armed, self.round_id, self.index = True, round_id, 0

    def disarm(self) -> None:
        self.armed = False

    def next_event(self, timeout=0.0):
        if not self.armed:
            return None
        if not self.pending:
            card = next(self.deck)
            event = CardRead(self.round_id, self.index, card, device=self.name)
            self.index += 1
            self.pending = [event, event]
        return self.pending.pop()


@pytest.fixture
def twice_backend():
    register_backend("twice", "shoe", TwiceShoe)
    yield
    BACKENDS.pop("twice", None)


def test_a_backend_that_reports_a_card_twice_fails_and_exits_1(tmp_path, twice_backend):
    from tablesim.profiles import config_root

    text = (config_root() / "tables" / "fortune3-mock.toml").read_text().replace('backend = "mock"\nseed = 7',
                                                                                'backend = "twice"')
    path = tmp_path / "twice.toml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["devices", "check", "--config", str(path)])
    assert result.exit_code == 1, result.output
    assert "shoe (twice)  fail  no card twice: reported twice" in result.output
    assert "failed" in result.output.splitlines()[-1]


def test_the_fixture_runs_the_contract_on_a_device_of_another_package(device_contract):
    from drivers.contract import DeviceSide

    with emulated("wheel", settings_of("wheel-line", "wheel"), tcp=True) as (wheel, emu, server):
        outcomes = device_contract(wheel, "wheel", DeviceSide(emu.mute, server.drop))
    assert [o.status for o in outcomes] == ["pass", "pass", "pass", "pass", "skip", "pass", "pass"]


def test_the_fixture_fails_a_broken_device(device_contract):
    with pytest.raises(pytest.fail.Exception, match="no card twice: reported twice"):
        device_contract(TwiceShoe(), "shoe")
