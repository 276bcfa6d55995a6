"""Where a seeded draw is taken: a mock table and a demo on emulators
(``--emulated --seed``, whose table runs in mock mode, journaled as seeded);
never a table on its configured devices, whatever ``--seed`` says."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from leakcheck import no_leaks  # noqa: F401 - autouse fixture
from tablesim.cli.main import cli
from tablesim.profiles import config_root


def draws(journal) -> list[dict]:
    result = CliRunner().invoke(cli, ["history", "--journal", str(journal), "--json"])
    assert result.exit_code == 0, result.output
    out = []

    def walk(node):
        if isinstance(node, dict):
            if "seeded" in node and "source" in node:
                out.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(result.stdout))
    return out


def play(tmp_path, *args: str) -> list[dict]:
    journal = tmp_path / "j.sqlite"
    result = CliRunner().invoke(cli, ["run", *args, "--seed", "3", "--rounds", "1", "--journal", str(journal),
                                      "--time-scale", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    return draws(journal)


@pytest.mark.parametrize("args", [["--game", "football", "--emulated"], ["--config", "football-line", "--emulated"]],
                         ids=["emulated", "config-emulated"])
def test_a_demo_on_emulators_takes_the_seed_for_its_draw_and_says_so(tmp_path, args):
    found = play(tmp_path, *args)
    assert found and all(d["seeded"] is True and d["source"] == "seeded" for d in found)


def test_a_table_on_its_configured_devices_never_seeds_its_draw(tmp_path):
    text = (config_root() / "tables" / "football-serial.toml").read_text()
    head = text[: text.index("[devices.shoe]")]
    path = tmp_path / "table.toml"
    path.write_text(head + '[devices.shoe]\nbackend = "mock"\n\n[devices.display]\nbackend = "mock"\n')
    found = play(tmp_path, "--config", str(path))
    assert found and all(d["seeded"] is False for d in found)
