"""The coin game's rules (its profile) and table settings, and its table on given devices (none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablecore.money import parse_amount
from tablesim.engine.limits import Limit, Limits

from coin.table import SIDES, CoinTable


@dataclass(frozen=True)
class Profile:
    name: str = "toy"


@dataclass(frozen=True)
class Settings:
    limits: Limits


def load_profile(name: str | None = None) -> Profile:
    return Profile(name or "toy")


def settings(profile: Profile, options: dict[str, Any]) -> Settings:
    return Settings(Limits({s: Limit(parse_amount(1), parse_amount(100)) for s in SIDES}))


def table(devices: dict, settings: Settings, *, profile: str | None, table_id: str, seed: int | None = None) -> CoinTable:
    return CoinTable(load_profile(profile), settings, table_id=table_id)
