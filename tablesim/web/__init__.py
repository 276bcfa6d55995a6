"""What the table's server and the live-dealer platform both serve with:
WebSocket frames written once for every client (``wsframes``), what an open
interface may show of a table (``redaction``, ``opentotals``) and the limits
a request meets before it is served (``requestlimits``).

Layer: below both the server and the platform, which are peers and import
neither the other; above the studio and the games, whose records and
hidden-card marks it reads (checked by import-linter)."""
