"""The HTML report in a real headless Chromium: no console errors, numbers match summary.json, drill-down."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from foresci.core.settings import Settings
from foresci.evaluation.report import write_report
from foresci.evaluation.runner import evaluate_run
from tests.evaluation.conftest import WordEncoder

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _browser_or_skip() -> Any:
    """The playwright module, or skip (fail under CI=true) when it or Chromium is missing."""
    try:
        from playwright import sync_api
    except ImportError:
        sync_api = None
    if sync_api is None or not CHROMIUM.exists():
        message = "needs /usr/bin/chromium and playwright (run tests/support/ensure_chromium.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return sync_api


def test_report_in_headless_chromium(tmp_path: Path, run_dir: Path, eval_settings: Settings) -> None:
    sync_api = _browser_or_skip()
    evaluate_run(run_dir, None, eval_settings, offline=True, encoder=WordEncoder())
    index = write_report([run_dir], tmp_path / "report", eval_settings)
    summary = json.loads((run_dir / "summary.json").read_text())
    expected = {
        (entry["label"], name): f"{cell['mean']:.3f}"
        for entry in summary["leaderboard"]
        if entry["family"] == "all"
        for name, cell in entry["metrics"].items()
    }
    assert (tmp_path / "report" / "report.md").read_text().startswith("# foresci evaluation report")
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on(
                "console", lambda message: problems.append(message.text) if message.type == "error" else None
            )
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.goto(index.as_uri(), wait_until="load")
            shown: dict[tuple[str, str], str] = {}
            for row in page.query_selector_all("#leaderboard tr[data-entry]"):
                label = row.get_attribute("data-entry") or ""
                for cell in row.query_selector_all("td[data-metric]"):
                    value = cell.get_attribute("data-value") or ""
                    if value:
                        text = cell.inner_text().split()[0]
                        assert text == value
                        shown[(label, cell.get_attribute("data-metric") or "")] = value
            assert shown == expected
            assert page.locator("img").count() >= 3  # heatmaps, reliability, coverage
            assert all(
                page.evaluate("(img) => img.naturalWidth", image) > 0
                for image in page.query_selector_all("img")
            )
            first = page.locator("details.drill").first
            assert first.get_attribute("open") is None
            first.locator("summary").click()
            assert first.get_attribute("open") is not None
            assert first.locator("pre").first.is_visible()
            assert "Memory-augmented agents gain momentum" in first.locator("pre").first.inner_text()
            page.fill("#drill-filter", "venue")
            assert page.locator("details.drill:visible").count() == 1
            screenshot = tmp_path / "report.png"
            page.screenshot(path=str(screenshot), full_page=True)
            if os.environ.get("FORESCI_SCREENSHOT_DIR"):
                shutil.copy(screenshot, Path(os.environ["FORESCI_SCREENSHOT_DIR"]) / "report.png")
        finally:
            browser.close()
    assert problems == []
