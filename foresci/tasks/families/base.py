"""The task-family registry: one :class:`TaskFamily` object per family, and every per-family list derived
from it.

A family is a subclass of :class:`TaskFamily` registered with :func:`register_family`. It owns its public
answer schema, deliverables, contract check and rendering, the metrics that apply, what the non-LLM
baselines answer, its forecast-question kind and its task-id abbreviation (all public: agents read them),
and, by dotted path so that agents never import hidden code, its hidden-target model and its builder.

The five shipped families live in sub-packages of :mod:`foresci.tasks.families`; a third-party family
registers from a module outside foresci named in ``FORESCI_EXTENSIONS`` or the entry-point group
``foresci.core.extensions`` (:mod:`foresci.core.extensions`), which the registry imports before it is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, get_args

from pydantic import BaseModel

from foresci.core.errors import UserError
from foresci.core.registry import Registry
from foresci.tasks.windows import HORIZON_MONTHS, KNOWN_HORIZONS

if TYPE_CHECKING:
    from foresci.tasks.builders.common import Built
    from foresci.tasks.config import TaskSettings
    from foresci.tasks.evidence import DomainEvidence
    from foresci.tasks.hidden import HiddenTarget, Resolution
    from foresci.tasks.models import ForecastQuestion, QuestionKind, Task

BUILTIN_FAMILIES = (
    "foresci.tasks.families.direction_forecasting.family",
    "foresci.tasks.families.bottleneck_opportunity.family",
    "foresci.tasks.families.strategic_planning.family",
    "foresci.tasks.families.venue_positioning.family",
    "foresci.tasks.families.concept_emergence.family",
)
"""Modules of the shipped families, imported in this order (the order of ``family_names()``: task order
in a release, the forecast-question cycle)."""

class UnknownFamilyError(UserError):
    """A family name no registered :class:`TaskFamily` carries."""


class FamilyDefinitionError(UserError):
    """A :class:`TaskFamily` subclass that cannot be registered (a missing attribute, a taken name)."""


class AnswerLike(Protocol):
    """What :meth:`TaskFamily.top_choice` reads of an answer row (``foresci.contracts.Answer``)."""

    payload: dict[str, Any]
    text: str


@dataclass(frozen=True)
class ContractCheck:
    """An answer read against its task contract.

    ``answer`` has the model's labels read as option ids (one resolver, :mod:`foresci.tasks.options`)
    and repeated ranking entries dropped; nothing is invented, reordered or filled in, so it is scored as
    what the model said. ``problems`` lists what still breaks the contract; ``notes`` how labels were read.
    """

    answer: BaseModel
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TopChoice:
    """The ``top_choice`` metric of one answer: was the first pick right (value in [0, 1]), and details."""

    value: float
    details: dict[str, Any]


Builder = Callable[["DomainEvidence", "TaskSettings", str, int], "list[Built]"]


@dataclass
class ReleaseParts:
    """What a family adds to a release beside its tasks (:attr:`TaskFamily.release_parts`): forecast
    questions with their resolutions (after the cycle's questions in ``forecast.jsonl``), public files and
    hidden files (file name -> rows; a hidden file's name holds ``hidden``), and manifest counts."""

    questions: list[ForecastQuestion] = field(default_factory=list)
    resolutions: list[Resolution] = field(default_factory=list)
    public_files: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    hidden_files: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)


PartsBuilder = Callable[["Sequence[DomainEvidence]", "TaskSettings", int], ReleaseParts]


def _load(path: str, what: str, family: str) -> Any:
    module, _, name = path.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise FamilyDefinitionError(f"family {family!r}: cannot load its {what} {path!r}: {error}") from error


class TaskFamily:
    """One task family. Subclass it, set the attributes, override what differs, and register it.

    Required attributes: ``name``, ``abbreviation`` (task-id prefix), ``answer_schema`` (the pydantic
    model a method answers in), ``deliverables`` (requirements on the answer, shown in every task),
    ``metrics`` (names of the metrics that apply), ``hidden_target`` (``"module:Class"`` of its hidden
    target, a subclass of :class:`foresci.tasks.hidden.HiddenTarget` whose ``family`` is a Literal of the
    name). ``builder`` (``"module:function"``, signature of :data:`Builder`) builds its tasks from a
    window's evidence in ``tasks build``; without one the family is skipped there.
    """

    name: str
    abbreviation: str
    answer_schema: type[BaseModel]
    deliverables: tuple[str, ...]
    metrics: tuple[str, ...]
    hidden_target: str
    builder: str | None = None
    release_parts: str | None = None
    """``"module:function"`` (signature of :data:`PartsBuilder`: the release's window evidence, the task
    settings and the forecast questions asked of the release, 0 for none) adding :class:`ReleaseParts`
    to a release; None: the family adds only tasks."""
    horizons: tuple[str, ...] = tuple(HORIZON_MONTHS)
    """The windows whose evidence its builder reads: by default every forecast window (1m, 2m, 3m, 6m) a
    build asks for; the venue family reads the venue cycle whatever the forecast windows are."""
    forecast_kind: QuestionKind | None = None
    """The kind of the forecast questions it contributes to a release (None: none)."""
    ranked: bool = False
    """Answers rank every option: FTA is the ranking score, option ids are enumerated in ``ranking``."""
    contract: str = ""
    rubric: str = ""
    evidence_focus: str = ""
    """Texts for the prompts (answer contract, reviewer rubric, ARIS evidence focus); the shipped families'
    texts live in ``agents/families.yaml``, which overrides these."""

    # ---- hidden side (loaded on use: agents never import hidden code) ------------------------------

    def hidden_model(self) -> type[HiddenTarget]:
        """The family's hidden-target model."""
        from foresci.tasks.hidden import HiddenTarget

        model = _load(self.hidden_target, "hidden target", self.name)
        if not (isinstance(model, type) and issubclass(model, HiddenTarget)):
            raise FamilyDefinitionError(f"family {self.name!r}: hidden target {self.hidden_target!r} is not "
                                        "a subclass of foresci.tasks.hidden.HiddenTarget")
        if get_args(model.model_fields["family"].annotation) != (self.name,):
            raise FamilyDefinitionError(f"family {self.name!r}: hidden target {self.hidden_target!r} must "
                                        f"declare family: Literal[{self.name!r}] (the union's tag)")
        return model

    def build(self, evidence: DomainEvidence, settings: TaskSettings, domain_name: str,
              wanted: int) -> list[Built]:
        """Candidate tasks of this family from one domain's window evidence (none without a builder)."""
        if self.builder is None:
            return []
        function: Builder = _load(self.builder, "builder", self.name)
        return function(evidence, settings, domain_name, wanted)

    def parts(self, evidences: Sequence[DomainEvidence], settings: TaskSettings,
              forecast_questions: int) -> ReleaseParts:
        """What the family adds to a release beside its tasks (nothing without ``release_parts``)."""
        if self.release_parts is None:
            return ReleaseParts()
        function: PartsBuilder = _load(self.release_parts, "release parts", self.name)
        return function(evidences, settings, forecast_questions)

    # ---- public side -------------------------------------------------------------------------------

    def constrained_schema(self, options: Sequence[str]) -> type[BaseModel]:
        """The answer schema sent to a model, with the task's option ids as an ``enum`` where the answer
        names options (parsing stays lenient: the plain ``answer_schema`` reads replies)."""
        return self.answer_schema

    def template_text(self) -> str:
        """Words the family's question templates put in every task whatever the corpus says (the leakage
        lint allows them)."""
        return ""

    def check_contract(self, task: Task, answer: BaseModel) -> ContractCheck:
        """Read ``answer`` against the task contract: labels -> option ids, and what still breaks it."""
        return ContractCheck(answer)

    def render(self, task: Task, answer: BaseModel) -> str:
        """The final answer text (what judges read). Default: each non-empty field on a line."""
        lines = []
        for key, value in answer.model_dump(mode="json").items():
            if value in (None, "", [], {}):
                continue
            shown = "; ".join(str(item) for item in value) if isinstance(value, list) else str(value)
            lines.append(f"{key.replace('_', ' ').capitalize()}: {shown}")
        return "\n".join(lines)

    def top_choice(self, answer: AnswerLike, task: Task, hidden: HiddenTarget) -> TopChoice | None:
        """The ``top_choice`` metric: was the answer's first pick the hidden one? None: not applicable."""
        return None

    def baseline_answer(self, forecaster: Any, task: Task) -> tuple[BaseModel, Any]:
        """What the non-LLM forecasters (``foresci.agents.baselines.forecasters.Forecaster``) answer:
        (family answer, support artifact). A family without one is an error row, never another family's
        answer."""
        raise UserError(f"family {self.name!r} defines no baseline answer (TaskFamily.baseline_answer); "
                        f"the {getattr(forecaster, 'kind', 'non-LLM')} forecaster cannot answer its tasks",
                        field="family")

    def __repr__(self) -> str:
        return f"<TaskFamily {self.name}>"


_FAMILIES: Registry[TaskFamily] = Registry("task family", BUILTIN_FAMILIES,
                                           lambda family: type(family).__module__)
_REGISTRY = _FAMILIES.entries  # name -> family, in registration order
REQUIRED = ("name", "abbreviation", "answer_schema", "deliverables", "metrics", "hidden_target")
FamilyT = TypeVar("FamilyT", bound=TaskFamily | type[TaskFamily])


def register_family(family: FamilyT) -> FamilyT:
    """Register a family (a :class:`TaskFamily` subclass or instance); usable as a class decorator.

    A FamilyDefinitionError when a required attribute is missing, or the name or abbreviation is taken
    by another family.
    """
    instance = family() if isinstance(family, type) else family
    if not isinstance(instance, TaskFamily):
        raise FamilyDefinitionError(f"{family!r} is not a TaskFamily")
    missing = [attribute for attribute in REQUIRED if not hasattr(instance, attribute)]
    if missing:
        raise FamilyDefinitionError(f"family class {type(instance).__name__}: missing {missing}")
    problems = definition_problems(instance)
    if problems:
        raise FamilyDefinitionError(f"family {instance.name!r} ({type(instance).__module__}."
                                    f"{type(instance).__qualname__}): {'; '.join(problems)}")
    for other in _REGISTRY.values():
        if other.name == instance.name and type(other) is not type(instance):
            raise FamilyDefinitionError(f"family {instance.name!r} is already registered by "
                                        f"{type(other).__module__}.{type(other).__name__}")
        if other.abbreviation == instance.abbreviation and other.name != instance.name:
            raise FamilyDefinitionError(f"family {instance.name!r}: abbreviation {instance.abbreviation!r} "
                                        f"is taken by {other.name!r}")
    _FAMILIES.add(instance.name, instance)
    return family


_HORIZONS = KNOWN_HORIZONS
_TEXTS = ("contract", "rubric", "evidence_focus")


def _dotted(value: object) -> bool:
    module, colon, name = str(value).partition(":")
    return bool(colon) and all(part.isidentifier() for part in module.split(".")) and name.isidentifier()


def definition_problems(family: TaskFamily) -> list[str]:
    """What is wrong with a family's definition as a whole, read without importing its hidden code: the
    answer schema, deliverables, metrics, the ``module:name`` paths, horizons, forecast kind and the
    prompt texts (all three or none; a family without them is answered by the non-LLM methods only)."""
    problems: list[str] = []
    if not (isinstance(family.name, str) and family.name.isidentifier()):
        problems.append(f"name {family.name!r} is not an identifier")
    if not (isinstance(family.abbreviation, str) and family.abbreviation.isalnum()
            and family.abbreviation.islower()):
        problems.append(f"abbreviation {family.abbreviation!r} is not short lower-case letters or digits")
    if not (isinstance(family.answer_schema, type) and issubclass(family.answer_schema, BaseModel)):
        problems.append(f"answer_schema {family.answer_schema!r} is not a pydantic model class")
    for attribute in ("deliverables", "metrics"):
        value = getattr(family, attribute)
        if isinstance(value, str) or not value or not all(isinstance(item, str) and item for item in value):
            problems.append(f"{attribute} must be a non-empty sequence of non-empty strings, got {value!r}")
    for attribute in ("hidden_target", "builder", "release_parts"):
        value = getattr(family, attribute)
        if (value is not None or attribute == "hidden_target") and not _dotted(value):
            problems.append(f"{attribute} {value!r} is not 'module:name'")
    unknown = [horizon for horizon in family.horizons if horizon not in _HORIZONS]
    if unknown:
        problems.append(f"horizons {unknown} are not among {list(_HORIZONS)}")
    if family.forecast_kind not in (None, "numeric", "binary"):
        problems.append(f"forecast_kind {family.forecast_kind!r} is not None, 'numeric' or 'binary'")
    texts = {key: str(getattr(family, key, "") or "").strip() for key in _TEXTS}
    if any(texts.values()) and not all(texts.values()):
        problems.append(f"prompt texts: {[key for key, text in texts.items() if not text]} missing (give "
                        f"all of {list(_TEXTS)} or none)")
    return problems


def _ensure_loaded() -> None:
    _FAMILIES.load()


class _OrderedFamilies:
    """``_family_tuple()``: the families registered so far, shipped ones in BUILTIN_FAMILIES order, then
    the others in registration order; ``cache_clear()`` after editing ``_REGISTRY`` directly (tests)."""

    def __call__(self) -> tuple[TaskFamily, ...]:
        return _FAMILIES.ordered_now()

    def cache_clear(self) -> None:
        _FAMILIES.forget_order()


_family_tuple = _OrderedFamilies()


def all_families() -> tuple[TaskFamily, ...]:
    """Every registered family: the shipped five first, then extensions', in registration order."""
    _ensure_loaded()
    return _family_tuple()


def family_names() -> tuple[str, ...]:
    """The names of every registered family, in registration order."""
    return tuple(family.name for family in all_families())


def get_family(name: str) -> TaskFamily:
    """The registered family ``name``; an UnknownFamilyError naming the known ones otherwise."""
    _ensure_loaded()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(family.name for family in _family_tuple())
        raise UnknownFamilyError(f"unknown task family {name!r}; known families: {known}",
                                 field="family") from None


def family_schema(name: str) -> type[BaseModel]:
    """The answer schema of family ``name`` (UnknownFamilyError for an unknown one)."""
    return get_family(name).answer_schema
