"""A script of ``scripts/`` run in the test's own process.

The scripts that kill and restart tables, wallets and platforms start them
as ``python -m tablesim.cli.main ...``; from the test's process, the tests'
fork helper (``forkserver``) forks those from an interpreter that has the
code imported, instead of a dozen fresh interpreters each paying a second
of imports. The processes are real all the same: their own pids, killed
with SIGKILL like any other. The script's ``main(argv)`` answers its exit
status; what it printed comes from ``capsys``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def run_main(script: str, *args: str, capsys) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``scripts/<script>``'s ``main(args)``."""
    spec = importlib.util.spec_from_file_location(f"script_{Path(script).stem}", SCRIPTS / script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code = module.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err
