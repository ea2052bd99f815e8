"""The one registry scheme (foresci.core.registry): shipped items in their stated module order whatever
registered first, then the others in registration order; families, metrics and methods all use it."""

from __future__ import annotations

import pytest

from foresci.core.registry import Registry, RegistryError


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


def test_a_shipped_module_that_registers_nothing_is_an_error_naming_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORESCI_EXTENSIONS", raising=False)
    registry: Registry[tuple[str, str]] = Registry("toy", ("json", "string"), lambda item: item[1])
    registry.add("first", ("first", "json"))
    with pytest.raises(RegistryError, match=r"string\.py: shipped toy module 'string' registers no toy"):
        registry.ordered()
    registry.add("second", ("second", "string"))
    assert [name for name, _ in registry.ordered()] == ["first", "second"]

    from foresci.methods import registry as methods

    helper = "foresci.methods.shipped.forecasting"  # a shipped package module that registers no method
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(methods.METHODS, "shipped", (*methods.METHODS.shipped, helper))
        with pytest.raises(RegistryError, match=rf"forecasting\.py: shipped method module '{helper}' "
                                                r"registers no method"):
            methods.registered()


def test_shipped_methods_come_in_the_order_of_the_one_stated_tuple() -> None:
    from foresci.methods import registry as methods
    from foresci.methods.shipped import baselines, native  # noqa: F401  (imported before the others)

    assert isinstance(methods.METHODS, Registry)
    by_module: dict[str, list[str]] = {}
    for name, spec in methods.registered().items():
        if spec.shipped:
            by_module.setdefault(spec.source.partition(":")[0], []).append(name)
    assert [module.rsplit(".", 1)[1] for module in by_module] == list(methods.SHIPPED_METHODS)
    reordered = tuple(reversed(methods.METHODS.shipped))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(methods.METHODS, "shipped", reordered)
            methods.METHODS.forget_order()
            names = methods.shipped_methods()
    finally:
        methods.METHODS.forget_order()
    assert names == [name for module in reordered for name in by_module[module]]
    assert names[0] == "preferential_attachment" and names[-1] == "native"
    assert methods.shipped_methods()[0] == "native"
