"""The method API: what an answering method receives and returns, and the ``@method`` registry.

A method is registered by name with two flags that drive everything the runner and CLI do with it:
``needs_kb`` (it reads the knowledge base: it gets KB tools bound to the task cutoff, and ``--kb`` is
required) and ``uses_llm`` (it calls a backbone: it runs once per ``--model``, gets the chat-model client,
has a name-only mode, and needs an endpoint). Methods are held in a
:class:`~foresci.core.registry.Registry` like task families and metrics: the shipped method modules are
stated once, in their order, in :data:`SHIPPED_METHODS` (a new shipped method is its module there and its
prompt file ``agents/<name>.yaml``), and ``@method`` adds to it. Third-party methods load by entry point
(group ``foresci.methods``), ``module:obj``, path or URL (:mod:`foresci.methods.loading`); they are not
imported in foresci's process but described and run in a sandboxed worker, which registers them in its own
process with the same ``@method``/:func:`register`.

    from foresci.methods import method

    @method("first_option", needs_kb=True)
    def first_option(inputs):
        papers = inputs.tools.search(inputs.task.title)
        ...
        return {"direction": inputs.task.candidates[0].option_id, "trajectory": "steady", "rationale": "..."}

A method answers one public :class:`~foresci.tasks.models.Task` with its family answer (a model or a dict
in the family schema of :mod:`foresci.contracts`), optionally with a :class:`MethodResult` carrying its
own support artifact. An optional forecast hook answers numeric/binary forecast questions.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from foresci.contracts import ContractStatus, ForecastAnswer, SupportArtifact
from foresci.core.registry import Registry

if TYPE_CHECKING:
    from foresci.core.settings import Settings
    from foresci.kb.models import Paper
    from foresci.llm import LLMClient
    from foresci.tasks.models import ForecastQuestion, Task

Mode = Literal["full", "name_only"]
AnswerLike = BaseModel | dict[str, Any]


class CutoffTools(Protocol):
    """The KB tools a method gets: every result is on or before the task cutoff; calls are logged into the
    answer's support artifact and counted against ``settings.agents.tool_budget``."""

    def search(self, query: str, k: int | None = None) -> list[Paper]: ...

    def get_paper(self, paper_id: str) -> Paper | None: ...

    def related_papers(self, paper_id: str, k: int | None = None) -> list[Paper]: ...

    def timeline(self, query: str, k: int = 60) -> dict[str, Any]: ...


@dataclass(frozen=True)
class MethodInput:
    """Everything a method may use to answer one task (and nothing else)."""

    task: Task
    mode: Mode
    tools: CutoffTools | None = field(
        default=None, metadata={"doc": "KB tools at the task cutoff; None unless needs_kb and mode full"}
    )
    llm: LLMClient | None = field(
        default=None, metadata={"doc": "chat-model client of the --model backbone; None unless uses_llm"}
    )
    settings: Settings | None = None
    model: str | None = None


@dataclass(frozen=True)
class ForecastInput:
    """What a forecast hook may use for one question (tools bound to the question's cutoff)."""

    tools: CutoffTools | None = None
    llm: LLMClient | None = None
    settings: Settings | None = None
    model: str | None = None


@dataclass
class MethodResult:
    """A method's answer with what it rests on. ``contract`` None: the runner checks the task contract."""

    answer: AnswerLike
    support: SupportArtifact | None = None
    contract: ContractStatus | None = None
    contract_notes: list[str] = field(default_factory=list)


AnswerFn = Callable[[MethodInput], "MethodResult | AnswerLike"]
ForecastFn = Callable[["ForecastQuestion", ForecastInput], "ForecastAnswer | dict[str, Any]"]


@runtime_checkable
class Method(Protocol):
    """What the runner calls. ``forecast`` is None for a method that answers no forecast questions."""

    name: str
    needs_kb: bool
    uses_llm: bool
    forecast: ForecastFn | None

    def answer(self, inputs: MethodInput) -> MethodResult | AnswerLike: ...


@dataclass
class MethodSpec:
    """A registered method: its name, flags, answer function and optional forecast hook.

    ``shipped`` methods come with foresci and are trusted with the full KB tools. ``isolated`` methods
    answer in a process of their own (a sandboxed plug-in, :mod:`foresci.methods.sandbox`, or an HTTP
    agent): the spec's functions are foresci's side of it and are given the full KB tools, which they
    serve over the tool channel. Every other method runs in foresci's process behind the plug-in wall
    (:mod:`foresci.methods.wall`; ``--trust-plugin``). ``prompts`` declares the templates of a shipped
    method's prompt file ``agents/<name>.yaml`` and the variables the code passes to each (checked when the
    prompts load). A shipped method's place in listings and runs is its module's in :data:`SHIPPED_METHODS`.
    """

    name: str
    answer: AnswerFn
    needs_kb: bool = False
    uses_llm: bool = False
    forecast: ForecastFn | None = None
    shipped: bool = False
    source: str = ""
    isolated: bool = False
    prompts: Mapping[str, frozenset[str]] = field(default_factory=dict)
    version: str = ""
    families: frozenset[str] | None = None
    answers: Callable[[str], bool] | None = None
    """Which task families it answers, asked of the family's name (None: every family; with
    ``families``, both must hold)."""

    def asks(self, family: str) -> bool:
        """Whether a run asks this method a task (or question) of ``family``."""
        return ((self.families is None or family in self.families)
                and (self.answers is None or self.answers(family)))

    def forecaster(self, function: ForecastFn) -> ForecastFn:
        """Decorator: register ``function(question, inputs)`` as this method's forecast hook."""
        self.forecast = function
        return function

    def backbones(self, models: list[str], mode: str) -> list[str | None]:
        """The models this method runs with: each of ``models`` when it uses an LLM; otherwise once (None),
        and only in full mode (a method without an LLM has no name-only mode)."""
        if self.uses_llm:
            return list(models)
        return [None] if mode == "full" else []


SHIPPED_PACKAGE = "foresci.methods.shipped"

SHIPPED_METHODS = ("native", "hybrid_rag", "coi", "research_agent", "aris", "react", "baselines", "emergence")
"""The shipped method modules of :data:`SHIPPED_PACKAGE`, in the order of listings and runs (within a
module, its methods' registration order): stated here once."""


def _module_of(spec: MethodSpec) -> str:
    return spec.source.partition(":")[0]


METHODS: Registry[MethodSpec] = Registry(
    "method", tuple(f"{SHIPPED_PACKAGE}.{name}" for name in SHIPPED_METHODS), _module_of)
"""Every registered method by name: the shipped ones, then those registered since (plug-ins proxied by
foresci, HTTP agents, extensions'; inside a sandbox worker, the plug-in itself)."""
_REGISTRY = METHODS.entries  # name -> method, in registration order
_LOCK = threading.Lock()


def _is_shipped(module: str) -> bool:
    return module == "foresci" or module.startswith("foresci.")


def as_spec(target: Any, name: str | None = None, needs_kb: bool = False, uses_llm: bool = False,
            source: str = "", version: str = "") -> MethodSpec:
    """A :class:`MethodSpec` from a spec, a :class:`Method`-like object, a class with ``answer`` (made
    with no arguments) or an answer function."""
    if isinstance(target, MethodSpec):
        return target
    if isinstance(target, type):
        target = target()
    answer = getattr(target, "answer", None)
    if callable(answer):
        return MethodSpec(
            name=name or str(getattr(target, "name", "") or type(target).__name__),
            answer=answer,
            needs_kb=bool(getattr(target, "needs_kb", needs_kb)),
            uses_llm=bool(getattr(target, "uses_llm", uses_llm)),
            forecast=getattr(target, "forecast", None),
            shipped=_is_shipped(type(target).__module__),
            source=source or f"{type(target).__module__}:{type(target).__qualname__}",
            version=str(getattr(target, "version", "") or version),
        )
    if callable(target):
        module = getattr(target, "__module__", "") or ""
        return MethodSpec(
            name=name or str(getattr(target, "__name__", "method")),
            answer=target,
            needs_kb=needs_kb,
            uses_llm=uses_llm,
            shipped=_is_shipped(module),
            source=source or f"{module}:{getattr(target, '__qualname__', '')}",
            version=version,
        )
    raise TypeError(f"{target!r} is not a method: give a function of MethodInput, a class or object with "
                    "an answer(inputs) method, or a @method-decorated one")


def register(spec: MethodSpec) -> MethodSpec:
    """Add ``spec`` to the registry; a name already taken by another method is an error."""
    with _LOCK:
        taken = METHODS.entries.get(spec.name)
        if taken is not None and taken.source != spec.source:
            raise ValueError(f"method name {spec.name!r} is already registered by {taken.source}")
        METHODS.add(spec.name, spec)
    return spec


def lookup(name: str) -> MethodSpec | None:
    """The method registered as ``name`` so far (the shipped ones are not loaded for this), or None."""
    with _LOCK:
        return METHODS.entries.get(name)


def method(name: str, *, needs_kb: bool = False, uses_llm: bool = False,
           prompts: Mapping[str, set[str] | frozenset[str]] | None = None, version: str = "",
           families: Iterable[str] | None = None,
           answers: Callable[[str], bool] | None = None) -> Callable[[Any], MethodSpec]:
    """Decorator registering an answer function (or a class with ``answer`` and optional ``forecast``)
    as method ``name``; returns the :class:`MethodSpec` (use ``@spec.forecaster`` to add a forecast hook).
    ``prompts`` (template key -> variables) is for shipped methods (:class:`MethodSpec`).
    ``version`` names this version of the method on its rows (default: a hash of its source file).
    ``families`` limits the method to those task families (default: every family); a run asks it nothing
    else, so a family it cannot answer is left out, not an error row. ``answers``: the same, decided by
    a predicate on the family name when the run asks (for a rule that answers families by what they
    declare, extensions included)."""

    def decorate(target: Any) -> MethodSpec:
        spec = as_spec(target, name=name, needs_kb=needs_kb, uses_llm=uses_llm, version=version)
        spec.prompts = {key: frozenset(variables) for key, variables in (prompts or {}).items()}
        spec.families = frozenset(families) if families is not None else None
        spec.answers = answers
        return register(spec)

    return decorate


def registered() -> dict[str, MethodSpec]:
    """Every registered method by name: the shipped ones first, in :data:`SHIPPED_METHODS` order, then the
    others in registration order (loads the shipped modules and the extensions once)."""
    METHODS.load()
    with _LOCK:
        ordered = METHODS.ordered_now()
    return {spec.name: spec for spec in ordered}


def method_version(spec: MethodSpec) -> str:
    """The version recorded on ``spec``'s rows: its own (a plug-in's or agent's, set when it is loaded),
    else for a shipped method foresci's version and its prompts (:mod:`foresci.methods.identity`)."""
    if spec.version:
        return spec.version
    from foresci.methods.identity import shipped_version

    return shipped_version() if spec.shipped else ""


def shipped_methods(uses_llm: bool | None = None) -> list[str]:
    """Names of the methods that come with foresci, optionally only those that do (not) use an LLM."""
    return [name for name, spec in registered().items()
            if spec.shipped and (uses_llm is None or spec.uses_llm == uses_llm)]
