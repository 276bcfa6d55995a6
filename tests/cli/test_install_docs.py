"""docs/hardware.md's installation, done: the commands of its marked
``install-steps`` block run in order, with ``/opt/tablesim`` moved into a
temporary folder and the source being this tree, so the docs and this test
cannot drift apart. Then the installed ``tablesim`` (not this tree's) plays
a round, and the shipped units pass ``systemd-analyze verify`` with their
``ExecStart`` on that installation.

One liberty, for time: the ``pip install`` line gets ``--no-deps`` and the
fresh environment borrows this environment's dependencies through a
``.pth`` file (the package index would take minutes). The package itself is
built and installed from the source tree exactly as the docs say."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "hardware.md"
UNIT = ROOT / "config" / "systemd" / "tablesim@.service"
SCREEN = ROOT / "config" / "systemd" / "tablesim-screen.service"
PREFIX, SOURCE = "/opt/tablesim", "/opt/tablesim/src"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"  # a table PC's: no virtual environment active
#: python3 is this environment's base interpreter (on a table PC the system's): the same
#: version as the dependencies the fresh environment borrows
BASE_BIN = os.path.dirname(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))


def install_steps() -> list[str]:
    """The commands of the docs' marked block."""
    text = DOC.read_text()
    marker = text.index("<!-- install-steps")
    block = re.search(r"```sh\n(.*?)```", text[marker:], re.S)
    assert block is not None, "no sh block after the install-steps marker"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def moved(text: str, prefix: Path) -> str:
    return text.replace(SOURCE, str(ROOT)).replace(PREFIX, str(prefix))


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BASE_BIN}:{SYSTEM_PATH}"}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    return subprocess.run(["bash", "-euc", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)  # pure waiting: pip on a loaded machine


def test_the_docs_and_the_unit_name_the_same_installation():
    steps = install_steps()
    assert steps[0] == f"python3 -m venv {PREFIX}/venv"
    assert any(step.startswith(f"{PREFIX}/venv/bin/pip install {SOURCE}") for step in steps)
    exec_start = next(line for line in UNIT.read_text().splitlines() if line.startswith("ExecStart="))
    assert exec_start.startswith(f"ExecStart={PREFIX}/venv/bin/tablesim ")
    assert "/usr/local/bin" not in UNIT.read_text() and "User=tablesim" in UNIT.read_text()
    assert "User=tablesim-screen" in SCREEN.read_text() and "--kiosk" in SCREEN.read_text()


@pytest.mark.slow
@pytest.mark.soak
def test_install_from_the_docs_in_a_fresh_virtual_environment(tmp_path):
    prefix = tmp_path / "opt-tablesim"
    venv = prefix / "venv"
    deps = sysconfig.get_paths()["purelib"]  # this environment's dependencies (see the module's note)
    if run("python3 -c 'import ensurepip, venv'", tmp_path).returncode != 0:
        pytest.skip("python3 has no venv module here (a table PC installs python3-venv, as the docs say)")
    for step in install_steps():
        command = moved(step, prefix)
        if " -m pip install " in command or "/bin/pip install " in command:
            command += " --no-deps --quiet"
        done = run(command, tmp_path)
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
        if step.startswith("python3 -m venv"):
            purelib = run(f"{venv}/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'",
                          tmp_path).stdout.strip()
            Path(purelib, "dependencies-of-the-test.pth").write_text(deps + "\n")
        if step.endswith("--version"):
            assert done.stdout.startswith("tablesim, version "), done.stdout
    where = run(f"{venv}/bin/python -c 'import tablesim; print(tablesim.__file__)'", tmp_path)
    assert where.stdout.startswith(str(venv)), where.stdout  # the installed copy, not this tree
    played = run(f"{venv}/bin/tablesim run --config fortune3-mock --rounds 1 --journal none --quiet", tmp_path)
    assert played.returncode == 0 and "1 round(s) played (0 void)" in played.stdout, played.stdout + played.stderr

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed: the units were not verified")
    units = tmp_path / "units"
    units.mkdir()
    table = units / "tablesim@fortune3-serial.service"
    table.write_text(moved(UNIT.read_text(), prefix))
    # the screen's programs are the kiosk's packages (cage, chromium): where one is missing here,
    # an executable stands in, so the rest of the unit is still verified
    screen_text = SCREEN.read_text()
    for program in ("/usr/bin/cage", "/usr/bin/chromium"):
        if not os.access(program, os.X_OK):
            screen_text = screen_text.replace(program, "/bin/true")
    screen = units / "tablesim-screen.service"
    screen.write_text(screen_text)
    for unit in (table, screen):
        checked = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=120)
        assert checked.returncode == 0 and unit.name not in checked.stderr, checked.stderr


def kiosk_argv(unit_text: str, url: str, profile: Path) -> list[str]:
    """The screen unit's Chromium command line, for a machine with no display: headless, the
    page's DOM printed; every option of the unit kept but the display's (Wayland) and its profile."""
    exec_start = next(line for line in unit_text.splitlines() if line.startswith("ExecStart="))
    argv = exec_start.removeprefix("ExecStart=").split(" -- ", 1)[1].split()
    assert argv[0] == "/usr/bin/chromium" and "--kiosk" in argv and argv[-1] == "${CONSOLE_URL}"
    kept = [a for a in argv[:-1] if not a.startswith(("--ozone-platform=", "--user-data-dir="))]
    sandbox = ["--no-sandbox"] if os.geteuid() == 0 else []  # (a test run as root; the unit never is)
    return [*kept, *sandbox, "--headless=new", f"--user-data-dir={profile}", "--dump-dom", url]


@pytest.mark.skipif(not os.access("/usr/bin/chromium", os.X_OK), reason="needs Debian's chromium at /usr/bin/chromium")
def test_the_screens_chromium_opens_the_dealer_console(tmp_path):
    import reaper

    serve = subprocess.Popen([sys.executable, "-m", "tablesim.cli.main", "serve", "--game", "fortune3", "--mock",
                              "--port", "0", "--journal", "none"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, cwd=ROOT, env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")})
    reaper.track(serve)
    try:
        url = None
        while url is None or not line.startswith("stop with"):
            line = serve.stdout.readline()
            assert line, "serve exited"
            if line.startswith("console: "):
                url = line.removeprefix("console: ").split("#")[0].strip()
        page = subprocess.run(kiosk_argv(SCREEN.read_text(), url, tmp_path / "profile"), capture_output=True,
                              text=True, timeout=120)  # pure waiting: a browser on a loaded machine
        assert '<title data-i18n="console.page_title">tablesim dealer console</title>' in page.stdout, page.stderr[-2000:]
    finally:
        serve.terminate()
        serve.wait(30)
        serve.stdout.close()
