"""The coin game's spec (entry point ``tablesim.games``: coin = coin.spec:SPEC)."""

from tablesim.games.gamespec import GameSpec

_HERE = "coin.game"

SPEC = GameSpec(
    name="coin",
    title="Coin toss",
    default_profile="toy",
    id_prefix="COIN",
    simulation_note="a fair coin, tossed from the table's seeded generator",
    bench_table="3 boxes on both sides",
    parts={part: f"{_HERE}:{part}" for part in (
        "profile", "settings", "config_settings", "devices", "table", "diagram", "mock", "session", "script",
        "simulator", "simulation_exact", "analyze", "render_analysis", "console", "dealer")},
)
