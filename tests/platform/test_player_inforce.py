"""The rule profile in force at a table, as the players' page draws it: a
round's first record carries its profile's rules beside the stamp; the
platform reads them back to the game's profile only when they are the
stamp's, and the page's layout (spots, pays, paytable, the wheel) is that
profile's."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from tablesim.games import registry
from tablesim.journal.journal import Journal
from tablesim.platform.player.hub import Hub
from tablesim.platform.player.inforce import layout_in_force, profile_from
from tablesim.platform.tables import Offer
from tablesim.profiles import profile_rules, profile_sha256, profile_stamp
from tablesim.studio.wire import WireRecord


def custom_wheel(tmp_path):
    """A wheel whose joker pays 40 and logo 50 (the two have one segment each: only the names tell them apart)."""
    text = Path(registry.spec("wheel").load_profile(None).source).read_text()
    text = text.replace('name = "macau-2003"', 'name = "house-wheel"')
    text = text.replace("[symbols.joker]\nsegments = 1\npays = 45", "[symbols.joker]\nsegments = 1\npays = 40")
    text = text.replace("[symbols.logo]\nsegments = 1\npays = 45", "[symbols.logo]\nsegments = 1\npays = 50")
    path = tmp_path / "wheel-house.toml"
    path.write_text(text)
    profile = registry.spec("wheel").load_profile(str(path))
    assert (profile.pays("joker"), profile.pays("logo")) == (40, 50)
    return profile


def published(profile) -> dict:
    """A round's first record's data as the bus carries it (JSON)."""
    return json.loads(json.dumps({"profile": profile_stamp(profile), "rules": profile_rules(profile)}))


def test_every_games_profiles_read_back_as_the_table_holds_them(tmp_path):
    for game, name in (("wheel", None), ("football", None), ("football", "macau-2003-house-rounding"),
                       ("fortune3", None), ("fortune3", "macau-2008-remote")):
        profile = registry.spec(game).load_profile(name)
        data = published(profile)
        back = profile_from(game, data["profile"], data["rules"])
        assert type(back) is type(profile) and profile_sha256(back) == profile_sha256(profile), (game, name)
    wheel = custom_wheel(tmp_path)
    data = published(wheel)
    drawn = layout_in_force("wheel", data)
    assert drawn["layout"]["rules"]["pays"] == {"1": "1", "3": "3", "5": "5", "10": "10", "20": "20",
                                                "joker": "40", "logo": "50"}
    assert drawn["layout"]["rules"]["profile"] == "house-wheel"
    assert drawn["layout"]["wheel"] == list(wheel.layout)


def test_rules_that_are_not_the_stamps_are_not_shown(tmp_path):
    data = published(custom_wheel(tmp_path))
    data["rules"]["symbols"][5]["pays"] = "45"  # (the table's record says 40)
    assert layout_in_force("wheel", data) is None
    assert layout_in_force("wheel", {"profile": data["profile"]}) is None  # an earlier release's record: no rules


def test_a_round_begun_under_a_profile_draws_the_table_under_it(tmp_path):
    """The journal's round record carries the rules; the hub's table line is drawn from them."""
    wheel = custom_wheel(tmp_path)
    journal = Journal(":memory:")
    journal.profile, journal.profile_rules = profile_stamp(wheel), profile_rules(wheel)
    data = journal.tip.round_data(journal.profile, None, journal.profile_rules)
    offer = Offer(table="W-1", currency="MOP", unit=Decimal("1"), position="player", max=Decimal("1000"), game="wheel")
    hub = Hub({"W-1": offer}, rounds=None)
    live = hub.tables["W-1"]
    assert live.summary()["layout"]["rules"]["pays"]["joker"] == "45"  # no round yet: the game's default
    rec = WireRecord(seq=1, table_id="W-1", round_id="W-1-1", kind="meta", name="round",
                     data=json.loads(json.dumps(data)), prev_hash="", hash="", raw=b"", actor="journal")
    hub.take(rec, 1)
    line = live.summary()
    assert line["layout"]["rules"]["pays"]["joker"] == "40" and line["layout"]["rules"]["profile"] == "house-wheel"
    assert [s["pays"] for s in line["layout"]["symbols"] if s["name"] in ("joker", "logo")] == ["40", "50"]
    journal.close()
