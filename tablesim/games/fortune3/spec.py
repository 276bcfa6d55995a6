"""Fortune 3 Card Poker, as the registry knows it (entry point ``tablesim.games``)."""

from tablesim.games.gamespec import GameOption, GameSpec, folder_parts

_HERE = "tablesim.games.fortune3"

#: Art. 7: cards come from a shoe one at a time, or three at once from a shuffler
DEALING = GameOption("dealing", "how cards are dealt", "shoe", choices=("shoe", "shuffler"))

SPEC = GameSpec(
    name="fortune3",
    title="Fortune 3 Card Poker",
    default_profile="macau-2008",
    options=(DEALING,),
    device_kinds=("shoe", "shuffler"),
    id_prefix="F3",
    simulation_note="a full deck freshly shuffled for every round (Art. 3)",
    bench_table="all 7 boxes betting (Ante, Pair Plus or both), Q-6-4 decisions",
    benchmarks={"fortune3_hands": f"{_HERE}.simulation:hands"},
    service_benches={"card_to_console": f"{_HERE}.simulation:CARDS"},
    console_piece=f"{_HERE}:static/fortune3.js",
    # the shoe or the shuffler; what remote players see: the shared remote hand
    parts={**folder_parts(_HERE, console="Fortune3Console", devices=True), "remote": f"{_HERE}.remote:VIEW"},
)
