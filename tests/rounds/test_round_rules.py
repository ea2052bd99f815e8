"""A round's opening loads the taxonomy's rule files once and hands them down: the induction of every
domain's T(d, t) and the KB baselines' own induction (:mod:`foresci.agents.baselines.routing`) read no
rule file again (main read each file once per domain and again per baseline induction)."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import foresci.agents.baselines.routing as routing
from foresci.core import yamlio
from foresci.rounds.ledger import LedgerConfig, init_ledger
from foresci.rounds.open import open_round
from foresci.rounds.submit import versions
from tests.rounds.helpers import toy_settings
from tests.rounds.test_open_costs import ToyView
from tests.tasks.toy import CUTOFF, ToyKB

RULE_FILES = ("dimensions.yaml", "slicing.yaml", "signals.yaml", "evolution.yaml", "trajectory.yaml")


class TwoDomainKB(ToyKB):
    """The toy KB seen as two domains (each induces its own T(d, t))."""

    def __init__(self, until: date | None = None) -> None:
        super().__init__(until=until)
        self.domains = ["toy", "toy-twin"]


@pytest.mark.parametrize("taxonomy_seed", [None, 14], ids=["default-taxonomy", "baselines-induce-too"])
def test_one_rounds_opening_reads_each_taxonomy_rule_file_once(tmp_path: Path,
                                                               taxonomy_seed: int | None) -> None:
    """With default taxonomy settings the baselines route into the round's T(d, t); with another seed
    they induce their own (default settings), with the rules the opening loaded."""
    settings = toy_settings()
    settings.cache_dir = tmp_path / "cache"  # no T(d, t) reused from an earlier test
    if taxonomy_seed is not None:
        settings.taxonomy.seed = taxonomy_seed
    kb = TwoDomainKB(until=CUTOFF)
    reads: Counter[str] = Counter()
    read = yamlio.read_yaml_mapping

    def counted(path: Any, *args: Any, **kwargs: Any) -> Any:
        reads[Path(path).name] += 1
        return read(path, *args, **kwargs)

    routed: list[str | None] = []
    induce = routing._induce

    def inducing(view: Any, domain: str | None) -> Any:
        routed.append(domain)
        return induce(view, domain)

    ledger = tmp_path / "ledger"  # a small round: a few questions, one task (the baselines route it)
    init_ledger(ledger, LedgerConfig(schedule="manual", windows=["3m"], questions=4, family_tasks=1,
                                     families=["direction_forecasting"], emergence_questions=0, min_items=2,
                                     bootstrap=10))
    with (mock.patch.object(yamlio, "read_yaml_mapping", counted),
          mock.patch.object(routing, "_induce", inducing)):
        round_id = open_round(ledger, kb, settings, view_for=lambda cutoff: ToyView(kb, cutoff))
    assert len(versions(ledger / "rounds" / round_id, "trend")) == 1  # the baselines did answer
    assert bool(routed) == (taxonomy_seed is not None)  # the baselines induced their own T(d, t) or not
    assert {name: reads[name] for name in RULE_FILES} == dict.fromkeys(RULE_FILES, 1), reads
