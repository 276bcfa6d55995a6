"""Baccarette as the registry knows it (entry point ``tablesim.games``:
baccarette = baccarette.spec:SPEC). Its mock table, console, configured
settings and analysis rendering are the kit's defaults."""

from tablesim.games.gamespec import GameOption, GameSpec

SPEC = GameSpec(
    name="baccarette",
    title="Baccarette",
    default_profile="standard",
    options=(GameOption("decks", "decks in the shoe", 6, lo=1, hi=8, in_analysis=True),),
    device_kinds=("shoe",),
    id_prefix="BCT",
    simulation_note="a shoe of the given decks, replaced at its cut card",
    bench_table="one box on all three bets",
    parts={
        "profile": "baccarette.game:load_profile",
        "settings": "baccarette.game:settings",
        "table": "baccarette.game:table",
        "procedure": "baccarette.table:PROCEDURE",
        "dealer": "baccarette.dealer:play_round",
        "session": "baccarette.dealer:session",
        "script": "baccarette.script:script",
        "simulator": "baccarette.analysis:Simulator",
        "analyze": "baccarette.analysis:analyze",
        "simulation_exact": "baccarette.analysis:simulation_exact",
    },
)
