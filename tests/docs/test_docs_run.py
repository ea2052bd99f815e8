"""The README's and the tutorials' runnable code blocks, run as a user runs them: bash in an empty folder,
``foresci`` on the PATH (this checkout's), one shell per page, so the docs cannot drift from the code.

Each page's run blocks generate and use a small synthetic world, or read a slice of the shared data at
``../shared`` (the folder beside the checkout, which a page's folder then has beside it too; missing, the
page is skipped, and fails under CI=true); a page marked ``docs-test: after PAGE.md`` runs in a copy of
the folder that page left. Every run folder a page writes must hold only answers that succeeded.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_shared
from tests.docs.blocks import REPO_ROOT, Block, command_lines, doc_pages, read_blocks, runs_after, script

PAGE_TIMEOUT_S = 600
RUN_PAGES = [page for page in doc_pages() if any(block.action == "run" for block in read_blocks(page))]


@dataclass
class PageRun:
    """A page's blocks, run: the folder they ran in and what the shell printed."""

    page: Path
    folder: Path
    output: str


def _environment(tmp: Path) -> dict[str, str]:
    """A user's shell: ``foresci`` is this checkout's, ``python`` the test's, one shared cache, one thread,
    an 80-column terminal."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "foresci"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO_ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" '
                       f'exec "{sys.executable}" -m foresci "$@"\n')
    wrapper.chmod(0o755)
    clean = {key: value for key, value in os.environ.items() if not key.startswith("FORESCI_")}
    return {
        **clean,
        "PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), clean.get("PATH", "")]),
        "PYTHONPATH": str(REPO_ROOT),
        "FORESCI_CACHE_DIR": str(tmp / "cache"),
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OMP_WAIT_POLICY": "PASSIVE",
        "COLUMNS": "80",  # a narrow terminal: a page whose output a cut name breaks (tasks families) fails
    }


SHARED_PATH = "../shared/"
# What a page's run blocks need beyond foresci's core: (text in a run block, module, how to install it).
# `make test` installs both extras, so under CI=true a missing one fails the page instead of skipping it.
EXTRAS = (("--engine ray", "ray", "pip install 'foresci[ray]'"),
          ("foresci llm serve", "llama_cpp", "pip install 'foresci[local-llm]' (make llm)"))


def _reads_shared(blocks: list[Block]) -> bool:
    """Whether a page's run blocks read ``../shared`` (the shared data beside the user's folder)."""
    return any(block.action == "run" and SHARED_PATH in block.text for block in blocks)


def _run_page(page: Path, folder: Path, environment: dict[str, str]) -> PageRun:
    blocks = read_blocks(page)
    if _reads_shared(blocks) and not (folder.parent / "shared").exists():
        (folder.parent / "shared").symlink_to(require_shared())  # skips, or fails under CI=true
    for text, module, install in EXTRAS:
        if any(block.action == "run" and text in block.text for block in blocks) \
                and importlib.util.find_spec(module) is None:
            message = f"{page.name} needs {module}: {install}"
            pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    script_file = folder.parent / f"{folder.name}.sh"
    script_file.write_text(script(blocks))
    log = folder.parent / f"{folder.name}.log"
    # Output goes to a file, not a pipe: a job a block left in the background would hold a pipe open.
    with log.open("w") as sink:
        process = subprocess.Popen(["bash", str(script_file)], cwd=folder, env=environment, stdout=sink,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            process.wait(timeout=PAGE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(f"{page.name}: still running after {PAGE_TIMEOUT_S} s; last lines:\n"
                        f"{log.read_text()[-3000:]}")
        finally:
            with contextlib.suppress(ProcessLookupError):  # what a block started must not outlive the page
                os.killpg(process.pid, signal.SIGTERM)
    output = log.read_text()
    if process.returncode != 0:
        started = [line for line in output.splitlines() if line.startswith("docs-test block ")]
        where = started[-1].removeprefix("docs-test block ") if started else page.name
        pytest.fail(f"the code block at {where} failed (exit {process.returncode}):\n{output[-4000:]}")
    return PageRun(page, folder, output)


@pytest.fixture(scope="session")
def page_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, PageRun]:
    return {}


@pytest.fixture(scope="session")
def docs_environment(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _environment(tmp_path_factory.mktemp("docs-env"))


def run_page(page: Path, runs: dict[Path, PageRun], environment: dict[str, str],
             tmp_path_factory: pytest.TempPathFactory) -> PageRun:
    """Run ``page`` once per session (after the page it continues from)."""
    page = page.resolve()
    if page not in runs:
        before = runs_after(page)
        folder = tmp_path_factory.mktemp(page.stem) / "work-folder"
        if before is None:
            folder.mkdir()
        else:
            earlier = run_page(before, runs, environment, tmp_path_factory)
            shutil.copytree(earlier.folder, folder, symlinks=True)
        runs[page] = _run_page(page, folder, environment)
    return runs[page]


def _run_folders(blocks: list[Block]) -> list[str]:
    """The run folders the page's commands write: ``foresci run --out``, ``foresci inspect import --out``
    and ``foresci inspect eval --import-to``."""
    folders = []
    for block in blocks:
        if block.action != "run":
            continue
        for words in command_lines(block):
            writes_out = words[:1] == ["run"] or words[:2] == ["inspect", "import"]
            if writes_out and "--out" in words:
                folders.append(words[words.index("--out") + 1])
            elif words[:2] == ["inspect", "eval"] and "--import-to" in words:
                folders.append(words[words.index("--import-to") + 1])
    return folders


def _submissions(blocks: list[Block], folder: Path) -> list[Path]:
    """The submission folders the page's ``foresci rounds submit`` commands wrote (every version of every
    method submitted under a ``--name``)."""
    found = []
    for block in blocks:
        if block.action != "run":
            continue
        for words in command_lines(block):
            if words[:2] == ["rounds", "submit"] and "--name" in words:
                ledger, round_id, name = words[2], words[3], words[words.index("--name") + 1]
                found += sorted((folder / ledger / "rounds" / round_id / "submissions" / name).glob("v*"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES, ids=[str(page.relative_to(REPO_ROOT)) for page in RUN_PAGES])
def test_page_code_blocks_run(page: Path, page_runs: dict[Path, PageRun], docs_environment: dict[str, str],
                              tmp_path_factory: pytest.TempPathFactory) -> None:
    done = run_page(page, page_runs, docs_environment, tmp_path_factory)
    blocks = read_blocks(page)
    for block in blocks:
        if block.action == "file":
            assert (done.folder / block.argument).read_text() == block.text
    run_folders = _run_folders(blocks)
    submissions = _submissions(blocks, done.folder)
    assert run_folders or submissions, f"{page.name} runs no method"
    for version in submissions:  # a rounds submission: rows stored, none of them an error
        record = json.loads((version / "submission.json").read_text())
        assert record["rows"] + record.get("task_rows", 0) > 0, f"{version}: no answer stored"
        assert record["errors"] == record.get("task_errors", 0) == 0, f"{version}: error rows"
    for relative in run_folders:
        run = done.folder / relative
        rows = [json.loads(line) for name in ("answers.jsonl", "forecasts.jsonl") if (run / name).exists()
                for line in (run / name).read_text().splitlines() if line.strip()]
        assert rows, f"{relative}: no answer written"
        failed = [(row.get("task_id") or row.get("question_id"), row.get("error")) for row in rows
                  if row.get("status") != "ok"]
        assert failed == [], f"{relative}: error rows"
        if (run / "summary.json").exists():
            summary = json.loads((run / "summary.json").read_text())
            assert summary["leaderboard"] or summary.get("forecast"), f"{relative}: empty leaderboard"


TUTORIAL_WORLD_PAGES = [REPO_ROOT / "README.md", REPO_ROOT / "docs" / "tutorials" / "first-benchmark.md"]
FAMILIES = ("direction_forecasting", "strategic_planning", "bottleneck_opportunity", "venue_positioning",
            "concept_emergence")
MIN_TASKS_PER_FAMILY = 3


@pytest.mark.slow
@pytest.mark.parametrize("page", TUTORIAL_WORLD_PAGES, ids=[page.name for page in TUTORIAL_WORLD_PAGES])
def test_the_tutorial_world_gives_every_family(page: Path, page_runs: dict[Path, PageRun],
                                               docs_environment: dict[str, str],
                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    """The README's and the first tutorial's world yields every task family, at least three tasks each."""
    done = run_page(page, page_runs, docs_environment, tmp_path_factory)
    rows = [json.loads(line) for line in (done.folder / "work/release/tasks.jsonl").read_text().splitlines()
            if line.strip()]
    counts = {family: sum(row["family"] == family for row in rows) for family in FAMILIES}
    assert min(counts.values()) >= MIN_TASKS_PER_FAMILY, counts


@pytest.mark.slow
def test_the_readme_plugin_cites_the_papers_it_read(page_runs: dict[Path, PageRun],
                                                    docs_environment: dict[str, str],
                                                    tmp_path_factory: pytest.TempPathFactory) -> None:
    """The README's plug-in searches the KB and cites what it found in every family's answer, so its
    offline Trace is above 0 in each family (its support is the tools' log of that search)."""
    done = run_page(REPO_ROOT / "README.md", page_runs, docs_environment, tmp_path_factory)
    run = done.folder / "work/runs/mine"
    answers = [json.loads(line) for line in (run / "answers.jsonl").read_text().splitlines() if line.strip()]
    assert answers and all(row["support"] and row["support"]["tool_calls"] for row in answers)
    traces: dict[str, list[float]] = {}
    for line in (run / "scores.jsonl").read_text().splitlines():
        row = json.loads(line)
        traces.setdefault(row["family"], []).append(row["metrics"]["trace_offline"]["value"] or 0.0)
    assert set(traces) == set(FAMILIES)
    assert all(sum(values) / len(values) > 0 for values in traces.values()), traces


def test_a_failing_block_is_named_and_its_background_jobs_end(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- docs-test: run -->\n```bash\nsleep 300 &\necho $! > sleeper.pid\n```\n\n"
                    "<!-- docs-test: file note.txt -->\n```text\nwritten\n```\n\n"
                    "<!-- docs-test: run -->\n```bash\ncat note.txt\nfalse\necho never\n```\n")
    folder = tmp_path / "work"
    folder.mkdir()
    with pytest.raises(pytest.fail.Exception, match=r"page\.md:13 failed \(exit 1\)") as failure:
        _run_page(page, folder, _environment(tmp_path))
    assert "written" in str(failure.value) and "never" not in str(failure.value)
    assert _ends(int((folder / "sleeper.pid").read_text())), "a background job outlived its page"


def _ends(pid: int, within_s: float = 5.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie) within ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.1)
    return False


def test_a_page_reading_the_shared_data_finds_it_beside_its_folder_and_fails_under_ci_without_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tests.conftest as conftest_module

    page = tmp_path / "page.md"
    page.write_text("<!-- docs-test: run -->\n```bash\nls ../shared/corpora\n```\n")
    environment = _environment(tmp_path)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(conftest_module, "SHARED", tmp_path / "absent")
    (tmp_path / "first" / "work").mkdir(parents=True)
    with pytest.raises(pytest.fail.Exception, match=r"needs .*absent"):
        _run_page(page, tmp_path / "first" / "work", environment)
    (tmp_path / "data" / "corpora" / "arxiv-daily").mkdir(parents=True)
    monkeypatch.setattr(conftest_module, "SHARED", tmp_path / "data")
    (tmp_path / "second" / "work").mkdir(parents=True)
    assert "arxiv-daily" in _run_page(page, tmp_path / "second" / "work", environment).output


@pytest.mark.slow
def test_the_ray_page_answers_as_the_local_engine(page_runs: dict[Path, PageRun],
                                                  docs_environment: dict[str, str],
                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Ray page's run (a local cluster) gives the answers the first benchmark's local run gave, as
    the page says; only timing fields differ."""
    page = REPO_ROOT / "docs" / "tutorials" / "ray.md"
    done = run_page(page, page_runs, docs_environment, tmp_path_factory)

    def payloads(run: str) -> list[tuple[str, str, str]]:
        rows = [json.loads(line) for line in (done.folder / run / "answers.jsonl").read_text().splitlines()
                if line.strip()]
        return sorted((row["task_id"], row["method"], json.dumps(row["payload"], sort_keys=True))
                      for row in rows)

    manifest = json.loads((done.folder / "work/runs/ray/manifest.json").read_text())
    assert manifest["config"]["settings"]["runtime"]["engine"] == "ray"
    assert payloads("work/runs/ray") == payloads("work/runs/baselines") != []
