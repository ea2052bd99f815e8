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
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, get_args

from pydantic import BaseModel

from foresci.core.errors import UserError
from foresci.tasks.families.lookup import BUILTIN_FAMILIES as BUILTIN_FAMILIES  # the one ordered list
from foresci.tasks.families.lookup import FAMILIES, find_family
from foresci.tasks.families.lookup import UnknownFamilyError as UnknownFamilyError
from foresci.tasks.windows import HORIZON_MONTHS, KNOWN_HORIZONS

if TYPE_CHECKING:
    from foresci.tasks.builders.common import Built
    from foresci.tasks.config import TaskSettings
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.families.questions import QuestionAsk, QuestionDraft
    from foresci.tasks.hidden import HiddenTarget, Resolution, Slot
    from foresci.tasks.models import ForecastQuestion, QuestionKind, Task
    from foresci.tasks.text_index import TextIndex

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
    """The kind of the forecast questions it contributes to a release (None: none); the kind of its first
    rule in ``forecast_rules``."""
    forecast_rules: tuple[tuple[str, QuestionKind], ...] = ()
    """The forecast-question rules it writes, (rule name, question kind), each written by
    :meth:`forecast_question` and resolved by :meth:`resolve_forecast`. With ``forecast_kind`` set, the
    first is the rule a release's family cycle asks, and every rule joins a round's question supply."""
    routed_questions: bool = True
    """Its questions are resolved node by node with the frozen taxonomy (:meth:`resolve_forecast`);
    False: all at once by :meth:`resolve_unrouted` (questions about things other than a node)."""
    agent_signals: str = "none"
    """The measured signals agents read beside its tasks, by name (:data:`SIGNAL_KINDS`; the agents side
    measures them): ``candidate_trends`` (each option's share trend), ``venue_profile`` (where related
    work was accepted), ``limitations`` (recurring limitation statements) or ``none``."""
    baseline_strategy: str | None = None
    """How the non-LLM forecasters (trend, persistence) answer its tasks, by name: a strategy registered
    on the agents side (:mod:`foresci.agents.baselines.strategies`, where an extension may register its
    own). None: no baseline answer (an error row, never another family's answer)."""
    round_tasks: str | None = None
    """Module of its round hooks (tasks frozen prospectively in a round; None: it freezes none there):
    ``freeze(evidence, settings, wanted, rng, identify) -> [(public task, record)]`` from pre-cutoff
    facts only (``identify(decision)``: the round's task id of an option set), ``resolve(task, record,
    evidence, settings) -> foresci.tasks.families.round_outcome.Resolved`` on the window's evidence, and
    optionally ``finish(task, record) -> task`` (after the leakage lint) and ``top_choice(answer, task,
    hidden)`` (a round's top-1, else :meth:`top_choice`)."""
    round_items: str | None = None
    """Module of its own round items (None: none), for a family whose round items do not freeze one option
    set per domain evidence (the concept-pair family: ``ce-`` tasks and ``ceq-`` questions from its own
    snapshots): ``open_items(reader, domains, seed, config) -> items | None`` at a round's open
    (``reader``: the round's pre-cutoff reader; ``domains``: those the round froze snapshots of;
    ``config``: the ledger's), where ``items.round_tasks(windows, per_window) -> [Frozen]``,
    ``items.round_questions(window, wanted, supply) -> [ForecastQuestion]`` (``supply``: the rounds
    settings) and ``items.reader``; and ``resolve_items(frozen, window, kb) -> [resolution row]`` once a
    window closed (:mod:`foresci.tasks.families.round_outcome`)."""
    round_default: int | None = None
    """Its place among a new ledger's default ``families`` (``rounds init`` naming none; lower first: the
    order a round freezes the families' tasks in); None: it joins a round only when a ledger names it."""
    question_label: str = ""
    """What its forecast questions ask, as the rounds site's question table says it (empty: its name)."""
    choice_key: str | None = None
    """The answer field naming its one chosen option (a single-choice family; None: answers rank the
    options): what a round reads as the answer's pick (:meth:`read_choice`)."""
    counts_rule_answers: bool = False
    """Whether a rule reading the per-option paper counts its public context states (the ``recency``
    method) may answer its tasks (:meth:`counts_rule_answer` then writes the answer); a run asks such a
    rule nothing of the other families."""
    headline: bool = True
    """Whether the benchmark's headline claim (reading the literature beats rules that read the task) is made
    for it; False for a persistence family, whose answer is mostly where the work already is."""
    signal_benchmark: bool = False
    """Whether the synthetic-world signal benchmark (:mod:`foresci.app.signal`) checks the foresight signal
    on its tasks (trend's top-1 above persistence and chance where trends are visible before the cutoff,
    chance inside trend's interval where they are not); the first registered family setting it is the one
    read. Its hidden targets name their option nodes (``stats.node_ids``) for the purity count."""
    ranked: bool = False
    """Answers rank every option: FTA is the ranking score, option ids are enumerated in ``ranking``."""
    prompts: str = "prompts.yaml"
    """Its prompt texts' file (``contract``, ``rubric``, ``evidence_focus``: plain text, no variables), a
    path relative to the folder of the module defining the family (:meth:`prompts_path`); the LLM methods
    read it. When it is absent the family's own attributes below are its texts."""
    text_checks: bool = False
    """Its :meth:`release_findings` read the domain's pre-cutoff text: an audit without it (``tasks audit``
    without ``--kb``) says the premises were not checked."""
    contract: str = ""
    rubric: str = ""
    evidence_focus: str = ""
    """Texts for the prompts (answer contract, reviewer rubric, ARIS evidence focus) when the family has no
    :attr:`prompts` file; the shipped families keep theirs in ``prompts.yaml`` in their folders."""

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

    def _hook_module(self, module_name: str | None, what: str, wanted: tuple[str, ...]) -> Any:
        """The module ``module_name`` holding ``wanted`` callables (``what`` names it in errors); a
        FamilyDefinitionError when the family names none, it cannot be imported or it lacks one."""
        if module_name is None:
            raise FamilyDefinitionError(f"family {self.name!r} has no {what}")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise FamilyDefinitionError(f"family {self.name!r}: cannot load its {what} "
                                        f"{module_name!r}: {error}") from error
        missing = [name for name in wanted if not callable(getattr(module, name, None))]
        if missing:
            raise FamilyDefinitionError(f"family {self.name!r}: {what} {module_name!r} define no "
                                        f"{' or '.join(missing)}")
        return module

    def round_hooks(self) -> Any:
        """The module of its round hooks (``round_tasks``); a FamilyDefinitionError when it lacks one."""
        if self.round_tasks is None:
            raise FamilyDefinitionError(f"family {self.name!r} freezes no round tasks (round_tasks is None)")
        return self._hook_module(self.round_tasks, "round hooks", ("freeze", "resolve"))

    def round_items_hooks(self) -> Any:
        """The module of its own round items (``round_items``); a FamilyDefinitionError when it lacks one."""
        if self.round_items is None:
            raise FamilyDefinitionError(f"family {self.name!r} has no round items (round_items is None)")
        return self._hook_module(self.round_items, "round items", ("open_items", "resolve_items"))

    def round_horizons(self, windows: Sequence[str]) -> list[str]:
        """The windows its round tasks ask about: its fixed cycle (``venue_cycle``) if it reads one, else
        the ledger's ``windows``."""
        cycles = [horizon for horizon in self.horizons if horizon == "venue_cycle"]
        return cycles or list(windows)

    def read_choice(self, task: Task, payload: dict[str, Any], text: str) -> str | None:
        """The option id a single-choice answer (``choice_key`` set) picks; None: none readable. A
        single-choice family overrides it (:func:`foresci.tasks.families.parts.read_choice` reads the
        field as an option, else the first option the text ranks)."""
        return None

    def derived_slots(self, task: Task, hidden: HiddenTarget) -> list[Slot]:
        """The FTA slots derived from the hidden target's fields when it carries none of its own
        (``hidden.slots``); none by default (FTA then does not apply)."""
        return []

    # ---- release checks (``tasks build`` screens candidates, ``tasks audit`` reports a release) ------

    def release_findings(self, task: Task, index: TextIndex | None) -> list[tuple[str, str]]:
        """(check, detail) for each release check (:mod:`foresci.tasks.release_checks`) its public task
        fails by the family's own reading of its options (``index``: the domain's pre-cutoff text, None
        when not read); none by default. The checks on the hidden target (trajectory, thin target, label
        fit, node wins) apply to every family."""
        return []

    def release_screen(self, task: Task, hidden: HiddenTarget, domain: DomainEvidence) -> None:
        """Record on a candidate's target, at build time, what its release checks read later (the shipped
        node-option families record how each option's name fits its node); nothing by default."""

    def winner_counts(self, task: Task, hidden: HiddenTarget) -> tuple[int, int] | None:
        """Window papers of the keyed winner and the runner-up (the ``thin_target`` check); default: the
        first two options of the target's ``ranking`` in its ``stats.options`` (None when it records none)."""
        from foresci.tasks.release_checks import option_counts

        return option_counts(hidden, list(getattr(hidden, "ranking", []) or []))

    def lead_finding(self, task: Task, hidden: HiddenTarget, counts: tuple[int, int],
                     settings: TaskSettings) -> str | None:
        """Why the winner's lead over the runner-up (``counts``: :meth:`winner_counts`, the winner past
        ``min_window_papers``) is too thin to key (a ``thin_target`` detail); None: no lead gate (default)."""
        return None

    def defect_figures(self, tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, Any]:
        """The family's own figures of a release audit (:func:`foresci.tasks.release_defects.release_defects`,
        ``tasks``: the release's tasks of this family), merged into the audit's figures; none by default."""
        return {}

    def defect_lines(self, figures: Mapping[str, Any]) -> list[str]:
        """Plain lines of its :meth:`defect_figures` (read from the audit's merged ``figures``)."""
        return []

    # ---- forecast questions (pre-cutoff facts in, a question out; resolved once the window closed) --

    def forecast_question(self, rule: str, ask: QuestionAsk) -> QuestionDraft | None:
        """The question ``rule`` (one of ``forecast_rules``) writes about ``ask``'s node, from pre-cutoff
        facts only; None: the rule asks nothing of this node. Default: no question."""
        return None

    def resolve_forecast(self, rule: str, question: ForecastQuestion, item: NodeEvidence,
                         evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
        """The outcome of a question of ``rule`` from the window's evidence (``item``: its node routed
        with the frozen snapshot), and details to record beside it."""
        raise UserError(f"family {self.name!r} has no resolution rule {rule!r}", field="params.rule")

    def resolve_unrouted(self, questions: Sequence[ForecastQuestion], kb: Any,
                         fingerprint: str) -> list[Resolution]:
        """The outcomes of its questions when ``routed_questions`` is False, in the questions' order."""
        raise UserError(f"family {self.name!r} sets routed_questions = False but defines no "
                        "resolve_unrouted", field="routed_questions")

    def counts_rule_answer(self, task: Task, ranked: Sequence[str],
                           counts: Mapping[str, tuple[int, int]]) -> BaseModel:
        """The answer of a rule that ranked the options by the counts the task states (``ranked``: best
        first; ``counts``: option -> (pre-cutoff papers, recent papers)); for ``counts_rule_answers``."""
        raise UserError(f"family {self.name!r} gives no answer of a rule reading its public counts "
                        "(TaskFamily.counts_rule_answer)", field="family")

    def signal_answer(self, task: Task, who: str) -> tuple[BaseModel, Any] | None:
        """An answer read from the signals the task itself shows (``who``: the answering forecaster's
        kind), for the ``task_signals`` baseline strategy; None: the task shows none to answer from."""
        return None

    def prompts_path(self) -> Path:
        """Where its prompt texts' file is: :attr:`prompts` beside the module that defines the family."""
        module = sys.modules.get(type(self).__module__)
        folder = Path(getattr(module, "__file__", None) or ".").resolve().parent
        return folder / self.prompts

    def __repr__(self) -> str:
        return f"<TaskFamily {self.name}>"


_FAMILIES = FAMILIES
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
SIGNAL_KINDS = ("none", "candidate_trends", "venue_profile", "limitations")
"""The signal blocks the agents side measures (:attr:`TaskFamily.agent_signals`)."""
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
    for attribute in ("round_tasks", "round_items"):
        value = getattr(family, attribute)
        if value is not None and not all(part.isidentifier() for part in str(value).split(".")):
            problems.append(f"{attribute} {value!r} is not a module path")
    if family.round_default is not None and (isinstance(family.round_default, bool)
                                             or not isinstance(family.round_default, int)):
        problems.append(f"round_default {family.round_default!r} is not None or an integer")
    if not isinstance(family.question_label, str):
        problems.append(f"question_label {family.question_label!r} is not a string")
    for attribute in ("hidden_target", "builder", "release_parts"):
        value = getattr(family, attribute)
        if (value is not None or attribute == "hidden_target") and not _dotted(value):
            problems.append(f"{attribute} {value!r} is not 'module:name'")
    unknown = [horizon for horizon in family.horizons if horizon not in _HORIZONS]
    if unknown:
        problems.append(f"horizons {unknown} are not among {list(_HORIZONS)}")
    if family.forecast_kind not in (None, "numeric", "binary"):
        problems.append(f"forecast_kind {family.forecast_kind!r} is not None, 'numeric' or 'binary'")
    problems.extend(_forecast_problems(family))
    if family.agent_signals not in SIGNAL_KINDS:
        problems.append(f"agent_signals {family.agent_signals!r} is not among {list(SIGNAL_KINDS)}")
    if family.choice_key and type(family).read_choice is TaskFamily.read_choice:
        problems.append("choice_key needs a read_choice (TaskFamily.read_choice)")
    if family.counts_rule_answers and type(family).counts_rule_answer is TaskFamily.counts_rule_answer:
        problems.append("counts_rule_answers needs a counts_rule_answer (TaskFamily.counts_rule_answer)")
    if family.baseline_strategy is not None and not (isinstance(family.baseline_strategy, str)
                                                     and family.baseline_strategy.isidentifier()):
        problems.append(f"baseline_strategy {family.baseline_strategy!r} is not None or a strategy name")
    if not isinstance(family.prompts, str) or not family.prompts.strip():
        problems.append(f"prompts {family.prompts!r} is not a file name")
    texts = {key: str(getattr(family, key, "") or "").strip() for key in _TEXTS}
    if any(texts.values()) and not all(texts.values()):
        problems.append(f"prompt texts: {[key for key, text in texts.items() if not text]} missing (give "
                        f"all of {list(_TEXTS)} or none)")
    return problems


def _forecast_problems(family: TaskFamily) -> list[str]:
    """What breaks the forecast-question hooks: rules that are not (name, kind) pairs, a ``forecast_kind``
    without rules (or unlike its first rule's), rules without a ``forecast_question`` to write them."""
    rules = family.forecast_rules
    if not all(isinstance(rule, tuple) and len(rule) == 2 and str(rule[0]).isidentifier()
               and rule[1] in ("numeric", "binary") for rule in rules):
        return [f"forecast_rules {rules!r} must be (rule name, 'numeric' or 'binary') pairs"]
    problems = []
    if family.forecast_kind is not None and (not rules or rules[0][1] != family.forecast_kind):
        problems.append(f"forecast_kind {family.forecast_kind!r} needs forecast_rules whose first rule is "
                        f"of that kind (it writes the release's questions), got {list(rules)}")
    if rules and type(family).forecast_question is TaskFamily.forecast_question and family.routed_questions:
        problems.append(f"forecast_rules {[name for name, _ in rules]} need a forecast_question to write "
                        "them (TaskFamily.forecast_question)")
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
    family: TaskFamily = find_family(name)
    return family


def family_schema(name: str) -> type[BaseModel]:
    """The answer schema of family ``name`` (UnknownFamilyError for an unknown one)."""
    return get_family(name).answer_schema
