"""Wheel of Fortune's entry points for the CLI (see tablesim.games.registry)."""

from __future__ import annotations

from tablesim.games.wheel.analysis import analyze, render_analysis
from tablesim.games.wheel.mockrun import run_mock
from tablesim.games.wheel.script import script_session
from tablesim.games.wheel.table import WheelTable


def diagram() -> str:
    return WheelTable.diagram()


__all__ = ["script_session", "run_mock", "analyze", "render_analysis", "diagram"]

from tablesim.games.wheel.simulation import SHOE_STATE as SIMULATION_SHOE_STATE  # noqa: E402
from tablesim.games.wheel.simulation import simulation_exact, simulator  # noqa: E402

__all__ += ["simulator", "simulation_exact", "SIMULATION_SHOE_STATE"]

from tablesim.games.wheel.mockrun import run_table, table_for_devices  # noqa: E402

__all__ += ["run_table", "table_for_devices"]
