"""A small release and run written from scratch for evaluation tests (no shared data, no other component)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from foresci.contracts import Answer, Evidence, ForecastAnswer, RetrievedItem, SupportArtifact
from foresci.core.io import write_json, write_jsonl
from foresci.tasks.hidden import Claim, HiddenTarget, Resolution, make_hidden_target
from foresci.tasks.models import Candidate, ForecastQuestion, Task

CUTOFF = date(2025, 6, 30)
WINDOW = {
    "cutoff": CUTOFF,
    "window_start": date(2025, 7, 1),
    "window_end": date(2025, 12, 31),
    "horizon": "6m",
}


def _task(task_id: str, family: str, candidates: list[Candidate]) -> Task:
    return Task(
        task_id=task_id,
        family=family,
        domain="llm_agents",
        title=f"{family} task {task_id}",
        question=f"Which option should a team pick? ({task_id})",
        candidates=candidates,
        **WINDOW,
    )


DIRECTIONS = [
    Candidate(option_id="A", name="memory-augmented agents", description="agents with long-term memory"),
    Candidate(option_id="B", name="tool-use benchmarks", description="evaluation of tool calling"),
    Candidate(option_id="C", name="multi-agent debate", description="several agents argue"),
]
VENUES = [
    Candidate(option_id="acl", name="ACL/EMNLP/NAACL"),
    Candidate(option_id="ml", name="ICLR/ICML/NeurIPS"),
    Candidate(option_id="cv", name="CVPR/ICCV/ECCV"),
]


def release_rows() -> tuple[list[Task], list[HiddenTarget], list[ForecastQuestion], list[Resolution]]:
    """Four tasks (one per family), their hidden targets, and two forecast questions with outcomes."""
    tasks = [
        _task("D1", "direction_forecasting", DIRECTIONS),
        _task("B1", "bottleneck_opportunity", []),
        _task("P1", "strategic_planning", DIRECTIONS),
        _task("V1", "venue_positioning", VENUES),
    ]
    claims = [
        Claim(claim_id="g1", text="Memory-augmented agents gain momentum in the window."),
        Claim(claim_id="g2", text="Retrieval of past episodes is the key mechanism."),
    ]
    hidden = [
        make_hidden_target(
            task_id="D1",
            family="direction_forecasting",
            primary_direction="A",
            acceptable_directions=["B"],
            trajectory="accelerating",
            claims=claims,
        ),
        make_hidden_target(
            task_id="B1",
            family="bottleneck_opportunity",
            bottleneck=["Long-horizon credit assignment is unreliable.", "Agents cannot assign credit."],
            opportunity=["Self-improving agents that learn from their own trajectories."],
            mechanism="Better credit assignment enables learning from long trajectories.",
            claims=[Claim(claim_id="b1", text="Credit assignment over long horizons is the bottleneck.")],
        ),
        make_hidden_target(task_id="P1", family="strategic_planning", ranking=["A", "B", "C"],
                           claims=claims[:1]),
        make_hidden_target(
            task_id="V1",
            family="venue_positioning",
            ranking=["acl", "ml", "cv"],
            claims=[Claim(claim_id="v1", text="The work fits ACL/EMNLP first.")],
        ),
    ]
    questions = [
        ForecastQuestion(
            question_id="Q1",
            kind="numeric",
            domain="llm_agents",
            text="How many papers?",
            resolution_rule="count",
            baseline=50.0,
            **{k: v for k, v in WINDOW.items() if k != "horizon"},
        ),
        ForecastQuestion(
            question_id="Q2",
            kind="binary",
            domain="llm_agents",
            text="Will it grow?",
            resolution_rule="share",
            baseline=0.5,
            **{k: v for k, v in WINDOW.items() if k != "horizon"},
        ),
    ]
    resolutions = [
        Resolution(question_id="Q1", outcome=80.0, resolved_with="test"),
        Resolution(question_id="Q2", outcome=1.0, resolved_with="test"),
    ]
    return tasks, hidden, questions, resolutions


P1, P9 = "2505.00001", "2508.00009"  # the fixture's cited papers: P1 before the cutoff, P9 after it
_KB: list[Path] = []


def fixture_kb() -> Path:
    """A real KB holding :data:`P1` (2025-05-01) and :data:`P9` (2025-08-01), built once per process in a
    temporary folder removed at exit: citations are checked against a KB, never against a method's own
    list of what it retrieved (issue 39.7), so the fixture's runs record this one."""
    if not _KB:
        import atexit
        import json
        import shutil
        import tempfile

        from foresci.core.settings import Settings
        from foresci.kb.build import build_kb

        root = Path(tempfile.mkdtemp(prefix="foresci-eval-kb-"))
        atexit.register(shutil.rmtree, root, True)
        corpus = root / "corpus"
        corpus.mkdir()
        for day, ids in (("2025-05-01", [P1, "2505.00002"]), ("2025-08-01", [P9])):
            rows = [{"id": pid, "title": f"Memory for agents {pid}", "summary": "Agents with memory.",
                     "authors": ["A. Author"], "categories": ["cs.AI"], "comment": None, "pdf": "", "abs": ""}
                    for pid in ids]
            (corpus / f"{day}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
        build_kb([corpus], root / "kb", Settings(cache_dir=root / "cache"))
        _KB.append(root / "kb")
    return _KB[0]


def support(cited: list[str]) -> SupportArtifact:
    """A support artifact with two retrieved papers (one after the cutoff) and one evidence entry."""
    return SupportArtifact(
        queries=["memory agents"],
        retrieved=[
            RetrievedItem(paper_id=P1, title="Memory for agents", announced=date(2025, 5, 1)),
            RetrievedItem(paper_id=P9, title="Late paper", announced=date(2025, 8, 1)),
        ],
        evidence=[Evidence(claim="Memory-augmented agents gain momentum.", paper_ids=cited)],
    )


def answers() -> list[Answer]:
    """Answers of three methods, a name-only mode, an error row and two forecast answers."""
    direction_text = (
        "Memory-augmented agents gain momentum in the window. The trajectory is accelerating. "
        "Retrieval of past episodes is the key mechanism."
    )
    rows: list[dict[str, Any]] = [
        dict(
            task_id="D1",
            family="direction_forecasting",
            method="aris",
            model="m1",
            text=direction_text,
            payload={"direction": "A", "trajectory": "accelerating", "rationale": "r"},
            support=support([P1]),
        ),
        dict(
            task_id="D1",
            family="direction_forecasting",
            method="native",
            model="m1",
            text="Multi-agent debate will grow. It is steady.",
            contamination_risk=True,
            payload={"direction": "C", "trajectory": "steady"},
        ),
        dict(
            task_id="D1",
            family="direction_forecasting",
            method="persistence",
            model=None,
            text="Tool-use benchmarks have the most papers before the cutoff.",
            payload={"direction": "B"},
        ),
        dict(
            task_id="D1",
            family="direction_forecasting",
            method="aris",
            model="m1",
            mode="name_only",
            text="Multi-agent debate will grow quickly.",
            payload={"direction": "C"},
        ),
        dict(
            task_id="B1",
            family="bottleneck_opportunity",
            method="aris",
            model="m1",
            text="Long-horizon credit assignment is unreliable. Fixing it enables self-improving agents.",
            support=support([P1, P9, "zz"]),
        ),
        dict(
            task_id="B1",
            family="bottleneck_opportunity",
            method="native",
            model="m1",
            status="error",
            error="timeout",
            text="",
        ),
        dict(
            task_id="P1",
            family="strategic_planning",
            method="aris",
            model="m1",
            text="1. A\n2. C\n3. B",
            payload={"ranking": [{"option_id": "A"}, {"option_id": "C"}, {"option_id": "B"}]},
            support=support([P1]),
        ),
        dict(
            task_id="P1",
            family="strategic_planning",
            method="native",
            model="m1",
            text="Ranking:\n1. Multi-agent debate first\n2. memory-augmented agents next\n"
            "3. tool-use benchmarks",
        ),
        dict(
            task_id="P1",
            family="strategic_planning",
            method="persistence",
            model=None,
            text="",
            payload={"ranking": ["B", "A", "C"]},
        ),
        dict(
            task_id="V1",
            family="venue_positioning",
            method="aris",
            model="m1",
            text="ACL/EMNLP/NAACL first.",
            payload={"ranking": [{"option_id": "acl"}, {"option_id": "ml"}]},
            support=support([P1]),
        ),
        dict(
            task_id="Q1",
            family="forecast",
            method="aris",
            model="m1",
            payload=ForecastAnswer(question_id="Q1", p10=30, p50=60, p90=120).model_dump(),
        ),
        dict(
            task_id="Q2",
            family="forecast",
            method="aris",
            model="m1",
            payload=ForecastAnswer(question_id="Q2", probability=0.8).model_dump(),
        ),
    ]
    return [Answer.model_validate(row) for row in rows]


def direction_answer(method: str, text: str, support: SupportArtifact | None = None) -> Answer:
    """An answer of ``method`` (backbone m1) to the direction task D1 choosing A, with ``text``."""
    payload = {"direction": "A", "trajectory": "accelerating", "rationale": "r"}
    return Answer(
        task_id="D1",
        family="direction_forecasting",
        method=method,
        model="m1",
        text=text,
        payload=payload,
        support=support,
    )


def write_release(folder: Path) -> Path:
    """Write tasks.jsonl, hidden.jsonl, forecast.jsonl and forecast_hidden.jsonl."""
    tasks, hidden, questions, resolutions = release_rows()
    write_jsonl(folder / "tasks.jsonl", tasks)
    write_jsonl(folder / "hidden.jsonl", hidden)
    write_jsonl(folder / "forecast.jsonl", questions)
    write_jsonl(folder / "forecast_hidden.jsonl", resolutions)
    return folder


def write_run(folder: Path, release: Path, rows: list[Answer] | None = None) -> Path:
    """Write answers.jsonl (Q2's forecast goes to forecasts.jsonl, as the agents write it) and a manifest
    naming the release and :func:`fixture_kb`."""
    if rows is None:
        rows = [row for row in answers() if row.task_id != "Q2"]
        write_jsonl(
            folder / "forecasts.jsonl",
            [ForecastAnswer(question_id="Q2", method="aris", model="m1", probability=0.8)],
        )
    write_jsonl(folder / "answers.jsonl", rows)
    write_json(folder / "manifest.json", {"kind": "run", "inputs": {"release": str(release),
                                                                    "kb": str(fixture_kb())}})
    return folder
