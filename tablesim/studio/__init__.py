"""The studio: tables' journals published to NATS JetStream, anchored off the
table PC, followed by a floor service, and bets taken over the bus.

Layer: beside the harness (it may use games, engine, journal, core; never the
CLI or the server, which plug it in)."""
