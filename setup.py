"""Ships the top-level config/ (rule and table profiles a casino edits) inside
the wheel as tablesim/_config, so an installed tablesim finds its defaults.
Everything else is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithConfig(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "tablesim" / "_config"
        shutil.copytree(Path(__file__).parent / "config", target, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithConfig})
