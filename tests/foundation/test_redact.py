"""URL masking stays linear in the text: a long answer or reply is masked in well under a second."""

from __future__ import annotations

import json
import time
from pathlib import Path

from foresci.core.io import write_jsonl
from foresci.core.redact import mask_urls_in


def test_a_one_megabyte_field_is_masked_in_linear_time(tmp_path: Path) -> None:
    # 1 MB of letters after '://' (a backtracking scan rescans the word from every start: minutes)
    field = "see http://bob:pw@host/x?token=s3cret and http://" + "a" * 1_000_000 + " end"
    started = time.monotonic()
    masked = mask_urls_in(field)
    assert time.monotonic() - started < 1.0
    assert "s3cret" not in masked and "bob:pw" not in masked and masked.endswith(" end")
    started = time.monotonic()
    write_jsonl(tmp_path / "rows.jsonl", [{"answer": field}])
    assert time.monotonic() - started < 2.0
    row = json.loads((tmp_path / "rows.jsonl").read_text())
    assert "s3cret" not in row["answer"] and len(row["answer"]) > 1_000_000


def test_masking_finds_urls_the_way_it_did() -> None:
    assert mask_urls_in("x1http://a@b/c?token=1'y") == "x1http://***@b/c?token=***'y"
    assert mask_urls_in("://http://a:b@c/?key=1") == "://http://***@c/?key=***"
    assert mask_urls_in("9abc+d://x@y z") == "9abc+d://***@y z"
    assert mask_urls_in("a:// and 1://x@y") == "a:// and 1://x@y"
