"""The table's HTTP and WebSocket API, dealer console and results board
(``tablesim serve``). See ``app.py`` for the endpoints (``routes/``: one
router per concern), ``process.py`` for running it, ``runner.py`` for how
the table is driven from one thread, and ``docs/console.md``."""

from tablesim.server.app import create_app
from tablesim.server.process import ServerThread, serve_table
from tablesim.server.auth import Operator, TokenStore
from tablesim.server.runner import TableRunner

__all__ = ["ServerThread", "create_app", "serve_table", "Operator", "TokenStore", "TableRunner"]
