"""The docs stand alone and are true: the README's diagrams are what
`tablesim diagram` prints, its paths exist, its first commands stay first,
and no doc or profile points at files a reader of the repository lacks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablesim.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def test_the_readme_starts_with_its_two_commands_then_the_console():
    assert README.startswith("# tablesim\n\n```sh\npip install . && tablesim run --game fortune3 --mock --rounds 10\n"
                             "pip install -e '.[test]' && python -m pytest\n```\n")
    quick = README.index("tablesim serve --game fortune3 --mock\n")
    assert quick < README.index("## Layout") and "http://127.0.0.1:8080/" in README[quick:quick + 400]


@pytest.mark.parametrize("game", ["fortune3", "football", "wheel"])
def test_every_diagram_shown_is_the_machine_itself(game):
    printed = CliRunner().invoke(cli, ["diagram", game]).output.strip()
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        marker = f"(`tablesim diagram {game}`):\n\n```mermaid\n"
        if marker in text:
            start = text.index(marker) + len(marker)
            assert text[start:text.index("```", start)].strip() == printed, doc


def test_code_paths_named_in_the_readme_exist():
    for path in re.findall(r"`((?:tablesim|drivers|tablecore|config|scripts|docs)/[^`*]*?)`", README):
        assert (ROOT / path.split(" ")[0]).exists(), path


def test_no_doc_or_profile_points_outside_the_repository():
    for doc in DOCS + sorted((ROOT / "config" / "rules").glob("*.toml")):
        text = doc.read_text(encoding="utf-8")
        assert "shared/" not in text and "/work/" not in text, doc
        assert not re.search(r"\bissue \d", text, re.I) and "the proposal" not in text, doc
