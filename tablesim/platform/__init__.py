"""The live-dealer platform: players' sessions and bets against the
operator's wallet, bets to the tables over the studio's bus, and settlement
of the tables' results to the wallet exactly once (docs/platform.md)."""
