"""CLI: ``foresci transcript RUNDIR`` prints the transcripts of a run's answers (or of its judge calls)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from foresci.core.errors import UserError
from foresci.core.transcript_log import (
    JUDGE_TRANSCRIPTS_FILE,
    TRANSCRIPTS_FILE,
    event_parts,
    read_transcripts,
)

PREVIEW_CHARS = 240


def latest_by_key(transcripts: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One transcript per row key: the last one written (a rerun's replaces the one it redid)."""
    latest: dict[str, dict[str, Any]] = {}
    for transcript in transcripts.values():  # file order
        latest[str(transcript.get("key"))] = transcript
    return latest


def _clip(text: str, full: bool) -> str:
    text = text if full else " ".join(text.split())
    return text if full or len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + " …"


def describe(transcript: dict[str, Any], full: bool = False) -> list[str]:
    """Human-readable lines of one transcript: a header, then each event with its messages and reply."""
    totals = transcript.get("totals") or {}
    lines = [
        f"{transcript.get('key')} · {transcript.get('unit')} · {transcript.get('id')} · "
        f"{totals.get('calls', 0):g} call(s), {totals.get('cache_hits', 0):g} cache hit(s), "
        f"{totals.get('prompt_tokens', 0):g}+{totals.get('completion_tokens', 0):g} tokens, "
        f"{totals.get('llm_seconds', 0):g} s"
        + (f" · {transcript['status']}" if transcript.get("status") else "")
    ]
    for event in transcript.get("events", []):
        parts = event_parts(event)
        fields = " ".join(f"{name}={json.dumps(value, ensure_ascii=False, default=str)}"
                          for name, value in parts["fields"].items())
        lines.append(f"  {parts['t_s']:>8.3f}s {parts['kind']} {_clip(fields, full)}")
        for message in parts["messages"]:
            text = " ".join(filter(None, (message["content"], message["extra"])))
            lines.append(f"      [{message['role']}] {_clip(text, full)}")
        if parts["reply"] is not None:
            lines.append(f"      -> {_clip(parts['reply'], full)}")
    return lines


def transcript_command(
    run_dir: Path = typer.Argument(..., help="run folder of `foresci run` / `foresci eval`"),
    task: str | None = typer.Option(None, "--task", help="only rows of this task id"),
    method: str | None = typer.Option(None, "--method", help="only rows of this method"),
    judge: bool = typer.Option(False, "--judge", help="judge calls of the scores, not the answers"),
    full: bool = typer.Option(False, "--full", help="whole messages and replies, not previews"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per transcript (messages expanded)"),
) -> None:
    """Print what answering (or judging) each row cost: messages sent, raw replies, tool calls, tokens,
    timings, retries, re-asks, structured-output fallbacks, cache hits and evidence dropped to fit the
    model's context window. One transcript per row key (the latest), followed by the question, the answer
    (quantiles or probability of a forecast) or the error message, and, once `foresci eval` ran, the
    scores with the gold or outcome they were scored against.

    Examples:

        foresci transcript workspace/runs/demo --task D1 --method aris

        foresci transcript workspace/runs/demo --judge --full

        foresci transcript workspace/runs/demo --json > transcripts.json
    """
    path = Path(run_dir) / (JUDGE_TRANSCRIPTS_FILE if judge else TRANSCRIPTS_FILE)
    if not path.is_file():
        step = "`foresci eval` (not --offline)" if judge else "`foresci run`"
        raise UserError(f"no transcripts here; {step} writes them", path=path)
    shown = 0
    context: dict[str, list[str]] = {}
    if not judge and not as_json:
        from foresci.app.transcript_rows import row_context

        context = row_context(Path(run_dir))
    for transcript in latest_by_key(read_transcripts(path)).values():
        parts = str(transcript.get("key", "")).split("|")
        if (task and parts[0] != task) or (method and parts[1:2] != [method]):
            continue
        shown += 1
        if as_json:
            typer.echo(json.dumps(transcript, ensure_ascii=False, default=str))
        else:
            about = context.get(str(transcript.get("id")))
            if about is None and transcript.get("error"):
                about = [f"error: {transcript['error']}"]
            typer.echo("\n".join([*describe(transcript, full),
                                  *(f"  {_clip(line, full)}" for line in about or [])]))
    if not shown and (task or method):
        wanted = " and ".join(part for part in (f"task {task!r}" if task else "",
                                                 f"method {method!r}" if method else "") if part)
        raise UserError(f"no transcript of {wanted} here", path=path, field="--task" if task else "--method")
