"""The table's web app by concern, one FastAPI router each: pages (console,
board, the game's piece), health and metrics, reading, bets, the game's actions,
operator actions (pause, void, incidents) and the live stream. Each gets
the table's runner and tokens as dependencies (``deps``)."""
