"""The packaged local model (SmolLM2-135M-Instruct on llama-cpp-python's server) on a generated world.

Builds a small synthetic world through the real pipeline (world -> KB -> taxonomy -> release), starts
the local server, and answers the release with every LLM method under the structured-output method the
endpoint accepts (detected), and with hybrid_rag under each structured-output method; then name-only,
trend and persistence. Agents and the server run the demo's compact CPU-model profile
(``foresci.app.local_demo.COMPACT_PROFILE``: one review round, 2 evidence papers, 256/160 output tokens,
free-text fields of structured replies bounded at 100 characters and free lists at 2 items) and the
server's RAM prompt cache.
Prints per (method, output method): calls and prompt/completion tokens per task, seconds per task,
schema-valid answer rate, error reasons, offline FTA and top-1 (the fraction of ranked/choice tasks whose
first option is the hidden one); and the server's prompt and generation tokens/s from its timing log.

Goals (exit 1 when missed): every row is a valid answer or an error row with a reason; at least half of
the detected-method rows are valid answers; the server generates at least 5 tokens/s.

Run: ``python benchmarks/llm_local.py [--threads 2] [--per-family 1] [--model smollm2-135m]``
(needs ``pip install 'foresci[local-llm]'``; set OMP_NUM_THREADS=1 for the embedder).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/realllm builds the world
from foresci.agents.answers import read_answers  # noqa: E402
from foresci.agents.cli import write_run_manifest  # noqa: E402
from foresci.app.local_demo import COMPACT_PROFILE, compact_settings  # noqa: E402
from foresci.core.settings import Settings  # noqa: E402
from foresci.evaluation.models import Score  # noqa: E402
from foresci.evaluation.runner import SCORES_NAME, evaluate_run  # noqa: E402
from foresci.llm.capabilities import llm_capabilities  # noqa: E402
from foresci.llm.serve import LocalServer  # noqa: E402
from foresci.methods import shipped_methods  # noqa: E402
from foresci.methods.runner import ANSWERS_FILE, run_release  # noqa: E402
from foresci.tasks.release import load_release  # noqa: E402
from tests.realllm.world import SmallWorld, build_small_world  # noqa: E402

OTHER_OUTPUT_METHODS = ("json_schema", "function_calling", "json_mode", "grammar")
_TIMING = re.compile(r"^\s*(?:llama_perf_context_print:\s*)?(prompt eval|eval) time\s*=\s*([\d.]+) ms"
                     r"\s*/\s*(\d+) (?:tokens|runs)", re.MULTILINE)


def server_rates(log: Path) -> tuple[float, float, int]:
    """(prompt tokens/s, generated tokens/s, requests timed) from llama.cpp's timing lines in the log.

    Prompt-eval lines under 1 ms per token are left out: llama.cpp reports tokens there that it did not
    compute (e.g. a prompt restored from the prompt cache), which would inflate the rate a thousandfold.
    """
    totals = {"prompt eval": [0.0, 0], "eval": [0.0, 0]}
    count = 0
    for kind, milliseconds, tokens in _TIMING.findall(log.read_text(errors="replace")):
        if kind == "prompt eval" and float(milliseconds) < int(tokens):
            continue
        totals[kind][0] += float(milliseconds)
        totals[kind][1] += int(tokens)
        count += kind == "eval"

    def rate(kind: str) -> float:
        milliseconds, tokens = totals[kind]
        return tokens / (milliseconds / 1000) if milliseconds else 0.0

    return rate("prompt eval"), rate("eval"), count


def _scores(run_dir: Path) -> list[Score]:
    path = run_dir / SCORES_NAME
    if not path.is_file():
        return []
    return [Score.model_validate_json(line) for line in path.read_text().splitlines()]


def _top1(score: Score) -> float | None:
    top = score.metrics.get("top_choice")
    return None if top is None or top.value is None else float(top.value)


def summarise(run_dir: Path, tasks: int) -> dict[str, Any]:
    """Per-task figures of one run folder (one method)."""
    rows = read_answers(run_dir / ANSWERS_FILE)
    scores = _scores(run_dir)
    fta = [score.metrics["fta"].value for score in scores if "fta" in score.metrics
           and score.metrics["fta"].value is not None]
    top = [value for score in scores if (value := _top1(score)) is not None]
    errors = Counter((row.error or "").split(":", 1)[0] + ": " + _reason(row.error or "")
                     for row in rows if row.status == "error")
    return {
        "rows": len(rows), "ok": sum(row.status == "ok" for row in rows),
        "calls": sum(row.llm_calls for row in rows) / max(tasks, 1),
        "prompt": sum(row.prompt_tokens for row in rows) / max(tasks, 1),
        "completion": sum(row.completion_tokens for row in rows) / max(tasks, 1),
        "seconds": sum(row.elapsed_s or 0 for row in rows) / max(tasks, 1),
        "fta": sum(fta) / len(fta) if fta else None, "top1": sum(top) / len(top) if top else None,
        "errors": dict(errors),
    }


def _reason(error: str) -> str:
    for marker in ("truncated", "not valid JSON", "does not match the schema", "timed out", "refused",
                   "empty output", "accepts no structured-output method"):
        if marker in error:
            return marker
    return error.split(":", 2)[-1].strip()[:60]


def reuse_or_build_world(root: Path, per_family: int) -> SmallWorld:
    """The world built under ``root`` by an earlier run, or a new one."""
    settings = Settings(cache_dir=root / "cache")
    if (root / "release" / "tasks.jsonl").is_file() and (root / "kb").is_dir():
        from foresci.sim.world import load_ground_truth

        domains = [domain.slug for domain in load_ground_truth(root / "world").domains]
        settings = settings.model_copy(update={"kb": settings.kb.model_copy(update={"domains": domains})})
        return SmallWorld(root=root, kb_dir=root / "kb", release_dir=root / "release", settings=settings)
    return build_small_world(root, settings, per_family=per_family, n_domains=2, papers_per_month=50.0)


def main() -> int:
    """Print the table; exit 1 when a goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--per-family", type=int, default=1)
    parser.add_argument("--tasks", type=int, default=0, help="only the last N tasks (0 = all)")
    llm_methods = shipped_methods(uses_llm=True)
    parser.add_argument("--methods", default=",".join(llm_methods), help="LLM methods, comma-separated")
    parser.add_argument("--outputs", default=",".join(OTHER_OUTPUT_METHODS),
                        help="structured-output methods to run hybrid_rag under, comma-separated")
    parser.add_argument("--out", type=Path, default=None,
                        help="keep the artifacts here (default: temp dir); a world built there is reused")
    args = parser.parse_args()
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        root = args.out or Path(scratch)
        started = time.monotonic()
        world = reuse_or_build_world(root, args.per_family)
        tasks = load_release(world.release_dir).tasks
        tasks = tasks[-args.tasks:] if args.tasks else tasks
        print(f"world: {len(tasks)} tasks {dict(Counter(task.family for task in tasks))} "
              f"built in {time.monotonic() - started:.0f} s")
        factory = world.view_factory()
        with LocalServer(args.model, threads=args.threads, cache_dir=root / "llm") as server:
            compact = compact_settings(world.settings)
            base = compact.model_copy(update={"llm": compact.llm.model_copy(update=server.llm_settings())})
            plans: list[tuple[str, str, list[str], str]] = [
                ("-", "trend", ["trend"], "full"), ("-", "persistence", ["persistence"], "full")]
            plans += [("auto", method, [method], "full") for method in args.methods.split(",") if method]
            plans += [("auto", "native", ["native"], "name_only")]
            plans += [(output, "hybrid_rag", ["hybrid_rag"], "full")
                      for output in args.outputs.split(",") if output]
            print(f"profile: {COMPACT_PROFILE['llm']}; server {server.name}, {args.threads} threads")
            print(f"\n{'output method':>29} {'method':>15} {'mode':>9} | {'calls/t':>7} {'prompt/t':>8} "
                  f"{'compl/t':>7} {'s/task':>7} | {'valid':>6} {'FTA':>6} {'top-1':>6} | errors")
            for output, method, methods, mode in plans:
                settings = base
                if output not in ("auto", "-"):
                    settings = base.model_copy(update={"llm": base.llm.model_copy(
                        update={"structured_output_method": output})})
                run_dir = root / "runs" / f"{output}-{method}-{mode}"
                run_release(tasks, run_dir, settings, methods, mode=mode,  # type: ignore[arg-type]
                            view_factory=factory)
                write_run_manifest(run_dir, world.release_dir, world.kb_dir, settings, methods, [], mode)
                evaluate_run(run_dir, world.release_dir, settings, offline=True)
                figures = summarise(run_dir, len(tasks))
                used = llm_capabilities(settings, read_answers(run_dir / ANSWERS_FILE)).get(server.name, {})
                label = output if used.get("method") in (None, output) else f"{output}->{used['method']}"
                if output == "auto":
                    label = f"auto={used.get('method')}"
                valid = figures["ok"] / figures["rows"] if figures["rows"] else 0.0
                fta = "–" if figures["fta"] is None else f"{figures['fta']:.3f}"
                top = "–" if figures["top1"] is None else f"{figures['top1']:.2f}"
                print(f"{label:>29} {method:>15} {mode:>9} | {figures['calls']:>7.1f} "
                      f"{figures['prompt']:>8.0f} {figures['completion']:>7.0f} {figures['seconds']:>7.1f} | "
                      f"{valid:>6.2f} {fta:>6} {top:>6} | {figures['errors'] or ''}", flush=True)
                if output == "auto" and method in llm_methods and mode == "full" and valid < 0.5:
                    failures.append(f"{method}: only {valid:.0%} valid answers")
                for row in read_answers(run_dir / ANSWERS_FILE):
                    if row.status == "error" and not (row.error or "").strip():
                        failures.append(f"{method}: an error row without a reason")
            prompt_rate, generation_rate, timed = server_rates(server.log)
        print(f"\nserver ({args.model}, {args.threads} threads, OMP_WAIT_POLICY=PASSIVE): prompt "
              f"{prompt_rate:.0f} tokens/s, generation {generation_rate:.1f} tokens/s over {timed} requests; "
              f"total {time.monotonic() - started:.0f} s")
        if generation_rate < 5:
            failures.append(f"generation {generation_rate:.1f} tokens/s < 5")
    for failure in failures:
        print(f"MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
