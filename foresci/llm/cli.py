"""``foresci llm``: serve a packaged local model (or any GGUF) behind an OpenAI-compatible endpoint."""

from __future__ import annotations

import time

import typer

from foresci.llm.serve import DEFAULT_LOCAL_MODEL

app = typer.Typer(help="Local LLMs: serve a packaged model on 127.0.0.1.", no_args_is_help=True)


@app.command("serve")
def serve_command(
    model: str = typer.Option(DEFAULT_LOCAL_MODEL, "--model",
                              help="registry name (smollm2-135m, gemma3-270m) or a path to a .gguf file"),
    port: int = typer.Option(8000, "--port", help="port on 127.0.0.1 (0 = any free port)"),
    ctx: int | None = typer.Option(None, "--ctx", help="context window in tokens (default: the model's)"),
    threads: int = typer.Option(2, "--threads", help="CPU threads for prompt processing and generation"),
    prompt_cache_mb: int = typer.Option(
        128, "--prompt-cache-mb", help="prompt cache, MiB of KV state (RAM use is about 10x for SmolLM2: "
        "the logits are kept too); restores any earlier request's longest matching prefix (0 = off)"),
) -> None:
    """Serve a local model on 127.0.0.1 until Ctrl-C, and print the settings that point foresci at it.

    Needs the optional local-llm extra of foresci (`make llm`).

    Examples:

      foresci llm serve                         # SmolLM2-135M-Instruct, the default
      foresci llm serve --model gemma3-270m --port 8081 --threads 1
      foresci llm serve --model ~/models/qwen2.5-0.5b-instruct-q4_k_m.gguf --ctx 8192
      foresci llm serve --prompt-cache-mb 0          # no prompt cache (saves RAM)
    """
    from foresci.core.settings import Settings
    from foresci.llm.serve import LocalServer

    server = LocalServer(model, port=port, ctx=ctx, threads=threads, cache_dir=Settings().cache_dir,
                         prompt_cache_mb=prompt_cache_mb)
    started = time.monotonic()
    with server:
        typer.echo(f"# {server.name} ({server.weights}) answers at {server.base_url} "
                   f"after {time.monotonic() - started:.1f} s; log {server.log}")
        typer.echo("\n".join(server.env_lines()))
        typer.echo("# Ctrl-C stops the server", err=True)
        try:
            while server.process is not None and server.process.poll() is None:
                time.sleep(1.0)
            typer.echo(f"# the server exited; see {server.log}", err=True)
        except KeyboardInterrupt:
            typer.echo("# stopping", err=True)
