"""The studio's registered public keys: which key signs which table.

An operator registers each table's public key once (``tablesim keys
export-public`` on the table PC, ``tablesim studio register-key`` on the
studio machine). The file lives on the studio's side, never on the bus:
whoever can publish on the bus cannot register a key. Format (JSON)::

    {"v": 1, "tables": {"F3-01": "<64 hex digits>", ...}}

A public key file (what ``export-public`` writes and ``receipt verify
--key`` reads) is ``{"v": 1, "table_id": "F3-01", "ed25519": "<64 hex>"}``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tablecore.errors import InputError
from tablesim.journal.keys import TABLE_ID
from tablesim.journal.location import data_dir
from tablesim.studio import signing

VERSION = 1
#: the most bytes a keys file may have (a floor of thousands of tables fits)
MAX_FILE = 4 * 1024 * 1024


def default_keys_path() -> Path:
    return data_dir() / "studio-keys.json"


@dataclass
class Trust:
    """table id -> its registered public key."""

    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    hexes: dict[str, str] = field(default_factory=dict)

    def key(self, table_id: str) -> Ed25519PublicKey | None:
        return self.keys.get(table_id)

    def add(self, table_id: str, hex_key: str) -> None:
        self.keys[table_id] = signing.public_key(hex_key)
        self.hexes[table_id] = hex_key


def _read_json(path: Path, what: str) -> object:
    try:
        if path.stat().st_size > MAX_FILE:
            raise InputError(f"{what} over {MAX_FILE} bytes", where=str(path))
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"no such {what}", where=str(path)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read the {what}: {getattr(exc, 'strerror', None) or exc}", where=str(path)) from None


def load_trust(path: str | Path | None, *, missing_ok: bool = True) -> Trust:
    """The registered keys; a missing file (when allowed) registers none."""
    path = Path(path) if path is not None else default_keys_path()
    if missing_ok and not path.exists():
        return Trust()
    doc = _read_json(path, "keys file")
    if not isinstance(doc, dict) or doc.get("v") != VERSION or not isinstance(doc.get("tables"), dict):
        raise InputError(f"not a tablesim keys file (version {VERSION}, tables)", where=str(path))
    trust = Trust()
    for table_id, hex_key in doc["tables"].items():
        try:
            if not TABLE_ID.fullmatch(table_id):
                raise ValueError("not a table id")
            trust.add(table_id, hex_key)
        except ValueError as exc:
            raise InputError(f"tables.{table_id}: {exc}", where=str(path)) from None
    return trust


def read_public_key_file(path: str | Path) -> tuple[str, str]:
    """(table id, public key hex) of a public key file."""
    path = Path(path)
    doc = _read_json(path, "public key file")
    if not isinstance(doc, dict) or doc.get("v") != VERSION:
        raise InputError(f"not a tablesim public key file (version {VERSION}, table_id, ed25519)", where=str(path))
    table_id, hex_key = doc.get("table_id"), doc.get("ed25519")
    if not isinstance(table_id, str) or not TABLE_ID.fullmatch(table_id):
        raise InputError(f"table_id: {table_id!r} is not a table id", where=str(path))
    try:
        signing.public_key(hex_key)
    except ValueError as exc:
        raise InputError(f"ed25519: {exc}", where=str(path)) from None
    return table_id, hex_key


def public_key_document(table_id: str, hex_key: str) -> str:
    return json.dumps({"v": VERSION, "table_id": table_id, "ed25519": hex_key}) + "\n"


def register(path: str | Path | None, table_id: str, hex_key: str, *, replace: bool = False) -> str:
    """Add a table's key to the keys file (replaced atomically); what was done."""
    path = Path(path) if path is not None else default_keys_path()
    trust = load_trust(path)
    old = trust.hexes.get(table_id)
    if old == hex_key:
        return f"{table_id}: this key is already registered"
    if old is not None and not replace:
        raise InputError(f"{table_id} has another key registered: give --replace to change it (a new table PC)",
                         where=str(path))
    trust.add(table_id, hex_key)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps({"v": VERSION, "tables": dict(sorted(trust.hexes.items()))}, indent=1) + "\n",
                       encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"cannot write the keys file: {exc.strerror}", where=str(path)) from None
    return f"{table_id}: key {'replaced' if old else 'registered'}"
