"""The CLI imports a command's module only when that command is looked up:
``tablesim wallet ...`` imports no table, no studio, no games; ``--help``
still lists every command. Each check runs in a fresh interpreter, so what
this test process imported does not count."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

#: modules of other commands (and the games' registry, which only the group's help text needs)
OTHERS = ("tablesim.cli.run_cmd", "tablesim.cli.emulate_cmd", "tablesim.cli.serve_cmd", "tablesim.cli.studio_cmd",
          "tablesim.cli.devices_cmd", "tablesim.cli.platform_cmd", "tablesim.cli.simulate_cmd",
          "tablesim.cli.journal_cmds", "tablesim.games.registry")

LOADED_AFTER = """
import json, sys
from tablesim.cli.main import cli
try:
    cli.main(sys.argv[2:], prog_name="tablesim")
except SystemExit:
    pass
with open(sys.argv[1], "w") as out:
    json.dump(sorted(sys.modules), out)
"""


def loaded_after(tmp_path, *args: str) -> set[str]:
    """The modules a fresh ``tablesim ARGS`` has imported when it ends."""
    path = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", LOADED_AFTER, str(path), *args], capture_output=True, timeout=120,
                   check=True)
    return set(json.loads(path.read_text()))


def tablesim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablesim.cli.main", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("args", [("wallet", "--help"), ("--version",), ("nope",)])
def test_a_command_imports_no_other_commands_module(tmp_path, args):
    loaded = loaded_after(tmp_path, *args)
    assert not loaded & set(OTHERS), sorted(loaded & set(OTHERS))
    assert ("tablesim.cli.wallet_cmd" in loaded) == (args[0] == "wallet")  # (the one asked for is imported)


def test_importing_the_cli_imports_no_command_and_no_logging():
    code = "import sys, json, tablesim.cli.main; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    loaded = set(json.loads(out))
    assert not {m for m in loaded if m.startswith("tablesim.cli.") and m.endswith(("_cmd", "_cmds"))}
    assert "structlog" not in loaded and "tablesim.games.registry" not in loaded  # (imported when needed)


def test_help_lists_every_registered_command_with_its_short_help():
    from tablesim.cli.main import COMMANDS, cli

    names = sorted(name for name in COMMANDS if " " not in name)
    result = tablesim("--help")
    assert result.returncode == 0, result.stderr
    head, _, listed = result.stdout.partition("\nCommands:\n")
    rows = re.findall(r"^  (\S+) +(\S.*)$", listed, re.M)
    assert [name for name, _ in rows] == names  # every one loaded, sorted, each with its short help
    assert "Live-dealer table system: " in head and "Fortune 3 Card Poker" in head  # (computed when shown)
    assert tablesim().stdout == result.stdout  # a bare ``tablesim`` shows the same
    for name in names:  # each registered module:attribute is the command of that name
        assert cli.get_command(None, name).name == name
    assert "demo" in cli.get_command(None, "studio").list_commands(None)  # (added to the studio's group)


def test_an_unknown_command_is_one_line_and_exit_status_2():
    result = tablesim("nope")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "tablesim: error: No such command 'nope'. (see tablesim --help)\n"


def test_a_command_registered_under_another_name_is_refused():
    from tablesim.cli.lazy import LazyGroup

    group = LazyGroup("g", lazy_commands={"money": "tablesim.cli.wallet_cmd:wallet"})
    with pytest.raises(RuntimeError, match="registered as 'money'"):
        group.get_command(None, "money")
