"""A domain with no paper at the cutoff is skipped (with a warning in the manifest), not a crash of every
domain; a build with no domain left fails with one clear error (issue #11 item 13)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.settings import Settings
from foresci.kb.models import Paper
from foresci.tasks.build import build_release
from foresci.tasks.forecast import make_package
from tests.tasks.toy import CUTOFF, ToyKB


class TwoDomainKB(ToyKB):
    """The toy world plus a domain 'empty' that has no paper at all."""

    def __init__(self, until: date | None = None) -> None:
        super().__init__(until=until)
        self.domains = ["empty", "toy"]

    def papers(
        self,
        until: date | None = None,
        since: date | None = None,
        domain: str | None = None,
        statuses: tuple[str, ...] = ("core", "support"),
    ) -> list[Paper]:
        """No paper for 'empty'; the toy world's papers otherwise."""
        return [] if domain == "empty" else super().papers(until=until, since=since, domain=domain)


def _settings() -> Settings:
    settings = Settings()
    settings.tasks.min_support = 5
    settings.tasks.enforce_gates = False
    return settings


def test_tasks_build_skips_a_domain_without_papers(tmp_path: Path) -> None:
    kb = TwoDomainKB()
    out = build_release(
        kb, tmp_path / "rel", CUTOFF, settings=_settings(), per_family=4, snapshots={"toy": kb.snapshot}
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["skipped_domains"] == {"empty": f"0 papers on or before the cutoff {CUTOFF}"}
    assert manifest["counts"]["tasks"] > 0 and set(manifest["counts"]["by_domain"]) == {"toy"}


def test_forecast_package_skips_a_domain_without_papers(tmp_path: Path) -> None:
    kb = TwoDomainKB(until=CUTOFF)
    out = make_package(
        kb, tmp_path / "pkg", CUTOFF, window="3m", n=4, settings=_settings(), snapshots={"toy": kb.snapshot}
    )
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["skipped_domains"] == {"empty": f"0 papers on or before the cutoff {CUTOFF}"}
    assert counts["questions"] == 4 and set(counts["by_domain"]) == {"toy"}


def test_a_cutoff_before_every_paper_fails_clearly(tmp_path: Path) -> None:
    kb = TwoDomainKB()
    with pytest.raises(
        UserError, match=r"cutoff: no domain has papers on or before the cutoff .*empty: 0 papers"
    ):
        build_release(
            kb,
            tmp_path / "rel",
            date(2000, 1, 31),
            settings=_settings(),
            per_family=4,
            snapshots={"toy": kb.snapshot},
        )
    assert not (tmp_path / "rel").exists()
    with pytest.raises(UserError, match="no domain has papers"):
        make_package(kb, tmp_path / "pkg", date(2000, 1, 31), window="3m", n=4, settings=_settings())


class FringeDomainKB(ToyKB):
    """The toy world plus a domain 'fringe' whose papers are all support papers (none core): what a
    generated world's KB gives foresci's shipped domains, which its screen fills with a few peripheral
    papers."""

    def __init__(self) -> None:
        super().__init__()
        self.domains = ["fringe", "toy"]

    def papers(
        self,
        until: date | None = None,
        since: date | None = None,
        domain: str | None = None,
        statuses: tuple[str, ...] = ("core", "support"),
    ) -> list[Paper]:
        """'fringe' has the toy world's first papers as support papers only."""
        if domain == "fringe":
            found = super().papers(until=until, since=since, domain="toy")[:3]
            return found if "support" in statuses else []
        return super().papers(until=until, since=since, domain=domain)


def test_a_domain_without_taxonomy_members_is_skipped_not_a_crash(tmp_path: Path) -> None:
    kb = FringeDomainKB()
    settings = _settings()
    assert tuple(settings.taxonomy.member_statuses) == ("core",)
    out = build_release(kb, tmp_path / "rel", CUTOFF, settings=settings, per_family=4,
                        snapshots={"toy": kb.snapshot})
    skipped = json.loads((out / "manifest.json").read_text())["counts"]["skipped_domains"]
    assert list(skipped) == ["fringe"]
    assert "none of its 3 papers" in skipped["fringe"] and "member status (core)" in skipped["fringe"]
