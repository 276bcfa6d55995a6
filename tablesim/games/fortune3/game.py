"""Fortune 3 Card Poker's table: its settings and the table on given devices
(the ``settings``, ``config_settings``, ``devices`` and ``table`` parts
of its spec; its diagram is its procedure's)."""

from __future__ import annotations

from typing import Any

from tablesim.engine.limits import Limits
from tablesim.games.fortune3.profile import Fortune3Profile, load_profile
from tablesim.games.fortune3.profile import BETS, MISDEAL_CONFIRMATION, Fortune3Settings, default_limits
from tablesim.games.fortune3.spec import DEALING
from tablesim.games.fortune3.table import Fortune3Table
from tablecore.validate import Reader


def settings(profile: Fortune3Profile, options: dict[str, Any]) -> Fortune3Settings:
    return Fortune3Settings(dealing=options["dealing"])


def config_settings(profile: Fortune3Profile, reader: Reader, limits: Reader | None) -> Fortune3Settings:
    dealing = DEALING.read(reader)
    # Art. 11(1): who voids a dealt round by a misdeal; a dealt round held for the dealer's reveal
    confirm = reader.str("misdeal_confirmation", "supervisor", choices=MISDEAL_CONFIRMATION)
    reveal = reader.bool("reveal_by_dealer", False)
    return Fortune3Settings(dealing=dealing, limits=Limits.parse(limits, BETS) if limits is not None else default_limits(),
                            misdeal_confirmation=confirm, reveal_by_dealer=reveal)


def devices(settings: Fortune3Settings) -> tuple[str, ...]:
    """The shoe or the shuffler, as the table deals."""
    return (settings.dealing,)


def table(devices: dict, settings: Fortune3Settings, *, profile: str | None, table_id: str,
          seed: int | None = None) -> Fortune3Table:
    """A table on real (serial, USB), emulated or mock devices."""
    return Fortune3Table(load_profile(profile), settings, shoe=devices.get("shoe"),
                         shuffler=devices.get("shuffler"), table_id=table_id)

