"""Public/hidden separation at the type and import level."""

from __future__ import annotations

import subprocess
import sys
from datetime import date

import pytest
from pydantic import ValidationError

from foresci.tasks.families import all_families
from foresci.tasks.models import Task

PUBLIC = {"task_id": "t1", "family": "direction_forecasting", "domain": "toy", "cutoff": date(2025, 12, 31),
          "horizon": "3m", "window_start": date(2026, 1, 1), "window_end": date(2026, 3, 31), "title": "t",
          "question": "q"}


HIDDEN_FIELDS = {name for family in all_families() for name in family.hidden_model().model_fields}


@pytest.mark.parametrize("field", sorted(HIDDEN_FIELDS - set(Task.model_fields)))
def test_public_task_rejects_every_hidden_field(field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        Task(**PUBLIC, **{field: "leak"})


def test_public_release_loader_never_imports_hidden_code() -> None:
    code = ("import sys, foresci.tasks.release, foresci.tasks.models; "
            "print('foresci.tasks.hidden' in sys.modules, 'foresci.tasks.hidden_io' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
