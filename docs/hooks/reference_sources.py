"""What the generated reference pages read from foresci: every foresci import of the docs lives here.

Each function returns plain data (the dataclasses below), so the page renderer
(``reference_pages.py``) never touches foresci. When code moves (a registry becomes objects, a module
changes package), the one function that reads it changes and nothing else does.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SettingRow:
    """One leaf setting: its dotted key, environment variable, type, default and description."""

    key: str
    env_var: str
    type: str
    default: str
    description: str


@dataclass(frozen=True)
class SettingsSectionDoc:
    """A settings section (``llm``, ``kb``, ...; ``""`` for the top-level keys) and its leaf settings."""

    name: str
    summary: str
    rows: list[SettingRow]


@dataclass(frozen=True)
class MetricsDoc:
    """The metric registry: the names in registry order and its table, as the metrics package renders it."""

    names: list[str]
    table: str


@dataclass(frozen=True)
class FieldDoc:
    """One field of a family's answer schema."""

    name: str
    required: bool
    type: str
    description: str


@dataclass(frozen=True)
class FamilyDoc:
    """One task family: what it asks, the answer it expects and how reviewers judge it."""

    name: str
    abbreviation: str
    horizons: str
    forecast_kind: str
    metrics: list[str]
    defined_in: str
    deliverables: list[str]
    answer_schema: str
    fields: list[FieldDoc]
    contract: str
    rubric: str
    evidence_focus: str


@dataclass(frozen=True)
class MethodDoc:
    """One shipped answering method."""

    name: str
    summary: str
    needs_kb: bool
    uses_llm: bool
    forecasts: bool
    source: str


@dataclass(frozen=True)
class ParamDoc:
    """One argument or option of a CLI command."""

    name: str
    kind: str  # "argument" or "option"
    required: bool
    default: str
    help: str


@dataclass(frozen=True)
class CommandDoc:
    """One CLI command or command group, with its full help text and parameters."""

    path: str
    help: str
    is_group: bool
    params: list[ParamDoc] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------- settings


def settings_sections() -> list[SettingsSectionDoc]:
    """Every section of ``foresci.core.settings.Settings`` with its leaf fields, in declaration order."""
    from pydantic import BaseModel

    from foresci.core.settings import ENV_DELIMITER, ENV_PREFIX, Settings

    top = SettingsSectionDoc("", (Settings.__doc__ or "").strip(), [])
    sections = [top]
    for name, info in Settings.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            rows = list(_setting_rows(annotation, (name,), ENV_PREFIX, ENV_DELIMITER))
            sections.append(SettingsSectionDoc(name, _first_paragraph(annotation.__doc__), rows))
        else:
            top.rows.append(_setting_row(info, (name,), ENV_PREFIX, ENV_DELIMITER))
    return sections


def _setting_rows(model: Any, path: tuple[str, ...], prefix: str, delimiter: str) -> Iterator[SettingRow]:
    from pydantic import BaseModel

    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _setting_rows(annotation, (*path, name), prefix, delimiter)
        else:
            yield _setting_row(info, (*path, name), prefix, delimiter)


def _setting_row(info: Any, path: tuple[str, ...], prefix: str, delimiter: str) -> SettingRow:
    import json

    from pydantic import SecretStr, TypeAdapter

    default = info.get_default(call_default_factory=True)
    if isinstance(default, SecretStr):
        shown = "(secret)" if default.get_secret_value() else "unset"
    else:
        value = TypeAdapter(Any).dump_python(default, mode="json")
        shown = "unset" if value is None else json.dumps(value, ensure_ascii=False)
    return SettingRow(
        key=".".join(path),
        env_var=(prefix + delimiter.join(path)).upper(),
        type=_type_name(info.annotation),
        default=shown,
        description=info.description or "",
    )


# ----------------------------------------------------------------------------------------------- metrics


def metric_docs() -> MetricsDoc:
    """The metric registry (``foresci.evaluation.metrics``, extensions included) and its reference table,
    which the metrics package renders itself (``metric_reference``)."""
    from foresci.evaluation.metrics import all_metrics
    from foresci.evaluation.metrics.reference import metric_reference

    markdown = metric_reference()
    return MetricsDoc([metric.name for metric in all_metrics()], markdown[markdown.index("| metric |"):])


# ---------------------------------------------------------------------------------------------- families


def family_docs() -> list[FamilyDoc]:
    """The task family registry (``foresci.tasks.families``, extensions included) with the prompt texts of
    each family's own ``prompts.yaml``, in registry order."""
    from foresci.methods.shipped.prompts import prompt_book
    from foresci.tasks.families import all_families

    prompts = prompt_book()
    return [
        FamilyDoc(
            name=family.name,
            abbreviation=family.abbreviation,
            horizons=", ".join(family.horizons),
            forecast_kind=family.forecast_kind or "",
            metrics=list(family.metrics),
            defined_in=type(family).__module__,
            deliverables=list(family.deliverables),
            answer_schema=family.answer_schema.__name__,
            fields=_schema_fields(family.answer_schema),
            contract=prompts.family(family.name, "contract"),
            rubric=prompts.family(family.name, "rubric"),
            evidence_focus=prompts.family(family.name, "evidence_focus"),
        )
        for family in all_families()
    ]


def _schema_fields(schema: Any) -> list[FieldDoc]:
    fields = []
    for name, info in schema.model_fields.items():
        fields.append(FieldDoc(name, info.is_required(), _type_name(info.annotation), info.description or ""))
    return fields


# ----------------------------------------------------------------------------------------------- methods


def method_docs() -> list[MethodDoc]:
    """The methods that ship with foresci (``foresci.methods.shipped_methods()``), in registry order."""
    from foresci.methods import registered, shipped_methods

    specs = registered()
    names = shipped_methods()
    return [
        MethodDoc(
            name=name,
            summary=_method_summary(specs[name], names, specs),
            needs_kb=specs[name].needs_kb,
            uses_llm=specs[name].uses_llm,
            forecasts=specs[name].forecast is not None,
            source=specs[name].source,
        )
        for name in names
    ]


def _method_summary(spec: Any, names: list[str], specs: dict[str, Any]) -> str:
    """A module that defines one method describes it (its docstring); else the answer function does."""
    module_name = spec.source.split(":")[0]
    alone = sum(specs[other].source.split(":")[0] == module_name for other in names) == 1
    module = inspect.getmodule(spec.answer)
    if alone and module is not None and module.__name__ == module_name and module.__doc__:
        return _first_paragraph(module.__doc__)
    return _first_paragraph(inspect.getdoc(spec.answer))


# --------------------------------------------------------------------------------------------------- CLI


def cli_commands() -> list[CommandDoc]:
    """Every command of the ``foresci`` CLI, depth first, in the order ``--help`` lists them."""
    import typer.main

    from foresci.cli import build_app

    root = typer.main.get_command(build_app())
    return list(_walk_commands(root, "foresci"))


def _walk_commands(command: Any, path: str) -> Iterator[CommandDoc]:
    params = [_param_doc(param) for param in command.params if not getattr(param, "hidden", False)]
    subcommands = getattr(command, "commands", None)
    yield CommandDoc(path, inspect.cleandoc(command.help or ""), subcommands is not None, params)
    for name, subcommand in (subcommands or {}).items():
        if not getattr(subcommand, "hidden", False):
            yield from _walk_commands(subcommand, f"{path} {name}")


def _param_doc(param: Any) -> ParamDoc:
    is_argument = getattr(param, "param_type_name", "") == "argument"
    options = [*param.opts, *getattr(param, "secondary_opts", [])]
    name = (param.name or "").upper() if is_argument else ", ".join(options)
    default = param.default
    shown = "" if default is None or default == [] or callable(default) or is_argument else str(default)
    if getattr(param, "is_flag", False) and default is False:
        shown = ""
    return ParamDoc(name, "argument" if is_argument else "option", bool(param.required), shown,
                    " ".join((getattr(param, "help", None) or "").split()))


# --------------------------------------------------------------------------------------------------- util


def _first_paragraph(text: str | None) -> str:
    return " ".join(inspect.cleandoc(text or "").split("\n\n")[0].split())


def _type_name(annotation: Any) -> str:
    """A short readable name of a type annotation: ``int``, ``list[str]``, ``'a' | 'b'``."""
    import types
    import typing

    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(repr(value) for value in arguments)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_name(argument) for argument in arguments)
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(_type_name(argument) for argument in arguments)}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))
