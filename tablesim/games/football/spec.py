"""The football card game, as the registry knows it (entry point ``tablesim.games``)."""

from tablesim.games.gamespec import Felt, GameOption, GameSpec, RemoteView, folder_parts

_HERE = "tablesim.games.football"

#: Art. 2 allows one or more decks; this table's shoe holds 1 to 8.
DECKS = GameOption("decks", "decks in the shoe", 1, lo=1, hi=8, in_analysis=True)

SPEC = GameSpec(
    name="football",
    title="Football card game",
    default_profile="macau-2003",
    options=(DECKS,),
    device_kinds=("shoe", "display"),
    id_prefix="FB",
    simulation_note=(
        "one deck: a fresh shuffled deck whenever the current one could run short (Art. 8(1)); "
        "several decks: a continuous shuffler that takes every round's cards back (Art. 8(2))"
    ),
    bench_table="all 11 boxes betting",
    console_piece=f"{_HERE}:static/football.js",
    parts={**folder_parts(_HERE, console="FootballConsole"), "remote": f"{_HERE}.spec:VIEW"},
)


class FootballView(RemoteView):
    """Remote players bet on the common box; the lobby lists the draw and the common box's total."""

    box = "common"
    scene = "draw"
    #: as on the table: the upper and lower halves, then odd, even and the middle
    felt = Felt(rows=(("upper", "lower"), ("odd", "even", "middle")))

    def short(self, outcome: dict) -> dict:
        common = (outcome.get("boxes") or {}).get("common") or {}
        return {"draw": outcome.get("draw"), "total": common.get("total")}

    def rules(self, profile) -> dict:
        return {"pays": {k: format(v, "f") for k, v in profile.pays.items()},
                # (a fraction of the win: the page says it in percent, exact)
                "commission": {k: format(v * 100, "f").rstrip("0").rstrip(".")
                               for k, v in profile.commission.items() if v},
                "on_middle": dict(profile.on_middle)}


VIEW = FootballView()
