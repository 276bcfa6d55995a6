"""The fortune3 game's own words for the texts it makes (its refusals and
incidents), in English from its catalog (``i18n/en.po``) and carrying their
message ids, so a page shows them in its own language."""

from pathlib import Path

from tablecore.wording import Words

WORDS = Words(Path(__file__).resolve().parent / "i18n")
