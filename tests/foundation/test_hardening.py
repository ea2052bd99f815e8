"""Foundation hardening (issue #11): JSONL bytes and duplicates (17), settings keys (18), URL secrets (20)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.io import JsonlError, write_jsonl
from foresci.core.settings import Settings
from foresci.evaluation.loading import load_answers
from foresci.tasks.release import load_release
from tests.evaluation.fixtures import answers, release_rows

REPO = Path(__file__).resolve().parents[2]


def _release(folder: Path) -> Path:
    tasks, hidden, _, _ = release_rows()
    write_jsonl(folder / "tasks.jsonl", tasks)
    write_jsonl(folder / "hidden.jsonl", hidden)
    return folder


# ---- item 17 ------------------------------------------------------------------------------------


def test_non_utf8_bytes_in_tasks_and_answers_name_file_and_line(tmp_path: Path) -> None:
    release = _release(tmp_path / "release")
    lines = (release / "tasks.jsonl").read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b"Which", b"Wh\xffich")
    (release / "tasks.jsonl").write_bytes(b"".join(lines))
    with pytest.raises(JsonlError) as caught:
        load_release(release)
    assert isinstance(caught.value, UserError) and caught.value.line == 3
    assert str(caught.value).startswith(f"{release / 'tasks.jsonl'}:3: not UTF-8: byte 0xff")
    run = tmp_path / "run"
    write_jsonl(run / "answers.jsonl", answers())
    rows = (run / "answers.jsonl").read_bytes().splitlines(keepends=True)
    rows[1] = rows[1].replace(b'"task_id"', b'"task_\xfeid"')
    (run / "answers.jsonl").write_bytes(b"".join(rows))
    with pytest.raises(JsonlError, match=r"answers\.jsonl:2: not UTF-8: byte 0xfe"):
        load_answers(run)


def test_duplicate_task_ids_name_both_lines(tmp_path: Path) -> None:
    release = _release(tmp_path / "release")
    lines = (release / "tasks.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (release / "tasks.jsonl").write_text("".join(lines + [lines[1]]), encoding="utf-8")
    with pytest.raises(JsonlError) as caught:
        load_release(release)
    task_id = json.loads(lines[1])["task_id"]
    assert caught.value.line == len(lines) + 1
    assert f"tasks.jsonl:{len(lines) + 1}: task_id: duplicate task id {task_id!r} (first on line 2)" in str(
        caught.value
    )


# ---- item 18 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_text", "key"),
    [("llm:\n  base_ur1: http://x\n", "llm.base_ur1"), ("kb:\n  rrf_kk: 3\n", "kb.rrf_kk"),
     ("kb:\n  rrf_k: many\n", "kb.rrf_k"), ("taxonomy:\n  seeed: 1\n", "taxonomy.seeed")],
)
def test_unknown_or_wrong_typed_yaml_settings_name_key_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, yaml_text: str, key: str
) -> None:
    config = tmp_path / "settings.yaml"
    config.write_text(yaml_text, encoding="utf-8")
    monkeypatch.setenv("FORESCI_CONFIG", str(config))
    with pytest.raises(UserError) as caught:
        Settings()
    assert caught.value.path == config and caught.value.field == key


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [("FORESCI_KB__RRF_KK", "3", "kb.rrf_kk"), ("FORESCI_LLM__BASE_UR1", "http://x", "llm.base_ur1"),
     ("FORESCI_KBB__RRF_K", "3", "'kbb'"), ("FORESCI_KB__RRF_K", "x", "kb.rrf_k")],
)
def test_unknown_or_wrong_typed_env_settings_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(UserError) as caught:
        Settings()
    assert f"environment variable {variable}" in str(caught.value) and named in str(caught.value)


def test_a_bad_settings_variable_fails_every_command_even_one_that_reads_no_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from foresci.cli import run_cli

    monkeypatch.setenv("FORESCI_KB__RRF_KK", "3")
    assert run_cli(["kb", "stats", str(tmp_path)]) != 0
    assert "FORESCI_KB__RRF_KK" in capsys.readouterr().err


# ---- item 20 ------------------------------------------------------------------------------------


def test_mask_url_hides_userinfo_and_secret_query_values_only() -> None:
    from foresci.core.redact import mask_url

    assert mask_url("https://bob:pw@host:8/v1?api-key=s3&model=x#access_token=t") == (
        "https://***@host:8/v1?api-key=***&model=x#access_token=***"
    )
    assert mask_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"


def test_secrets_in_the_endpoint_url_reach_no_file_of_a_run_or_its_scores(tmp_path: Path) -> None:
    release = tmp_path / "release"
    tasks, hidden, _, _ = release_rows()
    write_jsonl(release / "tasks.jsonl", tasks[:1])
    write_jsonl(release / "hidden.jsonl", hidden[:1])
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "FORESCI_LLM__BASE_URL": "http://alice:pw-1234@127.0.0.1:9/v1?api-key=SECRET-42&deployment=d",
        "FORESCI_LLM__MAX_RETRIES": "0",
        "FORESCI_LLM__TIMEOUT_S": "1",
        "FORESCI_CACHE_DIR": str(tmp_path / "cache"),
    }
    run = tmp_path / "run"
    for command in (["run", str(release), "--out", str(run), "--method", "native", "--no-progress"],
                    ["eval", str(run), "--release", str(release)]):
        done = subprocess.run([sys.executable, "-m", "foresci", *command], env=env, capture_output=True,
                              text=True, timeout=120, cwd=tmp_path)
        assert "SECRET-42" not in done.stdout + done.stderr and "pw-1234" not in done.stdout + done.stderr
    written = {path.name: path.read_text(encoding="utf-8") for path in run.rglob("*") if path.is_file()}
    assert {"answers.jsonl", "manifest.json", "scores.jsonl", "summary.json"} <= set(written)
    for name, text in written.items():
        assert "SECRET-42" not in text and "pw-1234" not in text, name
    assert "api-key=***" in written["manifest.json"]
