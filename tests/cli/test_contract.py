"""The CLI contract (issue #11 item 16): every bad input, in every sub-command, gives a non-zero exit,
exactly one line on stderr, no traceback, and names the file (and line) at fault.

Most cases run in-process through ``foresci.cli.main`` (the console entry point, which exits with the
status; stdout and stderr captured); a group of them also runs as real ``python -m foresci`` processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from foresci.cli import main
from foresci.core.io import write_jsonl
from foresci.core.settings import Settings
from foresci.kb.build import build_kb
from tests.evaluation.fixtures import answers, release_rows

REPO = Path(__file__).resolve().parents[2]
ENDPOINT = (("FORESCI_LLM__BASE_URL", "http://127.0.0.1:9/v1"),)  # never reached: the input fails first


@dataclass(frozen=True)
class Case:
    """One bad input: the arguments, what stderr must name, extra environment."""

    name: str
    args: list[str]
    names: list[str]
    env: tuple[tuple[str, str], ...] = ()


def _daily(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [
        {"id": f"2504.{number:05d}", "title": f"Retrieval agents paper {number}",
         "summary": "Agents retrieve documents and plan tool calls.", "authors": ["Ada"],
         "categories": ["cs.CL"]}
        for number in range(1, 6)
    ]
    text = "".join(json.dumps(row) + "\n" for row in rows)
    (folder / "2025-04-02.jsonl").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny KB, a release, a run, and broken copies of each."""
    root = tmp_path_factory.mktemp("contract")
    cache = root / "cache"
    corpus = _daily(root / "corpus")
    kb = root / "kb"
    build_kb([corpus], kb, Settings(cache_dir=cache))
    broken_kb = root / "broken-kb"
    build_kb([corpus], broken_kb, Settings(cache_dir=cache))
    (broken_kb / "CURRENT").write_text("gen-0099\n", encoding="utf-8")
    tasks, hidden, _, _ = release_rows()
    release = root / "release"
    write_jsonl(release / "tasks.jsonl", tasks)
    write_jsonl(release / "hidden.jsonl", hidden)
    lines = (release / "tasks.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    bad_json = root / "bad-json-release"
    bad_json.mkdir()
    (bad_json / "tasks.jsonl").write_text(lines[0] + lines[1] + '{"task_id": "X", \n', encoding="utf-8")
    bad_bytes = root / "bad-bytes-release"
    bad_bytes.mkdir()
    (bad_bytes / "tasks.jsonl").write_bytes((lines[0] + lines[1]).encode() + b'{"task_id": "\xff"}\n')
    duplicate = root / "duplicate-release"
    duplicate.mkdir()
    (duplicate / "tasks.jsonl").write_text(lines[0] + lines[1] + lines[0], encoding="utf-8")
    bad_field = root / "bad-field-release"
    bad_field.mkdir()
    (bad_field / "tasks.jsonl").write_text(lines[0] + lines[1].replace('"family": "', '"family": "x'),
                                           encoding="utf-8")
    run = root / "run"
    write_jsonl(run / "answers.jsonl", answers())
    bad_run = root / "bad-run"
    rows = (run / "answers.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    bad_run.mkdir()
    (bad_run / "answers.jsonl").write_text(rows[0] + "{not json\n", encoding="utf-8")
    bytes_run = root / "bytes-run"
    bytes_run.mkdir()
    (bytes_run / "answers.jsonl").write_bytes(rows[0].encode() + rows[1].encode().replace(b"D", b"\xff", 1))
    empty = root / "empty"
    empty.mkdir()
    bad_yaml = root / "bad.yaml"
    bad_yaml.write_text("kb:\n  rrf_k: [1,\n", encoding="utf-8")
    unknown_key = root / "unknown.yaml"
    unknown_key.write_text("llm:\n  base_ur1: http://127.0.0.1:1/v1\n", encoding="utf-8")
    wrong_type = root / "wrong.yaml"
    wrong_type.write_text("kb:\n  rrf_k: many\n", encoding="utf-8")
    file_not_dir = root / "plain-file"
    file_not_dir.write_text("x", encoding="utf-8")
    return {"root": root, "cache": cache, "corpus": corpus, "kb": kb, "broken_kb": broken_kb,
            "release": release, "bad_json": bad_json, "bad_bytes": bad_bytes, "duplicate": duplicate,
            "bad_field": bad_field, "run": run, "bad_run": bad_run, "bytes_run": bytes_run, "empty": empty,
            "bad_yaml": bad_yaml, "unknown_key": unknown_key, "wrong_type": wrong_type, "file": file_not_dir}


def _cases(w: dict[str, Path]) -> list[Case]:
    root, kb, release = w["root"], str(w["kb"]), str(w["release"])
    missing = str(root / "missing")
    tasks = lambda key: str(w[key] / "tasks.jsonl")  # noqa: E731
    return [
        # kb
        Case("kb build missing source", ["kb", "build", missing, "--out", str(root / "o1")], [missing]),
        Case("kb build empty folder", ["kb", "build", str(w["empty"]), "--out", str(root / "o2")],
             [str(w["empty"]), "--allow-empty"]),
        Case("kb build bad yaml", ["--config", str(w["bad_yaml"]), "kb", "build", str(w["corpus"]), "--out",
                                   str(root / "o3")], [f"{w['bad_yaml']}:3"]),
        Case("kb build unknown yaml key", ["--config", str(w["unknown_key"]), "kb", "build", str(w["corpus"]),
                                           "--out", str(root / "o4")],
             [str(w["unknown_key"]), "llm.base_ur1"]),
        Case("kb build wrong-typed yaml", ["--config", str(w["wrong_type"]), "kb", "stats", kb],
             [str(w["wrong_type"]), "kb.rrf_k"]),
        Case("kb build unknown env key", ["kb", "build", str(w["corpus"]), "--out", str(root / "o5")],
             ["FORESCI_KB__RRF_KK", "kb.rrf_kk"], (("FORESCI_KB__RRF_KK", "3"),)),
        Case("missing config file", ["--config", missing + ".yaml", "kb", "stats", kb], [missing + ".yaml"]),
        Case("kb update not a kb", ["kb", "update", str(w["empty"]), str(w["corpus"])], [str(w["empty"])]),
        Case("kb update missing source", ["kb", "update", kb, missing], [missing]),
        Case("kb search bad date", ["kb", "search", kb, "agents", "--cutoff", "2025-13-01"], ["--cutoff"]),
        Case("kb search unknown domain", ["kb", "search", kb, "agents", "--cutoff", "2025-04-30", "--domain",
                                          "nope"], [kb, "nope"]),
        Case("kb stats missing", ["kb", "stats", missing], [missing]),
        Case("kb stats CURRENT names a deleted generation", ["kb", "stats", str(w["broken_kb"])],
             [str(w["broken_kb"] / "CURRENT"), "gen-0099"]),
        Case("kb harvest unknown service", ["kb", "harvest", "gopher", "q", "--out", str(root / "h.jsonl")],
             ["SERVICE"]),
        # taxonomy
        Case("taxonomy build missing kb", ["taxonomy", "build", missing, "-d", "x", "-t", "2025-04-30", "-o",
                                           str(root / "t1")], [missing]),
        Case("taxonomy build unknown domain", ["taxonomy", "build", kb, "-d", "nope", "-t", "2025-04-30",
                                               "-o", str(root / "t2")], [kb, "nope"]),
        Case("taxonomy show missing", ["taxonomy", "show", missing], [missing]),
        Case("taxonomy export not a taxonomy", ["taxonomy", "export", str(w["empty"])], [str(w["empty"])]),
        # tasks / forecast
        Case("tasks build window not closed", ["tasks", "build", kb, "--cutoff", "2025-03-31", "--out",
                                               str(root / "r1")], [kb, "has not closed"]),
        Case("tasks build missing kb", ["tasks", "build", missing, "--cutoff", "2025-03-31", "--out",
                                        str(root / "r2")], [missing]),
        Case("tasks show missing release", ["tasks", "show", missing], [missing]),
        Case("tasks show bad json line", ["tasks", "show", str(w["bad_json"])], [f"{tasks('bad_json')}:3"]),
        Case("tasks validate non-utf8", ["tasks", "validate", str(w["bad_bytes"])],
             [f"{tasks('bad_bytes')}:3"]),
        Case("tasks validate duplicate id", ["tasks", "validate", str(w["duplicate"])],
             [f"{tasks('duplicate')}:3", "line 1"]),
        Case("tasks show bad field", ["tasks", "show", str(w["bad_field"])], [f"{tasks('bad_field')}:2",
                                                                              "family"]),
        Case("tasks show unknown task", ["tasks", "show", release, "--task", "NOPE"], [release, "NOPE"]),
        Case("tasks audit bad json", ["tasks", "audit", str(w["bad_json"])], [f"{tasks('bad_json')}:3"]),
        Case("tasks import-rf missing", ["tasks", "import-rf", missing, str(root / "r3")], [missing]),
        Case("forecast package missing kb", ["forecast", "package", "--kb", missing, "--cutoff", "2025-04-30",
                                             "--out", str(root / "p1")], [missing]),
        Case("forecast resolve missing package", ["forecast", "resolve", missing, "--kb", kb], [missing]),
        # run / eval / report
        Case("run missing release", ["run", missing, "--out", str(root / "run1"), "--method", "native"],
             [missing], ENDPOINT),
        Case("run bad release line", ["run", str(w["bad_json"]), "--out", str(root / "run2"), "--method",
                                      "native"], [f"{tasks('bad_json')}:3"], ENDPOINT),
        Case("run duplicate task ids", ["run", str(w["duplicate"]), "--out", str(root / "run3"), "--method",
                                        "native"], [f"{tasks('duplicate')}:3"], ENDPOINT),
        Case("run missing kb", ["run", release, "--out", str(root / "run4"), "--kb", missing, "--method",
                                "hybrid_rag"], [missing], ENDPOINT),
        Case("run resume over non-utf8 answers",
             ["run", release, "--out", str(w["bytes_run"]), "--method", "native"],
             [f"{w['bytes_run'] / 'answers.jsonl'}:2"], ENDPOINT),
        Case("run without endpoint", ["run", release, "--out", str(root / "run5"), "--method", "native"],
             ["FORESCI_LLM__BASE_URL"]),
        Case("eval missing run", ["eval", missing, "--release", release, "--offline"], [missing]),
        Case("eval bad answers line", ["eval", str(w["bad_run"]), "--release", release, "--offline"],
             [f"{w['bad_run'] / 'answers.jsonl'}:2"]),
        Case("eval missing release", ["eval", str(w["run"]), "--release", missing, "--offline"], [missing]),
        Case("report missing run", ["report", missing, "--out", str(root / "rep")], [missing]),
        # sim / demo
        Case("sim truth missing", ["sim", "truth", missing], [missing]),
        Case("sim generate into a file", ["sim", "generate", str(w["file"] / "world")], [str(w["file"])]),
        Case("demo bad config", ["--config", str(w["unknown_key"]), "demo", "--out", str(root / "demo")],
             [str(w["unknown_key"])]),
    ]


def _check(case: Case, code: int, stderr: str) -> None:
    if os.environ.get("FORESCI_CONTRACT_SHOW"):
        print(f"{case.name}: exit {code}: {stderr.strip()}", file=sys.__stdout__)
    lines = stderr.strip().splitlines()
    assert code not in (0, None), f"{case.name}: exit {code}"
    assert "Traceback" not in stderr, f"{case.name}: {stderr}"
    assert len(lines) == 1, f"{case.name}: {len(lines)} lines on stderr:\n{stderr}"
    for needle in case.names:
        assert needle in lines[0], f"{case.name}: {needle!r} not in {lines[0]!r}"


def _in_process(case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                cache: Path) -> tuple[int, str]:
    with monkeypatch.context() as patch:
        patch.setenv("FORESCI_CONFIG", "")  # recorded, so `--config` setting it is undone afterwards
        patch.delenv("FORESCI_CONFIG")
        patch.setenv("FORESCI_CACHE_DIR", str(cache))
        for key, value in case.env:
            patch.setenv(key, value)
        capsys.readouterr()
        with pytest.raises(SystemExit) as stop:
            main(case.args)
        return int(stop.value.code or 0), capsys.readouterr().err


def test_every_bad_input_gives_one_line_naming_the_file(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = _cases(world)
    commands = {case.args[2] if case.args[0] == "--config" else case.args[0] for case in cases}
    assert len(cases) >= 30
    assert {"kb", "taxonomy", "tasks", "forecast", "run", "eval", "report", "sim", "demo"} <= commands
    failures = []
    for case in cases:
        try:
            code, stderr = _in_process(case, capsys, monkeypatch, world["cache"])
        except Exception as error:  # a bug escaped the handler: report it with the other cases
            failures.append(f"{case.name}: raised {type(error).__name__}: {error}")
            continue
        try:
            _check(case, code, stderr)
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "\n".join(failures)


def test_debug_shows_the_traceback(world: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    case = Case("debug", ["--debug", "kb", "stats", str(world["root"] / "missing")], [])
    code, stderr = _in_process(case, capsys, monkeypatch, world["cache"])
    assert code == 1 and "Traceback" in stderr and stderr.strip().splitlines()[-1].startswith("error: ")


def test_contract_holds_for_real_processes(world: dict[str, Path]) -> None:
    """A sample of the table as real `python -m foresci` processes (started together)."""
    chosen = [case for case in _cases(world) if case.name in {
        "kb build empty folder", "kb build unknown env key", "tasks validate duplicate id",
        "eval bad answers line", "kb search unknown domain", "kb build missing source"}]
    assert len(chosen) == 6
    processes: list[tuple[Case, subprocess.Popen[str]]] = []
    for case in chosen:
        env = {**os.environ, "PYTHONPATH": str(REPO), "FORESCI_CACHE_DIR": str(world["cache"]),
               "OMP_NUM_THREADS": "1", **dict(case.env)}
        env.pop("FORESCI_CONFIG", None)
        command = [sys.executable, "-m", "foresci", *case.args]
        processes.append((case, subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.PIPE, text=True)))
    for case, process in processes:
        _, stderr = process.communicate(timeout=120)
        _check(case, process.returncode, stderr)


# ---- issue #27 §5: the causes that printed tracebacks, and the ones that passed silently ---------------


@pytest.fixture(scope="module")
def attacked(world: dict[str, Path]) -> dict[str, Path]:
    """Inputs of issue #27 §5: a scored run, a corrupt KB, a bad domain folder, a run with transcripts."""
    import shutil

    from foresci.evaluation.runner import evaluate_run
    from tests.evaluation.conftest import WordEncoder
    from tests.evaluation.fixtures import write_release, write_run

    root = world["root"] / "attacked"
    release = write_release(root / "release")
    scored = write_run(root / "scored", release)
    evaluate_run(scored, None, Settings(cache_dir=world["cache"], evaluation={"bootstrap_samples": 20}),
                 offline=True, encoder=WordEncoder())
    (scored / "transcripts.jsonl").write_text(
        json.dumps({"id": "t-1", "key": "D1|native|m1|full", "calls": []}) + "\n", encoding="utf-8")
    corrupt = root / "corrupt-kb"
    shutil.copytree(world["kb"], corrupt)
    (database,) = corrupt.glob("gen-*/papers.sqlite")
    data = bytearray(database.read_bytes())
    for position in range(100, len(data), 7):
        data[position] = 0xAB
    database.write_bytes(bytes(data))
    domains = root / "domains"
    domains.mkdir()
    (domains / "bad.yaml").write_text("name: Bad\nslug: [1,\n", encoding="utf-8")
    return {"release": release, "scored": scored, "corrupt": corrupt, "database": database,
            "domains": domains}


def _issue_27_cases(w: dict[str, Path], a: dict[str, Path]) -> list[Case]:
    root, kb, file = w["root"], str(w["kb"]), str(w["file"])
    corrupt = str(a["corrupt"])
    return [
        Case("tasks build --window 5w", ["tasks", "build", kb, "--cutoff", "2025-03-31", "--window", "5w",
                                         "--out", str(root / "w1")], ["--window", "'5w'"]),
        Case("forecast package --window 9m", ["forecast", "package", "--kb", kb, "--cutoff", "2025-03-31",
                                              "--window", "9m", "--out", str(root / "w2")],
             ["--window", "'9m'"]),
        Case("kb build --out a file", ["kb", "build", str(w["corpus"]), "--out", file],
             [file, "not a folder"]),
        Case("run --out a file", ["run", str(a["release"]), "--method", "native", "--out", file], [file],
             ENDPOINT),
        Case("report --out a file", ["report", str(a["scored"]), "--out", file], [file, "not a folder"]),
        Case("schema export into a file", ["schema", "export", file], [file, "not a folder"]),
        Case("unknown domain in FORESCI_KB__DOMAINS", ["kb", "build", str(w["corpus"]), "--out",
                                                       str(root / "d1")],
             ["FORESCI_KB__DOMAINS", "nosuch", "nosuch.yaml"], (("FORESCI_KB__DOMAINS", '["nosuch"]'),)),
        Case("a missing source is not hidden by an unknown domain",
             ["kb", "build", str(root / "nosuch-source"), "--out", str(root / "d3")],
             [str(root / "nosuch-source"), "No such file"], (("FORESCI_KB__DOMAINS", '["nosuch"]'),)),
        Case("bad YAML under --domains-dir", ["kb", "build", str(w["corpus"]), "--out", str(root / "d2"),
                                              "--domains-dir", str(a["domains"])],
             [f"{a['domains'] / 'bad.yaml'}:3", "invalid YAML"]),
        Case("kb stats corrupt papers.sqlite", ["kb", "stats", corrupt], [str(a["database"]), "malformed"]),
        Case("kb search corrupt papers.sqlite", ["kb", "search", corrupt, "agents", "--cutoff", "2025-04-30"],
             [str(a["database"]), "malformed"]),
        Case("run corrupt papers.sqlite", ["run", str(a["release"]), "--kb", corrupt, "--method",
                                           "persistence", "--out", str(root / "c1")],
             [str(a["database"]), "malformed"]),
        Case("tasks build --per-family -1", ["tasks", "build", kb, "--cutoff", "2025-03-31", "--per-family",
                                             "-1", "--out", str(root / "n1")], ["--per-family"]),
        Case("forecast package -n -3", ["forecast", "package", "--kb", kb, "--cutoff", "2025-03-31",
                                        "-n", "-3", "--out", str(root / "n2")], ["'-n'"]),
        Case("kb search -k -5", ["kb", "search", kb, "agents", "--cutoff", "2025-04-30", "-k", "-5"],
             ["'-k'"]),
        Case("FORESCI_KB__DOMAINS='[x'", ["kb", "stats", kb], ["FORESCI_KB__DOMAINS", "JSON"],
             (("FORESCI_KB__DOMAINS", "[x"),)),
        Case("transcript --task nosuch", ["transcript", str(a["scored"]), "--task", "nosuch"],
             [str(a["scored"] / "transcripts.jsonl"), "nosuch"]),
        Case("eval nosuch", ["eval", str(root / "nosuch")], [str(root / "nosuch"), "no such folder"]),
    ]


def test_every_cause_of_issue_27_gives_one_line_naming_the_file(
    world: dict[str, Path], attacked: dict[str, Path], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    failures = []
    for case in _issue_27_cases(world, attacked):
        try:
            code, stderr = _in_process(case, capsys, monkeypatch, world["cache"])
            _check(case, code, stderr)
        except AssertionError as error:
            failures.append(str(error))
        except Exception as error:  # a bug escaped the handler
            failures.append(f"{case.name}: raised {type(error).__name__}: {error}")
    assert not failures, "\n".join(failures)


def _failing_writes(monkeypatch: pytest.MonkeyPatch, under: Path, number: int) -> None:
    """Writes of files under ``under`` fail as on a full disk (``number`` = ENOSPC) or a read-only file
    system (EROFS): the error the OS raises there, without a file name, as ``write`` raises it."""
    import errno
    import pathlib

    real_open, real_mkdir = pathlib.Path.open, pathlib.Path.mkdir

    def failing_open(self: pathlib.Path, mode: str = "r", *args: object, **kwargs: object) -> object:
        if any(flag in mode for flag in "wax") and under in self.absolute().parents:
            raise OSError(number, os.strerror(number))
        return real_open(self, mode, *args, **kwargs)  # type: ignore[call-overload]

    def failing_mkdir(self: pathlib.Path, *args: object, **kwargs: object) -> None:
        if number == errno.EROFS and (under == self.absolute() or under in self.absolute().parents):
            raise OSError(number, os.strerror(number), str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pathlib.Path, "open", failing_open)
    monkeypatch.setattr(pathlib.Path, "mkdir", failing_mkdir)


@pytest.mark.parametrize("command", ["kb build", "kb build short write", "kb build npz", "run", "eval",
                                     "read-only --out"])
def test_a_full_or_read_only_disk_is_one_line_naming_the_file(
    world: dict[str, Path], attacked: dict[str, Path], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    import errno
    import shutil
    import sqlite3

    out = tmp_path / "out"
    if command == "kb build":
        def full(folder: Path, *args: object, **kwargs: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr("foresci.kb.build.write_generation_db", full)
        case = Case(command, ["kb", "build", str(world["corpus"]), "--out", str(out)],
                    ["papers.sqlite", "disk is full"])
    elif command == "kb build short write":  # issue 39.9: numpy's cut-short write has no errno
        import numpy as np

        def short(file: Path, array: object, **kwargs: object) -> None:
            Path(file).write_bytes(b"\x93NUMPY" + b"\0" * 100)
            raise OSError("23424 requested and 19424 written")

        monkeypatch.setattr(np, "save", short)
        case = Case(command, ["kb", "build", str(world["corpus"]), "--out", str(out)],
                    ["vectors.npy", "No space left on device", "cut short"])
    elif command == "kb build npz":  # ENOSPC without a file name from inside zipfile
        from foresci.kb.bm25 import BM25Index

        def full_npz(self: object, folder: Path) -> None:
            (folder / "bm25_counts.npz").write_bytes(b"PK")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(BM25Index, "save", full_npz)
        case = Case(command, ["kb", "build", str(world["corpus"]), "--out", str(out)],
                    [str(out / "gen-0001"), "No space left on device"])
    elif command == "run":
        _failing_writes(monkeypatch, out, errno.ENOSPC)
        case = Case(command, ["run", str(attacked["release"]), "--method", "native", "--out", str(out)],
                    [str(out / ""), "No space left on device"], ENDPOINT)
    elif command == "eval":
        shutil.copytree(attacked["scored"], out)
        _failing_writes(monkeypatch, out, errno.ENOSPC)
        case = Case(command, ["eval", str(out), "--offline"], [str(out / ""), "No space left on device"])
    else:
        _failing_writes(monkeypatch, out, errno.EROFS)
        case = Case(command, ["schema", "export", str(out / "schemas")], [str(out), "Read-only file system"])
    code, stderr = _in_process(case, capsys, monkeypatch, world["cache"])
    _check(case, code, stderr)
    if command.startswith("kb build"):
        assert not list(out.glob("gen-*")), "a half-written generation was left on the full disk"


def test_unknown_foresci_variables_are_warned_about_with_a_hint(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = Case("typos", ["kb", "stats", str(world["kb"])], [],
                (("FORESCI_LLM_BASE_URL", "http://127.0.0.1:9/v1"), ("FORESCI_CACHE_DIRR", "x")))
    code, stderr = _in_process(case, capsys, monkeypatch, world["cache"])
    lines = stderr.strip().splitlines()
    assert code == 0 and len(lines) == 2 and "Traceback" not in stderr
    assert "FORESCI_CACHE_DIRR" in lines[0] and "did you mean FORESCI_CACHE_DIR?" in lines[0]
    assert "FORESCI_LLM_BASE_URL" in lines[1] and "did you mean FORESCI_LLM__BASE_URL?" in lines[1]


def test_foresci_variables_that_are_not_settings_but_known_are_not_warned_about(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from foresci.core.settings import NON_SETTING_VARIABLES

    case = Case("known", ["kb", "stats", str(world["kb"])], [], (("FORESCI_EXTENSIONS", ""),))
    code, stderr = _in_process(case, capsys, monkeypatch, world["cache"])
    assert code == 0 and "warning" not in stderr and "FORESCI_EXTENSIONS" in NON_SETTING_VARIABLES
