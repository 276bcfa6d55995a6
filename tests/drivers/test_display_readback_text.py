"""A display that reads back another combination's numbers: the fault
names that combination's draw (it used to say "reads back 0", the display
driver knowing only the combination it was sent)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from tablesim.cli.main import cli
from tablesim.games.football.profile import load_profile


@pytest.mark.parametrize("mode", [["--game", "football"], ["--config", "football-serial"]], ids=["emulated", "config"])
def test_the_read_back_fault_names_the_draw_whose_numbers_were_read_back(mode):
    result = CliRunner().invoke(cli, ["run", *mode, "--emulated", "--fault", "display:readback", "--rounds", "1",
                                      "--seed", "4", "--journal", "none", "--time-scale", "0"])
    assert result.exit_code == 0, result.output
    found = re.search(r"the display reads back (\d+), the draw is (\d+)", result.output)
    assert found, result.output
    shown, drawn = (int(g) for g in found.groups())
    draws = load_profile(None).draws  # the emulator's read-back fault swaps the two sets
    assert shown != 0 and (draws[shown].upper, draws[shown].lower) == (draws[drawn].lower, draws[drawn].upper)
