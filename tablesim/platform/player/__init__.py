"""The remote player: the page, its WebSocket, the fan-out and the recall."""
