"""Plug-ins in their own confined process, reaching the KB only through foresci's tool channel.

A method that does not ship with foresci is imported, described and run in a fresh process per task
(:mod:`~foresci.methods.sandbox.host`), confined by bubblewrap (:mod:`~foresci.methods.sandbox.confine`):
it holds no KB, no release, no hidden file and no API key, and has no network. It receives the public task
(or forecast question) and asks foresci for KB tool and model calls over a socket
(:mod:`~foresci.methods.sandbox.frames`, :mod:`~foresci.methods.sandbox.desk`), bound to the task's cutoff
and tool budget and logged like any method's. The plug-in API it writes against is unchanged
(:mod:`~foresci.methods.sandbox.worker` gives it the same ``inputs``). Each process runs under the
per-task limits of the ``sandbox`` settings, watched from outside by
:mod:`~foresci.methods.sandbox.warden`.
"""

from __future__ import annotations

from foresci.methods.sandbox.confine import SandboxUnavailable
from foresci.methods.sandbox.host import PluginFailure, program_for, sandboxed_spec

__all__ = ["PluginFailure", "SandboxUnavailable", "program_for", "sandboxed_spec"]
