"""Experiments from Python: the same files, chunk function and output folders as
``schedlab experiment`` (see docs/experiments.md), locally or on a Dask cluster.

With a ``dask.distributed.Client``, every pending chunk is evaluated on a worker by the Rust
chunk function (pure: a chunk's results depend only on the experiment and the chunk), and the
driver alone writes the results, through the same durable store as the CLI — so a Dask run,
a local run and a CLI run of one file give identical folders, and any of them resumes the
others.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional, Union

from . import _native

PathLike = Union[str, "os.PathLike[str]"]


def _evaluate(config: str, chunk: str) -> str:
    """Evaluates one chunk (runs on a Dask worker)."""
    return _native.experiment_chunk(config, chunk)


def run(path: PathLike, out: PathLike, client=None, jobs: Optional[int] = None) -> Path:
    """Runs the experiment file ``path`` into the folder ``out``; returns the path of
    ``report.html``.

    ``client``: a ``dask.distributed.Client`` to distribute chunks over its workers; without
    one, the experiment runs on ``jobs`` local threads (default: one per CPU). Rerunning with
    the same folder resumes: finished chunks are not computed again. Raises
    ``schedlab.Error`` for an invalid file (every problem, with its line) or a folder that
    holds another experiment.
    """
    path, out = os.fspath(path), os.fspath(out)
    if client is None:
        return Path(_native.experiment_run(path, out, jobs or 0))
    from distributed import as_completed

    plan = json.loads(_native.experiment_prepare(path, out))
    config = plan["config"]
    futures = {}
    for chunk in plan["pending"]:
        text = json.dumps(chunk)
        futures[client.submit(_evaluate, config, text, pure=False)] = text
    for future in as_completed(futures):
        _native.experiment_store(out, futures[future], future.result())
    return Path(_native.experiment_finish(out))


__all__ = ["run"]
