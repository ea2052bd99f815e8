"""trend and persistence on the toy world: A grows, B is biggest and steady, C cools."""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers, read_forecasts
from foresci.agents.baselines.forecasters import Forecaster
from foresci.agents.baselines.measure import CandidateSeries, months_before, poisson_log_slope
from foresci.agents.baselines.questions import forecast_question
from foresci.agents.config import AgentSettings
from foresci.agents.render import render_text
from foresci.core.settings import Settings
from foresci.core.transcript_log import TRANSCRIPTS_FILE, read_transcripts
from foresci.methods.identity import shipped_version
from foresci.methods.runner import ANSWERS_FILE, FORECASTS_FILE, run_release
from foresci.tasks.models import Candidate, ForecastQuestion
from tests.agents.conftest import ToyWorld
from tests.agents.toy import CUTOFF, DOMAIN, toy_tasks

TASKS = {task.family: task for task in toy_tasks()}


@pytest.fixture(scope="module")
def forecasters(toy_world: ToyWorld) -> dict[str, Forecaster]:
    view: Any = toy_world.view()
    return {kind: Forecaster(kind, view, AgentSettings()) for kind in ("trend", "persistence")}  # type: ignore[misc]


def test_months_before() -> None:
    assert months_before(CUTOFF, 3) == ["2025-04", "2025-05", "2025-06"]
    assert months_before(CUTOFF.replace(month=2, day=1), 3) == ["2024-12", "2025-01", "2025-02"]


def test_direction(forecasters: dict[str, Forecaster]) -> None:
    trend, trend_support = forecasters["trend"].direction(TASKS["direction_forecasting"])
    assert trend.direction == "A" and trend.trajectory == "accelerating"
    persistence, _ = forecasters["persistence"].direction(TASKS["direction_forecasting"])
    assert persistence.direction == "B" and persistence.trajectory == "steady"
    assert any("normalised by" in note for note in trend_support.notes)
    assert trend_support.evidence and all(item.announced <= CUTOFF for item in trend_support.retrieved)


def test_trend_labels_cooling_and_steady(forecasters: dict[str, Forecaster]) -> None:
    series = forecasters["trend"].series(TASKS["direction_forecasting"])
    assert forecasters["trend"].trajectory(series["C"]) == "cooling"
    assert forecasters["trend"].trajectory(series["B"]) == "steady"
    assert series["A"].acceleration() > 0 > series["C"].slope()


def test_planning(forecasters: dict[str, Forecaster]) -> None:
    trend, _ = forecasters["trend"].planning(TASKS["strategic_planning"])
    persistence, _ = forecasters["persistence"].planning(TASKS["strategic_planning"])
    assert [item.option_id for item in persistence.ranking] == ["B", "C", "A"]
    forecaster = forecasters["trend"]
    series = forecaster.series(TASKS["strategic_planning"])
    rates = {option: forecaster.entry(item).rate for option, item in series.items()}
    assert [rates[item.option_id] for item in trend.ranking] == sorted(rates.values(), reverse=True)
    assert all("by authors new to it" in item.reason for item in trend.ranking)


def test_venue_and_bottleneck(forecasters: dict[str, Forecaster]) -> None:
    for kind in ("trend", "persistence"):
        venue, support = forecasters[kind].venue(TASKS["venue_positioning"])
        assert venue.ranking[0].option_id == "V2", kind  # graph-memory papers go to ACL
        assert {item.option_id for item in venue.ranking} == {"V1", "V2", "V3"}
        bottleneck, support = forecasters[kind].bottleneck(TASKS["bottleneck_opportunity"])
        assert "context window" in bottleneck.bottleneck, bottleneck
        assert support.evidence[-1].paper_ids
        assert render_text(TASKS["bottleneck_opportunity"], bottleneck).startswith("Root bottleneck:")


def _question(kind: str, text: str, **params: Any) -> ForecastQuestion:
    return ForecastQuestion(
        question_id=f"q-{len(text)}-{kind}",
        kind=kind,
        domain=DOMAIN,
        cutoff=CUTOFF,  # type: ignore[arg-type]
        window_start=date(2025, 7, 1),
        window_end=date(2025, 9, 30),
        text=text,
        resolution_rule="r",
        params=params,
        baseline=params.get("baseline_count", 0.3),
    )


def test_forecast_questions(toy_world: ToyWorld) -> None:
    view: Any = toy_world.view()
    settings = AgentSettings()
    numeric = _question(
        "numeric",
        "How many papers on 'graph memory' next quarter?",
        family="strategic_planning",
        baseline_count=15,
    )
    trend = forecast_question("trend", view, numeric, settings)
    persistence = forecast_question("persistence", view, numeric, settings)
    assert persistence.p50 == 15
    assert trend.p50 is not None and trend.p50 > 15
    assert trend.p10 is not None and trend.p90 is not None and trend.p10 < trend.p50 < trend.p90
    growing = _question(
        "binary", "Will the share of 'graph memory' grow?", family="direction_forecasting", threshold=1.1
    )
    cooling = _question(
        "binary", "Will the share of 'reward shaping' grow?", family="direction_forecasting", threshold=1.1
    )
    assert forecast_question("trend", view, growing, settings).probability > 0.5  # type: ignore[operator]
    assert forecast_question("trend", view, cooling, settings).probability < 0.5  # type: ignore[operator]
    assert forecast_question("persistence", view, cooling, settings).probability == 0.3
    for subject, grows in (("graph memory", True), ("reward shaping", False)):  # the mirror question
        decline = _question("binary", f"Will the share of '{subject}' fall?", family="direction_forecasting",
                            threshold=round(1 / 1.1, 6), direction="decline")
        falls = forecast_question("trend", view, decline, settings).probability
        assert falls is not None and (falls < 0.5) == grows
    venue = _question(
        "binary",
        "Will ACL lead for 'graph memory'?",
        family="venue_positioning",
        venue_family="ACL/EMNLP/NAACL",
    )
    assert forecast_question("persistence", view, venue, settings).probability > 0.5  # type: ignore[operator]


def test_run_writes_forecasts_and_resumes(toy_world: ToyWorld, tmp_path: Path) -> None:
    view: Any = toy_world.view()
    numeric = _question(
        "numeric", "How many papers on 'graph memory'?", family="strategic_planning", baseline_count=9
    )
    settings = Settings(cache_dir=tmp_path / "cache")
    for _ in range(2):
        summary = run_release(
            toy_tasks(),
            tmp_path / "run",
            settings,
            ["trend", "persistence"],
            view_factory=lambda cutoff: view,
            questions=[numeric],
        )
    rows = read_forecasts(tmp_path / "run" / FORECASTS_FILE)
    assert sorted(row.method for row in rows) == ["persistence", "trend"]
    assert summary.forecasts == 0 and summary.done_before == 8
    answers = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert len(answers) == 8 and all(row.model is None and not row.contamination_risk for row in answers)
    stored = read_transcripts(tmp_path / "run" / TRANSCRIPTS_FILE)
    for row in answers:  # each baseline answer says what it read
        events = stored[row.transcript or ""]["events"]
        (read,) = [event for event in events if event["kind"] == "baseline_read"]
        assert read["method"] == row.method and read["cutoff"] == CUTOFF.isoformat()
        assert "months" in read["read"][0] and "normalised by" in read["read"][0]
    forecast_reads = [event for row in rows for event in stored[row.transcript or ""]["events"]
                      if event["kind"] == "baseline_read"]
    assert len(forecast_reads) == 2 and all(len(event["months"]) == len(event["counts"]) ==
                                            len(event["domain_totals"]) > 0 for event in forecast_reads)
    assert sum(forecast_reads[0]["counts"]) <= forecast_reads[0]["subject_papers"]
    assert {row.version for row in answers} == {shipped_version()}, "shipped: foresci version + prompts"


def test_tasks_without_candidates_become_error_rows(toy_world: ToyWorld, tmp_path: Path) -> None:
    view: Any = toy_world.view()
    bare = [
        task.model_copy(update={"candidates": [], "task_id": f"{task.task_id}-bare"})
        for task in toy_tasks()
        if task.family in ("direction_forecasting", "strategic_planning")
    ]
    summary = run_release(
        bare,
        tmp_path / "run",
        Settings(cache_dir=tmp_path / "cache"),
        ["trend"],
        view_factory=lambda cutoff: view,
    )
    rows = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert summary.errors == len(bare) == len(rows) == 2
    assert all(row.status == "error" and "no candidate options" in (row.error or "") for row in rows)


def test_trend_measures_an_option_by_its_node_in_the_taxonomy_whatever_the_other_options(
    toy_world: ToyWorld,
) -> None:
    from foresci.agents.baselines.routing import taxonomy_of

    view: Any = toy_world.view()
    snapshot = taxonomy_of(view, DOMAIN)
    assert snapshot is not None and snapshot.cutoff == CUTOFF and len(snapshot.nodes) >= 2
    nodes = snapshot.nodes[:2]
    base = TASKS["direction_forecasting"]
    alone = base.model_copy(update={"candidates": [
        Candidate(option_id="A", name="first option", node_id=nodes[0].node_id),
        Candidate(option_id="B", name="second option", node_id=nodes[1].node_id)]})
    swapped = base.model_copy(update={"candidates": [
        Candidate(option_id="A", name="second option", node_id=nodes[1].node_id),
        Candidate(option_id="B", name="first option", node_id=nodes[0].node_id)]})
    forecaster = Forecaster("trend", view, AgentSettings())
    first, second = forecaster.series(alone), forecaster.series(swapped)
    assert first["A"].counts == second["B"].counts and first["B"].counts == second["A"].counts
    from foresci.agents.baselines.routing import routed_taxonomy

    routed = routed_taxonomy(view, DOMAIN)
    assert routed is not None and routed.snapshot is snapshot
    assert first["A"].volume == len(routed.routed[nodes[0].node_id])  # the whole KB starts in the months read
    answer, support = forecaster.direction(alone)
    assert "papers T(t) routes into its node in T(t)" in support.notes[0]
    assert "read 6 months (2025-01…2025-06)" in support.notes[0]  # not the 12 asked: the KB starts 2025-01
    assert "a stable reference" in support.notes[0] and "read 6 months" in answer.rationale


def test_trend_ranks_options_under_the_volume_floor_last() -> None:
    settings = AgentSettings()
    forecaster = Forecaster("trend", None, settings)  # type: ignore[arg-type]
    totals = [100] * 12
    rare = CandidateSeries("X", [1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1], [0.0] * 12, totals=totals)
    steady = CandidateSeries("Y", [4, 4, 5, 4, 5, 5, 5, 5, 6, 5, 6, 6], [0.0] * 12, totals=totals)
    falling = CandidateSeries("Z", [8, 8, 7, 7, 6, 6, 5, 5, 5, 4, 4, 3], [0.0] * 12, totals=totals)
    assert rare.log_slope() > steady.log_slope() > 0 > falling.log_slope()
    ranked, basis = forecaster._by_momentum({"X": rare, "Y": steady, "Z": falling}, ["X", "Y", "Z"])
    assert ranked == ["Y", "Z", "X"] and "at least 24 papers" in basis
    ranked, basis = forecaster._by_momentum({"X": rare}, ["X"])
    assert ranked == ["X"] and "shrunk" in basis


def test_trend_reads_an_option_from_its_first_paper() -> None:
    """A node that receives papers only from its creation (month 3) then holds its share is not rising;
    the months before it existed are not zero papers."""
    totals = [100] * 12
    late = CandidateSeries("L", [0, 0, 0, 6, 6, 2, 5, 3, 4, 4, 4, 4], [0.0] * 12, totals=totals)
    rising = CandidateSeries("R", [3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 7, 7], [0.0] * 12, totals=totals)
    assert late.log_slope() < 0.0 < rising.log_slope()
    forecaster = Forecaster("trend", None, AgentSettings())  # type: ignore[arg-type]
    ranked, _ = forecaster._by_momentum({"L": late, "R": rising}, ["L", "R"])
    assert ranked[0] == "R"
    assert CandidateSeries("N", [0] * 10 + [2, 3], [0.0] * 12, totals=totals).share_trend() == (0.0, math.inf)


def test_poisson_share_slope_recovers_planted_growth() -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    totals = [200] * 12
    for planted in (0.1, 0.0, -0.1):
        estimates = [poisson_log_slope(list(rng.poisson(3.0 * np.exp(planted * (np.arange(12) - 6)))),
                                       totals)[0] for _ in range(200)]
        assert abs(float(np.mean(estimates)) - planted) < 0.015
    slope, error = poisson_log_slope([0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1], [100] * 12)
    assert slope > 0.2 and error > 0.15  # steep but noise: the volume floor keeps it out of first place


class _ListView:
    """A KB view at 2025-12-31 over a fixed list of papers (one domain)."""

    cutoff = date(2025, 12, 31)

    def __init__(self, papers: list[Any]) -> None:
        self._papers = papers

    def papers(self, domain: str | None = None, statuses: tuple[str, ...] = ("core", "support")) -> list[Any]:
        return list(self._papers)

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
        counts: dict[str, int] = {}
        for paper in self._papers:
            key = f"{paper.announced.year:04d}-{paper.announced.month:02d}"
            counts[key] = counts.get(key, 0) + 1
        return counts

    def search(self, query: str, k: int = 10, domain: str | None = None) -> list[Any]:
        return []

    def get(self, paper_id: str) -> Any:
        return next((paper for paper in self._papers if paper.paper_id == paper_id), None)

    def embeddings(self, paper_ids: Any) -> Any:
        raise NotImplementedError


def _papers(plan: dict[int, list[str]], title: str, abstract: str, comment: str = "") -> list[Any]:
    """Papers of 2025: one per entry of ``plan[month]``, the entry filling ``abstract`` and ``comment``."""
    from foresci.kb.models import Paper

    return [
        Paper(paper_id=f"2025.{month:02d}{index:03d}", title=f"{title} {month}-{index}",
              abstract=abstract.format(entry), categories=["cs.CL"], comment=comment.format(entry) or None,
              announced=date(2025, month, 10))
        for month, entries in plan.items() for index, entry in enumerate(entries)
    ]


def test_venue_trend_reads_momentum_that_persistence_does_not() -> None:
    """ACL has the most acceptances over the year (11 vs 7), NeurIPS most of the recent half (6 vs 3):
    persistence ranks ACL first, trend ranks the rising NeurIPS family first (their answers used to be the
    same on 25 of 25 real venue tasks)."""
    plan = {1: ["ACL"] * 4, 2: ["ACL"] * 3, 3: ["ACL", "NeurIPS"], 4: ["ACL"], 5: [], 6: [],
            7: ["ACL", "NeurIPS"], 8: ["NeurIPS"], 9: ["ACL", "NeurIPS"], 10: ["NeurIPS"],
            11: ["ACL", "NeurIPS"], 12: ["NeurIPS"]}
    view: Any = _ListView(_papers(plan, "graph memory paper", "We study graph memory for language agents.",
                                  "Accepted to {} 2025"))
    task = TASKS["venue_positioning"].model_copy(update={"cutoff": view.cutoff})
    top = {
        kind: Forecaster(kind, view, AgentSettings()).venue(task)[0].ranking  # type: ignore[arg-type]
        for kind in ("trend", "persistence")
    }
    assert [item.option_id for item in top["persistence"]][:2] == ["V2", "V1"]
    assert top["trend"][0].option_id == "V1"
    assert "projected share" in top["trend"][0].reason and "6 since" in top["trend"][0].reason


def test_bottleneck_trend_reads_the_growing_share_of_a_limitation() -> None:
    """The related papers grow from 10 to 40 a half-year. Reward hacking is stated most (4 + 10 times) but
    by a falling share of them (40 % -> 25 %); context-window limits by a rising one (10 % -> 17.5 %).
    Persistence names reward hacking; trend names the context-window limits (counting recent mentions
    favoured the larger limitation, and the two answers were the same on 5 of 5 real bottleneck tasks)."""
    hacking = "However, reward hacking remains a bottleneck for graph memory agents."
    window = "However, context window limits remain a bottleneck for graph memory agents."
    plain = "Graph memory agents store experience as a graph."
    plan = {month: [hacking] * 2 + [window] * (month == 1) + [plain] * (3 - (month == 1)) for month in (1, 2)}
    plan |= {month: [hacking] * 2 + [window] * 1 + [plain] * 4 for month in range(7, 12)}
    plan[12] = [window] * 2 + [plain] * 3
    view: Any = _ListView(_papers(plan, "graph memory paper", "{}"))
    task = TASKS["bottleneck_opportunity"].model_copy(update={"cutoff": view.cutoff, "context": {
        "subdirection": "graph memory", "key_terms": ["graph memory"],
        "recurring_limitations_before_cutoff": ["reward hacking", "context window limits"]}})
    answers = {kind: Forecaster(kind, view, AgentSettings()).bottleneck(task)[0]  # type: ignore[arg-type]
               for kind in ("trend", "persistence")}
    assert answers["persistence"].bottleneck == "reward hacking"
    assert answers["trend"].bottleneck == "context window limits"


def test_trend_counts_an_option_by_routing_not_by_when_its_node_was_grown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A taxonomy grown over chronological slices keeps early papers in the node that existed then and
    sends later ones to nodes created later, so membership series fall and rise with the growth schedule.
    Trend must count papers the way the hidden target does (every visible paper routed through T(t) by
    centroid), which here reads both topics flat, as they are."""
    from types import SimpleNamespace

    import numpy as np

    import foresci.taxonomy.induce as induce
    from foresci.kb.models import Paper
    from foresci.taxonomy.models import Node, Snapshot
    from foresci.taxonomy.window import routed_monthly

    cutoff = date(2025, 6, 30)
    papers, rows = [], []
    for month in range(1, 7):
        for topic, vector in (("a", [1.0, 0.0]), ("b", [0.0, 1.0])):
            for index in range(2):
                papers.append(Paper(paper_id=f"2025.{month:02d}{topic}{index}", title=f"{topic} paper",
                                    abstract=f"about {topic}", categories=["cs.CL"],
                                    announced=date(2025, month, 10 + index)))
                rows.append(vector)
    vectors = np.asarray(rows, dtype=np.float32)
    early = [paper.paper_id for paper in papers if paper.announced.month <= 3]
    late = [paper.paper_id for paper in papers if paper.announced.month > 3]
    snapshot = Snapshot(domain=DOMAIN, cutoff=cutoff, nodes=[  # membership by slice, centroids by topic
        Node(node_id="n-a", label="topic a", paper_ids=early, centroid=[1.0, 0.0]),
        Node(node_id="n-b", label="topic b", paper_ids=late, centroid=[0.0, 1.0])])

    class View:
        def __init__(self) -> None:
            self.cutoff = cutoff

        def papers(self, domain: str | None = None, statuses: tuple[str, ...] = ("core",)) -> list[Paper]:
            return list(papers)

        def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
            return {f"2025-{month:02d}": 4 for month in range(1, 7)}

        def embeddings(self, paper_ids: list[str]) -> np.ndarray:
            row = {paper.paper_id: index for index, paper in enumerate(papers)}
            return vectors[[row[paper_id] for paper_id in paper_ids]]

    monkeypatch.setattr(induce, "induce_taxonomy",
                        lambda *args, **kwargs: SimpleNamespace(snapshots=[snapshot], final=snapshot))
    task = TASKS["direction_forecasting"].model_copy(update={"domain": DOMAIN, "candidates": [
        Candidate(option_id="A", name="topic a", node_id="n-a"),
        Candidate(option_id="B", name="topic b", node_id="n-b")]})
    series = Forecaster("trend", View(), AgentSettings()).series(task)  # type: ignore[arg-type]
    routed = routed_monthly(snapshot, papers, vectors)
    for option, node_id in (("A", "n-a"), ("B", "n-b")):
        assert series[option].counts == [routed[node_id][f"2025-{month:02d}"] for month in range(1, 7)]
        assert series[option].counts == [2] * 6  # by membership: [4, 4, 4, 0, 0, 0] and [0, 0, 0, 4, 4, 4]
        assert abs(series[option].log_slope()) < 1e-6


def test_subject_papers_equal_the_token_rule() -> None:
    """The substring pre-check skips papers, never changes the answer: a paper counts when its tokens hold
    60 % of the subject's content words; 'graphs' or 'subgraph' hold 'graph' as a substring only."""
    from foresci.agents.baselines.questions import subject_papers
    from foresci.kb.models import Paper
    from foresci.tasks.text import content_tokens

    abstracts = [
        "Graph retrieval for agents.",  # graph + retrieval: 2 of 3
        "Graphs and retrievals everywhere.",  # substrings of both, tokens of neither
        "A subgraph retrieval-augmented agent.",  # 'retrieval-augmented' is one token
        "Graph neural networks with retrieval-augmented memory and retrieval.",
        "Nothing related at all.",
        "GRAPH RETRIEVAL AUGMENTED.",
    ]
    papers = [
        Paper(paper_id=f"2025.{index:05d}", title=f"Paper {index}", abstract=text, categories=["cs.CL"],
              announced=date(2025, 5, 1 + index))
        for index, text in enumerate(abstracts)
    ]
    question = _question("numeric", "How many papers on 'graph retrieval augmented' will appear?",
                         baseline_count=3)
    words = set(content_tokens("graph retrieval augmented"))
    expected = [paper.paper_id for paper in papers
                if len(words & set(content_tokens(paper.text))) >= math.ceil(0.6 * len(words))]
    found = [paper.paper_id for paper in subject_papers(_ListView(papers), question)]  # type: ignore[arg-type]
    assert found == expected == ["2025.00000", "2025.00003", "2025.00005"]


def test_trend_ranks_planning_options_by_newcomer_entry_not_momentum(monkeypatch: pytest.MonkeyPatch) -> None:
    """#43: a planning task's key is where newcomers enter. Topic a grows fastest (1 -> 12 papers a month)
    but every paper is by the same three authors; topic b is flat (3 a month) and written by new authors
    each month. Trend (momentum, before) put a first, below chance on 20 fresh worlds; it now reads each
    option's newcomer entry from the KB and puts b first, while persistence still ranks by volume."""
    from types import SimpleNamespace

    import numpy as np

    import foresci.taxonomy.induce as induce
    from foresci.kb.models import Paper
    from foresci.taxonomy.models import Node, Snapshot

    cutoff = date(2025, 12, 31)
    papers, rows = [], []
    for month in range(1, 13):
        for index in range(month):
            papers.append(Paper(paper_id=f"2025.{month:02d}a{index:02d}", title="a paper", abstract="about a",
                                categories=["cs.CL"], authors=[f"held {index % 3}"],
                                announced=date(2025, month, 1 + index)))
            rows.append([1.0, 0.0])
        for index in range(3):
            papers.append(Paper(paper_id=f"2025.{month:02d}b{index}", title="b paper", abstract="about b",
                                categories=["cs.CL"], authors=[f"new {month}-{index}", f"co {month}-{index}"],
                                announced=date(2025, month, 20 + index)))
            rows.append([0.0, 1.0])
    vectors = np.asarray(rows, dtype=np.float32)
    by_id = {paper.paper_id: index for index, paper in enumerate(papers)}
    snapshot = Snapshot(domain=DOMAIN, cutoff=cutoff, nodes=[
        Node(node_id="n-a", label="topic a", paper_ids=[p.paper_id for p in papers if "a" in p.paper_id[7:]],
             centroid=[1.0, 0.0]),
        Node(node_id="n-b", label="topic b", paper_ids=[p.paper_id for p in papers if "b" in p.paper_id[7:]],
             centroid=[0.0, 1.0])])

    class View:
        def __init__(self) -> None:
            self.cutoff = cutoff

        def papers(self, domain: str | None = None, statuses: tuple[str, ...] = ("core",)) -> list[Paper]:
            return list(papers)

        def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
            return {f"2025-{month:02d}": month + 3 for month in range(1, 13)}

        def embeddings(self, paper_ids: list[str]) -> np.ndarray:
            return vectors[[by_id[paper_id] for paper_id in paper_ids]]

        def get(self, paper_id: str) -> Paper | None:
            return papers[by_id[paper_id]] if paper_id in by_id else None

    monkeypatch.setattr(induce, "induce_taxonomy",
                        lambda *args, **kwargs: SimpleNamespace(snapshots=[snapshot], final=snapshot))
    task = TASKS["strategic_planning"].model_copy(update={"domain": DOMAIN, "cutoff": cutoff, "candidates": [
        Candidate(option_id="A", name="topic a", node_id="n-a"),
        Candidate(option_id="B", name="topic b", node_id="n-b")]})
    view: Any = View()
    trend = Forecaster("trend", view, AgentSettings())
    series = trend.series(task)
    assert series["A"].log_slope() > series["B"].log_slope()  # momentum says a
    answer, _ = trend.planning(task)
    assert [item.option_id for item in answer.ranking] == ["B", "A"]
    assert "9 of its 9 papers of the last 3 months" in answer.ranking[0].reason
    persistence, _ = Forecaster("persistence", view, AgentSettings()).planning(task)
    assert persistence.ranking[0].option_id == "A"
    from foresci.agents.baselines.entry import entry_rate

    a_papers = [paper for paper in papers if "a" in paper.paper_id[7:]]
    assert entry_rate(a_papers, cutoff, 3).newcomers == 0 and entry_rate(a_papers, cutoff, 12).newcomers == 3


def test_trend_ranks_concept_pairs_by_shared_neighbours_between_concepts_in_use_now() -> None:
    """#43: trend was Adamic–Adar, a measure the task stated, so the rule reading it tied trend. Trend now
    weighs a pair's shared neighbours by how much its two concepts are used in the last three months (ties,
    as pairs without shared neighbours, by that use); persistence is preferential attachment."""
    from foresci.agents.baselines.strategies import baseline_answer

    def pair(adamic_adar: float, degrees: float, growth: float) -> dict[str, float]:
        return {"degree_first": degrees, "degree_second": degrees, "adamic_adar": adamic_adar,
                "common_neighbours": 1.0 if adamic_adar else 0.0, "growth_first": growth,
                "growth_second": growth}

    stated = {"A": pair(1.0, 9.0, 0.0), "B": pair(0.6, 3.0, 8.0), "C": pair(0.0, 4.0, 30.0),
              "D": pair(0.0, 2.0, 2.0)}
    task = TASKS["direction_forecasting"].model_copy(update={
        "family": "concept_emergence", "context": {"pair_signals": stated},
        "candidates": [Candidate(option_id=option, name=f"c{option} + d{option}") for option in stated]})
    view: Any = _ListView([])
    ranked = {kind: [item.option_id for item in baseline_answer(  # type: ignore[arg-type]
        Forecaster(kind, view, AgentSettings()), task)[0].ranking] for kind in ("trend", "persistence")}
    assert ranked["trend"] == ["B", "A", "C", "D"]  # Adamic–Adar alone: A, B, then C, D in option order
    assert ranked["persistence"] == ["A", "C", "B", "D"]
