"""The docs site, built with ``mkdocs build --strict`` and served on 127.0.0.1, in a real headless Chromium:
the generated metric and settings reference pages show the registry's rows, load nothing from outside,
log no console error, and render real content (not a blank page)."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from foresci.core.settings import Settings
from foresci.evaluation.metrics import all_metrics
from tests.docs.blocks import REPO_ROOT
from tests.docs.reference import settings_leaf_keys

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _needs(message: str) -> None:
    """Skip, or fail under CI=true, when a tool the test needs is missing."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def _browser_or_skip() -> Any:
    sync_api: Any = None
    with contextlib.suppress(ImportError):
        from playwright import sync_api
    if sync_api is None or not CHROMIUM.exists():
        _needs("needs /usr/bin/chromium and playwright (run tests/support/ensure_chromium.sh)")
    return sync_api


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built into a temp folder, as ``make docs`` builds it (``--strict``)."""
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError:
        _needs("needs the docs extra: pip install -e '.[docs]' (make docs)")
    out = tmp_path_factory.mktemp("docs") / "site"
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                            cwd=REPO_ROOT, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site over HTTP on 127.0.0.1 (the search worker does not run from file://)."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _cells(page: Any, table: Any) -> list[list[str]]:
    return [[cell.inner_text().strip() for cell in row.query_selector_all("td")]
            for row in table.query_selector_all("tbody tr")]


def _drawn(png: Path) -> float:
    """Share of the screenshot's pixels that are not the page background (white)."""
    import matplotlib.image

    pixels = matplotlib.image.imread(str(png))[..., :3]
    return float((pixels.min(axis=2) < 0.9).mean())


def _open(browser: Any, url: str, problems: list[str], outside: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    def route(request_route: Any) -> None:
        if request_route.request.url.startswith(url.split("/reference/")[0]):
            request_route.continue_()
        else:
            outside.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    page.goto(url, wait_until="networkidle")
    return page


def _screenshot(page: Any, path: Path) -> float:
    page.screenshot(path=str(path), full_page=False)
    if os.environ.get("FORESCI_SCREENSHOT_DIR"):
        shutil.copy(path, Path(os.environ["FORESCI_SCREENSHOT_DIR"]) / path.name)
    return _drawn(path)


@pytest.mark.slow
def test_reference_pages_in_headless_chromium(served: str, tmp_path: Path) -> None:
    sync_api = _browser_or_skip()
    problems: list[str] = []
    outside: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            metrics = _open(browser, served + "reference/metrics.html", problems, outside)
            assert metrics.title() == "Metrics - foresci"
            assert metrics.locator("article h1").inner_text().startswith("Metric reference")
            table = metrics.locator("article table").first.element_handle()
            rows = _cells(metrics, table)
            registered = all_metrics()
            assert [row[0].split() for row in rows] == [[metric.name, *metric.label.split()]
                                                        for metric in registered]
            assert [row[3] for row in rows] == ["higher" if metric.higher_is_better else "lower"
                                                for metric in registered]
            assert metrics.locator("nav").get_by_text("Task families").count() >= 1
            # every column, the description last, within the page: no horizontal scroll hides it
            right = metrics.evaluate("(t) => Math.max(...[...t.querySelectorAll('th')].map("
                                     "c => c.getBoundingClientRect().right))", table)
            assert right <= metrics.viewport_size["width"], right
            # ... and in its own box: the table's wrapper does not scroll sideways (a scrolled-off
            # description column sat past the article's right edge at 1280 px and at 1920 px)
            hidden = metrics.evaluate("(t) => { const box = t.closest('.md-typeset__scrollwrap') || "
                                      "t.parentElement; return box.scrollWidth - box.clientWidth; }", table)
            assert hidden <= 1, hidden
            assert _screenshot(metrics, tmp_path / "docs-metrics.png") > 0.03

            settings = _open(browser, served + "reference/settings.html", problems, outside)
            keys, base_url = [], None
            for table in settings.query_selector_all("article table"):
                for row in _cells(settings, table):
                    key, variable = row[0].split()
                    keys.append(key)
                    if key == "llm.base_url":
                        base_url = [variable, *row[1:]]
            assert sorted(keys) == sorted(settings_leaf_keys())
            assert base_url is not None and base_url[:3] == ["FORESCI_LLM__BASE_URL", "str | None", "unset"]
            assert base_url[3] == Settings.model_fields["llm"].annotation.model_fields[  # type: ignore[union-attr]
                "base_url"].description
            heading = settings.locator("h2#llm")
            assert heading.is_visible()
            heading.scroll_into_view_if_needed()
            settings.wait_for_timeout(400)  # the header's title transition after a scroll
            assert _screenshot(settings, tmp_path / "docs-settings.png") > 0.03
        finally:
            browser.close()
    assert problems == []
    assert outside == [], "the site loaded something from outside its own server"
