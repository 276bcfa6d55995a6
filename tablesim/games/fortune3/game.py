"""Fortune 3 Card Poker's entry points for the CLI (see tablesim.games.registry)."""

from __future__ import annotations

from tablesim.games.fortune3.script import script_session
from tablesim.games.fortune3.table import Fortune3Table


def diagram() -> str:
    return Fortune3Table.diagram()


__all__ = ["script_session", "diagram"]

from tablesim.games.fortune3.mockrun import run_mock  # noqa: E402

__all__ += ["run_mock"]
from tablesim.games.fortune3.analysis import analyze, render_analysis  # noqa: E402

__all__ += ["analyze", "render_analysis"]
from tablesim.games.fortune3.simulation import SHOE_STATE as SIMULATION_SHOE_STATE  # noqa: E402
from tablesim.games.fortune3.simulation import simulation_exact, simulator  # noqa: E402

__all__ += ["simulator", "simulation_exact", "SIMULATION_SHOE_STATE"]

from tablesim.games.fortune3.mockrun import run_table, table_for_devices  # noqa: E402

__all__ += ["run_table", "table_for_devices"]
