"""Finding and loading rule profiles and table configurations from ``config/``.

Profiles are TOML files under ``config/rules/`` named ``<game>-<profile>.toml``.
A profile may be named (``macau-2008``) or given as a path to any TOML file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tablesim.core.errors import ConfigError, InputError

GAMES = ("fortune3", "football", "wheel")
DEFAULT_PROFILES = {"fortune3": "macau-2008", "football": "macau-2003", "wheel": "macau-2003"}


def config_root() -> Path:
    """The directory holding ``rules/`` and ``tables/``.

    In a source checkout (and an editable install) this is the repository's
    ``config/``; in an installed wheel it is the packaged copy.
    """
    here = Path(__file__).resolve().parent.parent / "config"
    if (here / "rules").is_dir():
        return here
    return Path(__file__).resolve().parent / "_config"


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError("file not found", where=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", where=str(path)) from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 by definition
        raise ConfigError(f"not UTF-8 text (byte {exc.start}: {exc.object[exc.start]:#04x})",
                          where=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", where=str(path)) from None


def check_game(game: object, where: str = "game") -> str:
    if game not in GAMES:
        raise ConfigError(f"unknown game {game!r} (games: {', '.join(GAMES)})", where=where)
    return str(game)


def rule_profile_path(game: str, profile: str | None = None) -> Path:
    name = profile or DEFAULT_PROFILES[game]
    candidate = Path(name)
    if candidate.suffix == ".toml" or candidate.exists():
        return candidate
    path = config_root() / "rules" / f"{game}-{name}.toml"
    if not path.exists():
        known = sorted(p.stem.removeprefix(f"{game}-") for p in (config_root() / "rules").glob(f"{game}-*.toml"))
        raise ConfigError(f"no rule profile {name!r} for {game} (known: {', '.join(known) or 'none'})")
    return path


def load_rule_profile_data(game: str, profile: str | None = None) -> tuple[dict[str, Any], str]:
    """The raw profile table and the file name to quote in errors."""
    path = rule_profile_path(game, profile)
    data = read_toml(path)
    found = data.get("game")
    if found != game:
        raise ConfigError(f"profile is for game {found!r}, not {game!r}", where=f"{path}: game")
    return data, str(path)


def profile_header(r) -> tuple[str, str]:
    """The keys every rule profile starts with: ``game`` (checked when the
    file was found), ``name`` and an optional ``description``."""
    r.str("game")
    return r.str("name"), r.str("description", "")


def script_profile(table, load):
    """A script's ``table.profile`` (default: the game's default profile),
    loaded with ``load``; a bad one is an error at ``table.profile``."""
    name = table.str("profile") if table.has("profile") else None
    try:
        return load(name)
    except InputError as exc:
        raise table.fail("profile", exc.message) from None
