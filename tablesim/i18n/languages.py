"""The three languages and the choice of one from an Accept-Language header."""

from __future__ import annotations

import re

#: language code (the catalogs' file names, what the pages ask for) -> its CLDR locale and its own name
LANGUAGES: dict[str, tuple[str, str]] = {
    "zh-Hant": ("zh_Hant_MO", "繁體中文"),
    "en": ("en_MO", "English"),
    "pt": ("pt_MO", "Português"),
}
DEFAULT = "en"
#: a header longer than this is not read past it (a client's header is input like any other)
MAX_HEADER = 1000
_TAG = re.compile(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$|^\*$")


def match(tag: str) -> str | None:
    """The language of one language tag, or None. Every Chinese tag reads
    Traditional Chinese (the only Chinese here, and Macau's), whatever its
    script or region."""
    primary = tag.strip().lower().split("-")[0]
    if primary == "zh":
        return "zh-Hant"
    if primary in ("en", "pt"):
        return primary
    return None


def negotiate(header: str | None) -> str:
    """The language an Accept-Language header prefers most among ours
    (``DEFAULT`` when none of them, or no header, or one not understood)."""
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate((header or "")[:MAX_HEADER].split(",")):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        if not _TAG.match(tag):
            continue
        q = 1.0
        m = re.fullmatch(r"\s*q\s*=\s*([01](\.\d{0,3})?)\s*", params) if params else None
        if params and m is None:
            continue
        if m is not None:
            q = float(m.group(1))  # a weight, not money
        if q > 0:
            wanted.append((-q, i, tag))
    for _, _, tag in sorted(wanted):
        lang = DEFAULT if tag == "*" else match(tag)
        if lang is not None:
            return lang
    return DEFAULT
