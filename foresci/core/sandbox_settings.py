"""Settings of sandboxed plug-ins (the ``sandbox`` section): what one task's confined process may use.

Each limit is per task (one process tree per task or forecast question) and, when reached, ends that
task as an error row naming the limit; the run goes on. The caps on what a plug-in prints and returns
keep a plug-in from filling foresci's disk or memory: what it prints is read through a pipe and only its
tail is kept (for the error row), and its answer is refused above ``max_answer_bytes`` before it is read.
"""

from __future__ import annotations

from pydantic import Field

from foresci.core.sections import SettingsSection

MIB = 1024 * 1024


class SandboxSettings(SettingsSection):
    """Per-task limits of a plug-in run in its bubblewrap sandbox (not of ``--trust-plugin``, shipped methods
    or HTTP agents)."""

    deadline_s: float = Field(
        default=1800.0, gt=0,
        description="wall-clock seconds one task's plug-in process may run, tool and model calls included",
    )
    cpu_s: float = Field(
        default=900.0, gt=0, description="CPU seconds one task's plug-in processes may use together",
    )
    memory_mb: int = Field(
        default=4096, ge=64,
        description="memory of one task's plug-in: address space per process and resident memory of all "
        "its processes together, in MiB",
    )
    processes: int = Field(
        default=64, ge=2, description="processes (and threads) one task's plug-in may have at once",
    )
    tmp_mb: int = Field(
        default=512, ge=1, description="writable space (the sandbox's /tmp) of one task's plug-in, in MiB",
    )
    max_output_bytes: int = Field(
        default=8 * MIB, ge=1024,
        description="bytes a plug-in may print (stdout and stderr together) per task; only the tail is kept, "
        "for the error row",
    )
    max_answer_bytes: int = Field(
        default=16 * MIB, ge=1024,
        description="bytes of one message from the plug-in (its answer with support, or a request): the "
        "HTTP agents' reply cap (llm.max_reply_bytes' default)",
    )
    llm_max_choices: int = Field(
        default=1, ge=1, description="completions (``n``) a plug-in's relayed chat request may ask for",
    )
