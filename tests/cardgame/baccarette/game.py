"""Baccarette's rules (its profile), its table settings, and its table on given devices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablecore.money import parse_amount
from tablesim.engine.limits import Limit, Limits

from baccarette.table import BETS, BaccaretteTable


@dataclass(frozen=True)
class Profile:
    name: str = "standard"


@dataclass(frozen=True)
class Settings:
    decks: int
    limits: Limits


def load_profile(name: str | None = None) -> Profile:
    return Profile(name or "standard")


def settings(profile: Profile, options: dict[str, Any]) -> Settings:
    return Settings(options.get("decks", 6), Limits({b: Limit(parse_amount(1), parse_amount(500)) for b in BETS}))


def table(devices: dict, settings: Settings, *, profile: str | None, table_id: str,
          seed: int | None = None) -> BaccaretteTable:
    return BaccaretteTable(load_profile(profile), settings, shoe=devices["shoe"], table_id=table_id)
