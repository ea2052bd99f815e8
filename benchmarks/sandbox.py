"""What the plug-in sandbox costs per task, on a generated world: start-up and milliseconds per tool call.

Builds the small world of the method tests (a KB and a release), then answers every task with one plug-in
twice: in its own bubblewrap process (the default) and in foresci's process (``--trust-plugin``). The
plug-in makes ``CALLS`` KB searches per task and times each one itself, so the channel's cost per call is
the difference between the two modes. Start-up is the time from starting the process to its first request
(Python, foresci's plug-in API and the plug-in imported, the task read).

    OMP_NUM_THREADS=1 python benchmarks/sandbox.py [--tasks 8] [--calls 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PLUGIN = '''
import time
from foresci.methods import MethodResult, method

CALLS = {calls}

@method("timed_searches", needs_kb=True)
def timed_searches(inputs):
    spent = []
    for index in range(CALLS):
        started = time.perf_counter()
        inputs.tools.search(f"{{inputs.task.title}} {{index}}", k=5)
        spent.append(time.perf_counter() - started)
    options = [candidate.option_id for candidate in inputs.task.candidates]
    if inputs.task.family == "direction_forecasting":
        answer = {{"direction": options[0], "trajectory": "steady", "rationale": "r"}}
    elif inputs.task.family == "bottleneck_opportunity":
        answer = {{"bottleneck": "b", "opportunity": "o", "mechanism": "m"}}
    else:
        answer = {{"ranking": [{{"option_id": option}} for option in options]}}
    return MethodResult(answer=answer, support={{"notes": [str(sum(spent) / len(spent))]}})
'''


def main() -> None:
    """Build the world, time both modes, print a JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8, help="tasks answered per mode")
    parser.add_argument("--calls", type=int, default=10, help="KB searches per task")
    options = parser.parse_args()

    from foresci.agents.tools import KBTools
    from foresci.core.settings import Settings
    from foresci.core.transcripts import recording
    from foresci.methods.calling import call_method
    from foresci.methods.loading import load_object
    from foresci.methods.registry import MethodInput
    from foresci.methods.sandbox import program_for, sandboxed_spec
    from foresci.tasks.release import load_release
    from tests.realllm.world import build_small_world

    root = Path(tempfile.mkdtemp(prefix="foresci-sandbox-bench-"))
    world = build_small_world(root, Settings(cache_dir=root / "cache"), per_family=2, months=12,
                              papers_per_month=30.0, directions_per_domain=5)
    plugins = root / "plugins"
    plugins.mkdir()
    (plugins / "timed_agent.py").write_text(textwrap.dedent(PLUGIN.format(calls=options.calls)))
    sys.path.insert(0, str(plugins))
    tasks = load_release(world.release_dir).tasks
    tasks = (tasks * (options.tasks // max(1, len(tasks)) + 1))[:options.tasks]
    views = world.view_factory()
    settings = world.settings

    described = time.perf_counter()
    sandboxed = sandboxed_spec(program_for("timed_agent:timed_searches", "timed_agent:timed_searches"))
    describe_s = time.perf_counter() - described
    trusted = load_object("timed_agent:timed_searches")
    results = {mode: {"task_s": [], "call_s": [], "startup_s": []} for mode in ("trusted", "sandboxed")}
    for index, task in enumerate([tasks[0], *tasks]):  # the first round warms the KB and the encoder
        for mode, spec in (("trusted", trusted), ("sandboxed", sandboxed)):  # alternated: same load
            tools = KBTools(views(task.cutoff), task.domain, settings.agents.tool_budget + options.calls,
                            settings.agents.papers_per_query)
            started = time.perf_counter()
            with recording() as transcript:
                inputs = MethodInput(task=task, mode="full", tools=tools, settings=settings)
                result = call_method(spec, inputs)
            if index == 0:
                continue
            results[mode]["task_s"].append(time.perf_counter() - started)
            results[mode]["call_s"].append(float(result.support.notes[0]))  # type: ignore[union-attr]
            results[mode]["startup_s"] += [event["startup_ms"] / 1000 for event in transcript.events
                                           if event["kind"] == "sandbox"]

    def ms(values: list[float]) -> float:
        return round(statistics.median(values) * 1000, 1) if values else 0.0

    summary = {
        "tasks": len(tasks), "calls_per_task": options.calls, "describe_ms": round(describe_s * 1000, 1),
        "trusted": {"task_ms": ms(results["trusted"]["task_s"]), "call_ms": ms(results["trusted"]["call_s"])},
        "sandboxed": {"task_ms": ms(results["sandboxed"]["task_s"]),
                      "call_ms": ms(results["sandboxed"]["call_s"]),
                      "startup_ms": ms(results["sandboxed"]["startup_s"])},
        "load_average": os.getloadavg(),
        "threads": os.environ.get("OMP_NUM_THREADS", "unset"),
    }
    summary["sandbox_cost"] = {
        "per_task_ms": round(summary["sandboxed"]["task_ms"] - summary["trusted"]["task_ms"], 1),
        "per_tool_call_ms": round(summary["sandboxed"]["call_ms"] - summary["trusted"]["call_ms"], 2),
    }
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
