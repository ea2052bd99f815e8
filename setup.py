"""Build hook: ship the declarative folders (kb/, taxonomy/, agents/, evaluation/) inside the wheel.

They live at the repository root so researchers edit them without touching code; an installed
foresci finds them under ``foresci/_declarative/`` (see ``foresci.core.resources``).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DECLARATIVE_FOLDERS = ("kb", "taxonomy", "agents", "evaluation")


class BuildWithDeclarative(build_py):
    """Copy the declarative YAML folders into the built package."""

    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "foresci" / "_declarative"
        for name in DECLARATIVE_FOLDERS:
            source = root / name
            if source.is_dir():
                shutil.copytree(source, target / name, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__"))


setup(cmdclass={"build_py": BuildWithDeclarative})
