"""Records signed at the source: each table's Ed25519 signing key.

Every record and status message a table publishes carries an Ed25519
signature of its exact body (header ``Tablesim-Sig``), made with a key that
never leaves the table PC. The studio holds only the public keys an
operator registered (``tablesim.studio.trust``), so whoever can publish on
the bus can put a message on a table's subject but cannot make it count.

The key file is kept like the journal chain's key: 64 hex digits (the
private key's 32-byte seed), mode 0600, in the same folder
(``<data dir>/<table id>.sign.key``, or the file a table configuration
names under ``[studio] signing_key``), created on first use and never
overwritten. Signatures are deterministic (Ed25519): the same record always
carries the same signature, so a resend is byte-identical.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tablecore.secretfile import read_owner_only
from tablecore.errors import InputError
from tablesim.journal.keys import TABLE_ID
from tablesim.journal.location import data_dir
from tablesim.studio.wire import SIG_HEADER  # noqa: F401  (the header a signature travels in)

#: what a signature covers is prefixed by what the message is, so a status's
#: signature can never stand for a record's (or a record's for a receipt of something else)
RECORD = b"tablesim record v1\x00"
STATUS = b"tablesim status v1\x00"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SIG = re.compile(r"ed25519:([0-9a-f]{128})")


def default_signing_key_path(table_id: str) -> Path:
    if not TABLE_ID.fullmatch(table_id):
        raise InputError(f"table id {table_id!r} must be 1 to 32 of A-Z a-z 0-9 _ -")
    return data_dir() / f"{table_id}.sign.key"


def load_signing_key(path: str | Path) -> Ed25519PrivateKey:
    """Read a signing key file; refused (one line) if missing, open to others or not a key."""
    path = Path(path)
    text = read_owner_only(path, "the signing key file", encoding="ascii").strip()
    if not _HEX64.fullmatch(text):
        raise InputError("not a tablesim signing key (64 hex digits)", where=str(path))
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(text))


def create_signing_key(path: str | Path) -> Ed25519PrivateKey:
    """A new key in a new file (mode 0600); an existing file is read, never
    overwritten. The file appears whole or not at all (written aside, then
    linked into place), so a reader never sees half a key."""
    path = Path(path)
    if path.exists():
        return load_signing_key(path)
    key = Ed25519PrivateKey.generate()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key.private_bytes_raw().hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
    except FileExistsError:
        return load_signing_key(path)
    except OSError as exc:
        raise InputError(f"cannot create the signing key file: {exc.strerror}", where=str(path)) from None
    finally:
        tmp.unlink(missing_ok=True)
    return key


def signing_key_for(path: str | Path, *, create: bool = True) -> Ed25519PrivateKey:
    path = Path(path)
    if create and not path.exists():
        return create_signing_key(path)
    return load_signing_key(path)


def public_hex(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return pub.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def public_key(hex_text: str) -> Ed25519PublicKey:
    """A public key from its 64 hex digits; ValueError if it is none."""
    if not isinstance(hex_text, str) or not _HEX64.fullmatch(hex_text):
        raise ValueError("a public key is 64 hex digits")
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(hex_text))


def sign(key: Ed25519PrivateKey, body: bytes, what: bytes = RECORD) -> str:
    """The header value signing ``body``."""
    return "ed25519:" + key.sign(what + body).hex()


def verify(pub: Ed25519PublicKey, body: bytes, signature: str | None, what: bytes = RECORD) -> str | None:
    """None if ``signature`` (a header value) signs ``body`` under ``pub``; else why not."""
    if not signature:
        return "unsigned"
    m = _SIG.fullmatch(signature) if isinstance(signature, str) else None
    if m is None:
        return "a signature that is no Ed25519 signature"
    try:
        pub.verify(bytes.fromhex(m.group(1)), what + body)
    except InvalidSignature:
        return "badly signed (not by the table's registered key)"
    return None
