"""``foresci schema export DIR``: the JSON Schemas of what a method receives and returns.

For agents written in any language: the public task and forecast question (the request bodies an HTTP
agent receives), the answer per task family, the reply envelope, the support artifact and the forecast
answer. Files: ``task.schema.json``, ``forecast_question.schema.json``, ``answer/<family>.schema.json``,
``reply.schema.json``, ``support_artifact.schema.json``, ``forecast_reply.schema.json`` (what an agent
replies to a forecast question), ``forecast_answer.schema.json`` (the row foresci stores from it), and
``tool_request.schema.json`` (what an HTTP agent POSTs to the KB tools URL of its ``x-foresci-tools``
request header, :mod:`foresci.methods.sandbox.http_tools`).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from pydantic import BaseModel

from foresci.contracts import ForecastAnswer, ForecastReply, SupportArtifact, agent_reply_model
from foresci.methods.sandbox.http_tools import ToolRequest
from foresci.tasks.families import all_families
from foresci.tasks.models import ForecastQuestion, Task

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_of(model: type[BaseModel], title: str | None = None) -> dict[str, object]:
    """The JSON Schema of ``model`` (validation mode), with its dialect and title."""
    schema: dict[str, object] = {"$schema": SCHEMA_DIALECT, **model.model_json_schema()}
    if title:
        schema["title"] = title
    return schema


def schema_files() -> dict[str, dict[str, object]]:
    """Relative file name -> JSON Schema, for every exported contract."""
    files = {
        "task.schema.json": schema_of(Task),
        "forecast_question.schema.json": schema_of(ForecastQuestion),
        "reply.schema.json": schema_of(agent_reply_model()),
        "support_artifact.schema.json": schema_of(SupportArtifact),
        "forecast_reply.schema.json": schema_of(ForecastReply, title="ForecastReply (what an agent replies)"),
        "forecast_answer.schema.json": schema_of(ForecastAnswer, title="ForecastAnswer (the stored row)"),
        "tool_request.schema.json": schema_of(ToolRequest),
    }
    for family in all_families():
        model = family.answer_schema
        title = f"{model.__name__} ({family.name})"
        files[f"answer/{family.name}.schema.json"] = schema_of(model, title=title)
    return files


def export_schemas(folder: Path) -> list[Path]:
    """Write every schema under ``folder``; returns the paths written."""
    written = []
    for name, schema in schema_files().items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written


app = typer.Typer(help="JSON Schemas of the method contracts (for agents outside Python).",
                  no_args_is_help=True)


@app.command("export")
def export_command(
    out: Path = typer.Argument(..., help="folder to write the .schema.json files into", show_default=False),
) -> None:
    """Write the JSON Schemas an agent needs: the task it receives and the answer it returns.

    Example:

      foresci schema export schemas/ && ls schemas/answer/
    """
    for path in export_schemas(out):
        typer.echo(str(path))
