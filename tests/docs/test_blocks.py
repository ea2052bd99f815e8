"""The docs' code blocks, without running them: markers read right, every ``foresci`` command line in the
README and the docs pages parses against the real CLI, the README stays a map whose links resolve."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.blocks import (
    README,
    REPO_ROOT,
    Block,
    command_lines,
    doc_pages,
    read_blocks,
    runs_after,
    script,
)
from tests.docs.cli_check import check_command, cli_root

SHELL = {"bash", "sh", "shell", "console"}
PIPELINE = {"foresci kb build", "foresci taxonomy build", "foresci tasks build", "foresci run",
            "foresci eval", "foresci report"}

SAMPLE = """# page

<!-- docs-test: run -->
```bash
foresci kb stats kb
```

<!-- docs-test: file agent.py -->
```python
print("hi")
```

```bash
shown only
```

- item

    ```bash
    indented
    ```
"""


def test_markers_say_which_blocks_run_and_which_are_files(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    blocks = read_blocks(page, SAMPLE)
    assert [(block.line, block.language, block.action, block.argument) for block in blocks] == [
        (4, "bash", "run", ""), (9, "python", "file", "agent.py"), (13, "bash", None, ""),
        (19, "bash", None, "")]
    assert blocks[0].text == "foresci kb stats kb\n" and blocks[3].text == "indented\n"
    text = script(blocks)
    written = "cat > agent.py <<'DOCS_TEST_EOF'\nprint(\"hi\")\nDOCS_TEST_EOF"
    assert text.index(written) > text.index("kb stats")
    assert "shown only" not in text and "indented" not in text


@pytest.mark.parametrize("text, line", [
    ("<!-- docs-test: run -->\nsome prose\n```bash\nx\n```\n", 1),
    ("text\n<!-- docs-test: run -->\n", 2),
    ("<!-- docs-test: run -->\n```bash\nnever closed\n", 2),
])
def test_a_marker_without_its_block_is_an_error_naming_the_line(tmp_path: Path, text: str, line: int) -> None:
    with pytest.raises(ValueError, match=rf"page\.md:{line}: "):
        read_blocks(tmp_path / "page.md", text)


def test_command_lines_drop_assignments_comments_and_what_follows_a_separator(tmp_path: Path) -> None:
    block = Block(tmp_path / "p.md", 1, "bash", "PYTHONPATH=. foresci run r --out o   # note\n"
                  "foresci eval a \\\n    --offline && echo done\npython x.py &\nforesci kb stats k | cat\n"
                  "foresci llm serve --port 0 > llm.env &\n")
    assert command_lines(block) == [["run", "r", "--out", "o"], ["eval", "a", "--offline"],
                                    ["kb", "stats", "k"], ["llm", "serve", "--port", "0"]]


def test_the_checker_catches_a_wrong_command_or_option() -> None:
    root = cli_root()
    assert check_command(root, ["kb", "build", "corpus", "--out", "kb"]) == ("foresci kb build", None)
    name, problem = check_command(root, ["kb", "build", "corpus", "--outt", "kb"])
    assert name == "foresci kb build" and problem is not None and "--outt" in problem
    assert "not one of its commands ('bild'" in (check_command(root, ["kb", "bild", "x"])[1] or "")
    assert "Missing" in (check_command(root, ["tasks", "build", "kb", "--out", "r"])[1] or "")


def test_every_foresci_command_in_the_docs_parses() -> None:
    root = cli_root()
    problems, seen = [], set()
    for page in doc_pages():
        for block in read_blocks(page):
            if block.language not in SHELL:
                continue
            for words in command_lines(block):
                name, problem = check_command(root, words)
                seen.add(name)
                if problem:
                    problems.append(f"{block.where}: foresci {' '.join(words)}: {problem}")
    assert problems == []
    assert seen >= PIPELINE, f"stages no docs page shows: {sorted(PIPELINE - seen)}"


def test_readme_is_a_map() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    blocks = read_blocks(README)
    setup = next(block for block in blocks if "make demo" in block.text)
    assert [line.split("#")[0].strip() for line in setup.text.splitlines()] == ["make demo", "make test"]
    assert any(block.action == "run" for block in blocks), "the README's stage commands run in CI"
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)
    assert links, "the README links to the docs"
    assert [link for link in links if not (REPO_ROOT / link).is_file()] == []
    assert {"docs/tutorials/first-benchmark.md", "docs/tutorials/your-own-agent.md"} <= set(links)


def test_pages_run_after_pages_that_exist_and_run() -> None:
    for page in doc_pages():
        before = runs_after(page)
        if before is None:
            continue
        assert before.is_file(), f"{page}: runs after a missing page {before}"
        assert any(block.action == "run" for block in read_blocks(before)), f"{before} runs nothing"
        assert runs_after(before) != page.resolve(), f"{page} and {before} run after each other"
