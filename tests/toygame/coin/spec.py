"""The coin game's spec (entry point ``tablesim.games``: coin = coin.spec:SPEC).

It names only its own parts; its devices (none), diagram, mock table,
console, configured settings and analysis rendering are the kit's defaults.
"""

from tablesim.games.gamespec import GameSpec

SPEC = GameSpec(
    name="coin",
    title="Coin toss",
    default_profile="toy",
    id_prefix="COIN",
    simulation_note="a fair coin, tossed from the table's seeded generator",
    bench_table="3 boxes on both sides",
    parts={
        "profile": "coin.game:load_profile",
        "settings": "coin.game:settings",
        "table": "coin.game:table",
        "procedure": "coin.table:PROCEDURE",
        "dealer": "coin.dealer:play_round",
        "session": "coin.dealer:session",
        "script": "coin.script:script",
        "simulator": "coin.analysis:Simulator",
        "analyze": "coin.analysis:analyze",
        "simulation_exact": "coin.analysis:simulation_exact",
    },
)
