"""The code blocks of the README and the docs pages, and the markers that say which of them run.

A fenced block preceded (on the line before its fence) by ``<!-- docs-test: run -->`` is a shell script
the docs tests run; ``<!-- docs-test: file NAME -->`` writes the block to ``NAME`` before the next run
block. A page whose text holds ``<!-- docs-test: after PAGE.md -->`` runs in a copy of the folder that
``PAGE.md`` (a path relative to the page's own folder) left behind.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
README = REPO_ROOT / "README.md"
DOCS_DIR = REPO_ROOT / "docs"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<action>run|file)\s*(?P<argument>\S*)\s*-->\s*$")
_AFTER = re.compile(r"^\s*<!--\s*docs-test:\s*after\s+(?P<page>\S+)\s*-->\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, its text and what the docs tests do with it."""

    page: Path
    line: int  # 1-based line of the opening fence
    language: str
    text: str
    action: str | None = None  # "run", "file" or None (shown only)
    argument: str = ""  # the file name of a "file" block

    @property
    def where(self) -> str:
        """``page:line`` relative to the repository."""
        page = self.page.relative_to(REPO_ROOT) if self.page.is_relative_to(REPO_ROOT) else self.page
        return f"{page}:{self.line}"


def doc_pages() -> list[Path]:
    """The README and every Markdown page of the docs site (generated pages are not files)."""
    return [README, *sorted(DOCS_DIR.rglob("*.md"))]


def read_blocks(page: Path, text: str | None = None) -> list[Block]:
    """Every fenced code block of ``page`` (or of ``text``), with its docs-test marker if it has one.

    A marker that is not directly followed by a fence is an error naming its line, as is a fence that is
    never closed.
    """
    lines = (page.read_text(encoding="utf-8") if text is None else text).splitlines()
    blocks: list[Block] = []
    pending: tuple[int, str, str] | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        marker = _MARKER.match(line)
        if marker:
            if pending is not None:
                raise ValueError(f"{page}:{pending[0] + 1}: docs-test marker not followed by a code block")
            pending = (index, marker["action"], marker["argument"])
            index += 1
            continue
        fence = _FENCE.match(line)
        if not fence:
            if pending is not None and line.strip():
                raise ValueError(f"{page}:{pending[0] + 1}: docs-test marker not followed by a code block")
            index += 1
            continue
        indent, closing = fence["indent"], fence["fence"]
        body: list[str] = []
        end = index + 1
        while end < len(lines) and lines[end].strip() != closing:
            body.append(lines[end][len(indent):] if lines[end].startswith(indent) else lines[end])
            end += 1
        if end == len(lines):
            raise ValueError(f"{page}:{index + 1}: code block never closed")
        action, argument = (pending[1], pending[2]) if pending else (None, "")
        if action == "file" and not argument:
            raise ValueError(f"{page}:{index}: 'docs-test: file' needs a file name")
        blocks.append(Block(page, index + 1, fence["info"].strip().split(" ")[0], "\n".join(body) + "\n",
                            action, argument))
        pending = None
        index = end + 1
    if pending is not None:
        raise ValueError(f"{page}:{pending[0] + 1}: docs-test marker not followed by a code block")
    return blocks


def runs_after(page: Path) -> Path | None:
    """The page whose leftover folder ``page`` continues in (``docs-test: after``), if any."""
    match = _AFTER.search(page.read_text(encoding="utf-8"))
    return (page.parent / match["page"]).resolve() if match else None


def script(blocks: list[Block]) -> str:
    """One bash script of a page's run and file blocks, in order; each block announces itself on stderr
    so a failure names the block it happened in."""
    parts = ["set -euo pipefail"]
    for block in blocks:
        if block.action == "file":
            parts.append(f"cat > {shlex.quote(block.argument)} <<'DOCS_TEST_EOF'\n{block.text}DOCS_TEST_EOF")
        elif block.action == "run":
            parts.append(f"echo {shlex.quote('docs-test block ' + block.where)} >&2\n{block.text}")
    return "\n".join(parts) + "\n"


def command_lines(block: Block) -> list[list[str]]:
    """The ``foresci ...`` command lines of a shell block, as argument lists (continuations joined;
    leading ``VAR=value`` assignments, comments and everything after a ``;``, ``&&``, ``|``, ``&`` or a
    redirection dropped)."""
    joined = re.sub(r"\\\n\s*", " ", block.text)
    commands: list[list[str]] = []
    for raw in joined.splitlines():
        try:
            words = shlex.split(raw, comments=True)
        except ValueError as error:
            raise ValueError(f"{block.where}: cannot read {raw!r}: {error}") from error
        for separator in (";", "&&", "||", "|", "&", ">", ">>", "2>", "<"):
            if separator in words:
                words = words[:words.index(separator)]
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words = words[1:]
        if words and words[0] == "foresci":
            commands.append(words[1:])
    return commands
