"""Markdown of the generated reference pages, from the plain data of ``reference_sources.py``.

Nothing here imports foresci: each page function takes the records the sources module returns.
``build_pages`` maps each page's path under ``docs/`` to its Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

GENERATED_NOTE = (
    "!!! note \"Generated from the code\"\n"
    "    This page is written at build time by `docs/hooks/reference_hook.py` from {source}. "
    "Edit the code, not this page.\n"
)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_MARKDOWN_SPECIAL = re.compile(r"([\\*_\[\]|<>#])")


def escape(text: str) -> str:
    """``text`` safe inside a Markdown table cell or paragraph; code spans (`...`) are kept as code."""
    pieces: list[str] = []
    position = 0
    for match in _CODE_SPAN.finditer(text):
        pieces.append(_escape_plain(text[position:match.start()]))
        pieces.append(match.group(0))  # Python-Markdown's tables leave a pipe inside a code span alone
        position = match.end()
    pieces.append(_escape_plain(text[position:]))
    return "".join(pieces).replace("\n", " ")


def _escape_plain(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(lambda match: {"<": "&lt;", ">": "&gt;"}.get(match.group(1),
                                                                              "\\" + match.group(1)), text)


def code(text: str) -> str:
    """``text`` as an inline code span, in a table cell."""
    if not text:
        return ""
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"


def table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """A Markdown table; cells must already be escaped."""
    names = list(header)
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


# ---------------------------------------------------------------------------------------------- settings


def settings_page(sections: list[Any]) -> str:
    """Every setting: key, environment variable, type, default and description, one table per section."""
    count = sum(len(section.rows) for section in sections)
    parts = [
        "# Settings reference\n",
        GENERATED_NOTE.format(
            source="the pydantic fields of `foresci.core.settings.Settings` and its sections"),
        f"{count} settings in {len(sections) - 1} sections. Set one in the environment "
        "(`FORESCI_<SECTION>__<KEY>`) or in a YAML file with the same keys (`--config FILE` or "
        "`FORESCI_CONFIG`); an unknown key is an error naming the key and where it came from. "
        "See [Configuration](../concepts/configuration.md) for what the main ones do.\n",
    ]
    for section in sections:
        title = f"`{section.name}`" if section.name else "Top level"
        parts.append(f"## {title}\n")
        if section.summary:
            parts.append(escape(section.summary) + "\n")
        rows = [[f"{code(row.key)}<br>{code(row.env_var)}", code(row.type), code(row.default),
                 escape(row.description)] for row in section.rows]
        parts.append(table(["key and environment variable", "type", "default", "description"], rows))
    return "\n".join(parts)


# ----------------------------------------------------------------------------------------------- metrics


def metrics_page(metrics: Any) -> str:
    """The metric registry as one table (the table as the metrics package renders it)."""
    return "\n".join([
        "# Metric reference\n",
        GENERATED_NOTE.format(source="the metric registry (`foresci.evaluation.metrics`)"),
        f"{len(metrics.names)} registered metrics. The name is the key in `scores.jsonl` and "
        "`summary.json`; the label is the column heading of leaderboards and the report. A metric an "
        "extension registers (`FORESCI_EXTENSIONS`) appears here too when the site is built with it. How "
        "the ForeSci metrics are defined: [Metrics and scores](../concepts/scores.md).\n",
        metrics.table,
    ])


# ---------------------------------------------------------------------------------------------- families


def families_page(families: list[Any]) -> str:
    """Each task family: horizons, deliverables, answer schema, contract, rubric and evidence focus."""
    parts = [
        "# Task family reference\n",
        GENERATED_NOTE.format(source="the task family registry (`foresci.tasks.families`) and "
                              "each family's `prompts.yaml`"),
        f"{len(families)} families: " + ", ".join(f"`{family.name}`" for family in families)
        + ". `foresci tasks families` lists the registered ones, extensions' included.\n",
        table(["family", "id prefix", "windows", "forecast questions", "metrics", "answer schema",
               "defined in"],
              [[code(family.name), code(family.abbreviation), escape(family.horizons),
                escape(family.forecast_kind or "–"), ", ".join(code(name) for name in family.metrics),
                code(family.answer_schema), code(family.defined_in)] for family in families]),
    ]
    for family in families:
        parts.append(f"## `{family.name}`\n")
        parts.append("**What the question asks of the answer**\n")
        parts.append("\n".join(f"- {escape(item)}" for item in family.deliverables) + "\n")
        parts.append(f"**Answer schema** (`{family.answer_schema}`)\n")
        rows = [[code(field.name), _yes(field.required), code(field.type), escape(field.description)]
                for field in family.fields]
        parts.append(table(["field", "required", "type", "description"], rows))
        parts.append("**Contract given to every method**\n")
        parts.append(escape(family.contract) + "\n")
        parts.append("**Reviewer rubric**\n")
        parts.append(escape(family.rubric) + "\n")
        parts.append("**Evidence the ARIS-style method constructs**\n")
        parts.append(escape(family.evidence_focus) + "\n")
    return "\n".join(parts)


# ----------------------------------------------------------------------------------------------- methods


def methods_page(methods: list[Any]) -> str:
    """The shipped methods as one table."""
    rows = [[code(method.name), escape(method.summary), _yes(method.needs_kb), _yes(method.uses_llm),
             _yes(method.forecasts), code(method.source)] for method in methods]
    return "\n".join([
        "# Method reference\n",
        GENERATED_NOTE.format(source="the method registry (`foresci.methods.shipped_methods()`)"),
        f"{len(methods)} methods ship with foresci; `--methods all` runs all of them. Your own method "
        "registers the same way: see [Your own agent](../tutorials/your-own-agent.md).\n",
        table(["method", "what it does", "reads the KB", "uses an LLM", "answers forecasts", "defined in"],
              rows),
    ])


# --------------------------------------------------------------------------------------------------- CLI


def cli_page(commands: list[Any]) -> str:
    """Every command: its help text (examples as code blocks) and a table of its arguments and options."""
    parts = [
        "# Command-line reference\n",
        GENERATED_NOTE.format(source="the `foresci` command tree (the text `foresci COMMAND --help` prints)"),
        f"{sum(not command.is_group for command in commands)} commands. Every command takes `--help`; "
        "`--debug` anywhere on the line shows the traceback of an error.\n",
    ]
    for command in commands:
        level = "#" * min(2 + command.path.count(" "), 4)
        heading = "`foresci`" if command.path == "foresci" else f"`{command.path}`"
        parts.append(f"{level} {heading}\n")
        parts.append(help_markdown(command.help))
        if command.params:
            rows = [[code(param.name), _yes(param.required), code(param.default), escape(param.help)]
                    for param in command.params]
            parts.append(table(["argument / option", "required", "default", "help"], rows))
    return "\n".join(parts)


def help_markdown(text: str) -> str:
    """A command's help text: indented paragraphs (examples) become one code block, the rest prose."""
    blocks: list[tuple[str, list[str]]] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        lines = paragraph.splitlines()
        kind = "code" if lines and all(line.startswith((" ", "\t")) for line in lines) else "prose"
        if kind == "code" and blocks and blocks[-1][0] == "code":
            blocks[-1][1].extend(["", *lines])
        else:
            blocks.append((kind, lines))
    out: list[str] = []
    for kind, lines in blocks:
        if kind == "code":
            indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
            body = "\n".join(line[indent:] for line in lines)
            out.append(f"```bash\n{body}\n```\n")
        else:
            out.append(escape(" ".join(line.strip() for line in lines)) + "\n")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------- pages

PAGES: dict[str, tuple[str, Callable[[Any], str]]] = {
    "reference/settings.md": ("settings_sections", settings_page),
    "reference/metrics.md": ("metric_docs", metrics_page),
    "reference/families.md": ("family_docs", families_page),
    "reference/methods.md": ("method_docs", methods_page),
    "reference/cli.md": ("cli_commands", cli_page),
}


def build_pages(sources: Any) -> dict[str, str]:
    """Every generated page: its path under ``docs/`` and its Markdown, read through ``sources``."""
    return {path: render(getattr(sources, reader)()) for path, (reader, render) in PAGES.items()}
