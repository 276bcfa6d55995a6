"""The pages: the dealer console, the results board and the game's own piece of them."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse, Response

from tablesim.games import registry
from tablesim.server.routes.deps import runner
from tablesim.server.runner import TableRunner

STATIC = Path(str(resources.files("tablesim.server") / "static"))

router = APIRouter(include_in_schema=False)


@router.get("/")
async def console_page():
    return FileResponse(STATIC / "console.html")


@router.get("/board")
async def board_page():
    return FileResponse(STATIC / "board.html")


@router.get("/static/game.js")
async def game_piece(run: TableRunner = Depends(runner)):
    # the table's game draws its own part of the console and the board (a module in its folder)
    piece = registry.spec(run.table.game).console_piece_file()
    if piece is None:
        return Response("// this game draws only the generic parts\n", media_type="text/javascript")
    return FileResponse(Path(str(piece)), media_type="text/javascript")
