"""Wheel of Fortune's entry points for the CLI (see tablesim.games)."""

from __future__ import annotations

from tablesim.wheel.analysis import analyze, render_analysis
from tablesim.wheel.mockrun import run_mock
from tablesim.wheel.script import script_session
from tablesim.wheel.table import WheelTable


def diagram() -> str:
    return WheelTable.diagram()


__all__ = ["script_session", "run_mock", "analyze", "render_analysis", "diagram"]

from tablesim.wheel.simulation import SHOE_STATE as SIMULATION_SHOE_STATE  # noqa: E402
from tablesim.wheel.simulation import simulation_exact, simulator  # noqa: E402

__all__ += ["simulator", "simulation_exact", "SIMULATION_SHOE_STATE"]

from tablesim.wheel.mockrun import run_table, table_for_devices  # noqa: E402

__all__ += ["run_table", "table_for_devices"]
