"""A wheel built from the repo installs into a clean venv and works outside the checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def _run(
    command: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` without PYTHONPATH (a checkout on it would be imported instead of the wheel)."""
    environment = {key: value for key, value in (env or os.environ).items() if key != "PYTHONPATH"}
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=600,
                          check=False)


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding only the built foresci wheel; dependencies come from the test venv's
    site-packages through a .pth line (whose own .pth files, incl. the editable install, are not read)."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    built = _run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(REPO_ROOT)],
        cwd=root,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    wheels = list(dist.glob("foresci-*.whl"))
    assert len(wheels) == 1
    environment = root / "venv"
    venv.EnvBuilder(with_pip=False).create(environment)
    site_packages = Path(
        _run(
            [
                str(environment / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ],
            cwd=root,
        ).stdout.strip()
    )
    (site_packages / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(environment / "bin" / "python"),
            "install",
            "--no-deps",
            "--quiet",
            str(wheels[0]),
        ],
        cwd=root,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return environment


def test_wheel_runs_outside_checkout(wheel_venv: Path, tmp_path: Path) -> None:
    python = str(wheel_venv / "bin" / "python")
    located = _run(
        [
            python,
            "-c",
            "import foresci, foresci.core.resources as r; print(foresci.__file__); "
            "print(r.declarative_dir('kb')); print(r.declarative_dir('taxonomy'))",
        ],
        cwd=tmp_path,
    )
    assert located.returncode == 0, located.stderr
    package_file, kb_dir, taxonomy_dir = located.stdout.split()
    assert str(REPO_ROOT) not in package_file, "foresci was imported from the checkout, not the wheel"
    assert "_declarative" in kb_dir and "_declarative" in taxonomy_dir
    assert list(Path(kb_dir).glob("domains/*.yaml")), "domain definitions did not ship in the wheel"
    shipped_prompts = list(Path(package_file).parent.glob("tasks/families/*/prompts.yaml"))
    assert shipped_prompts, "the families' prompt texts did not ship in the wheel"

    helped = _run([str(wheel_venv / "bin" / "foresci"), "--help"], cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "kb" in helped.stdout and "demo" in helped.stdout


def test_wheel_builds_a_small_kb(wheel_venv: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    rows = [
        {
            "id": f"2501.0000{index}",
            "title": f"Tool-using LLM agents plan step {index}",
            "summary": "We study large language model agents that plan and call tools.",
            "authors": ["A. Author"],
            "categories": ["cs.CL"],
            "comment": "Accepted to ACL 2025",
            "pdf": "",
            "abs": "",
        }
        for index in range(1, 6)
    ]
    (corpus / "2025-01-15.jsonl").write_text(
        "\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8"
    )
    env = {**os.environ, "FORESCI_CACHE_DIR": str(tmp_path / "cache")}
    built = _run(
        [str(wheel_venv / "bin" / "foresci"), "kb", "build", str(corpus), "--out", str(tmp_path / "kb")],
        cwd=tmp_path,
        env=env,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert (tmp_path / "kb" / "manifest.json").is_file()
    stats = _run(
        [str(wheel_venv / "bin" / "foresci"), "kb", "stats", str(tmp_path / "kb")], cwd=tmp_path, env=env
    )
    assert stats.returncode == 0, stats.stderr
    assert "5" in stats.stdout
