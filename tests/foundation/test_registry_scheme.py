"""The one registry scheme (foresci.core.registry): shipped items in their stated module order whatever
registered first, then the others in registration order; families and metrics both use it."""

from __future__ import annotations

import pytest

from foresci.core.registry import Registry


def test_shipped_items_come_in_their_stated_order_then_the_others_in_registration_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORESCI_EXTENSIONS", raising=False)
    registry: Registry[tuple[str, str]] = Registry("toy", ("json", "string"), lambda item: item[1])
    for item in (("late", "my_lab.late"), ("second", "string"), ("early", "my_lab.early"), ("first", "json")):
        registry.add(item[0], item)
    assert [name for name, _ in registry.ordered()] == ["first", "second", "late", "early"]
    registry.remove("second")
    assert [name for name, _ in registry.ordered()] == ["first", "late", "early"]
    assert registry.get("late") == ("late", "my_lab.late") and registry.get("second") is None


def test_families_and_metrics_are_registries_of_the_one_scheme() -> None:
    from foresci.evaluation.metrics import SHIPPED_MODULES, all_metrics
    from foresci.evaluation.metrics import base as metrics
    from foresci.tasks.families import all_families
    from foresci.tasks.families import base as families

    assert isinstance(families._FAMILIES, Registry) and isinstance(metrics._METRICS, Registry)
    assert families._FAMILIES.ordered() == all_families()
    shipped = [type(metric).__module__.rsplit(".", 1)[1] for metric in all_metrics()
               if type(metric).__module__.startswith("foresci.")]
    assert list(dict.fromkeys(shipped)) == list(SHIPPED_MODULES)
