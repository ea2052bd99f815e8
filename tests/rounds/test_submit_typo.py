"""`rounds submit --method persistance` names the method it was close to, as `run --method` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.rounds.submit import submit
from tests.rounds.helpers import make_ledger, toy_tick
from tests.tasks.toy import CUTOFF, ToyKB


def test_a_misspelt_method_gets_a_did_you_mean(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    with pytest.raises(UserError, match=r"--method: did you mean persistence\? unknown method 'persistance'"):
        submit(ledger, f"r-{CUTOFF.isoformat()}", ToyKB(until=CUTOFF), method="persistance")
    with pytest.raises(UserError, match="unknown method 'zzzz'") as far:
        submit(ledger, f"r-{CUTOFF.isoformat()}", ToyKB(until=CUTOFF), method="zzzz")
    assert "did you mean" not in str(far.value)
