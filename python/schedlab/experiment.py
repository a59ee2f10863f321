"""Experiments from Python: the same files, chunk function and output folders as
``schedlab experiment`` (see docs/experiments.md), locally or on a Dask cluster.

With a ``dask.distributed.Client``, every pending chunk is evaluated on a worker by the Rust
chunk function (pure: a chunk's results depend only on the experiment and the chunk), and the
driver alone writes the results, through the same durable store as the CLI — so a Dask run,
a local run and a CLI run of one file give identical folders, and any of them resumes the
others. When a run resumes a folder, or a local run is interrupted (Ctrl-C), the CLI's message
is issued as a :class:`ResumeWarning`.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any, Optional, Union

from . import _native

PathLike = Union[str, "os.PathLike[str]"]


class ResumeWarning(UserWarning):
    """What ``schedlab experiment`` prints about resuming: ``resuming OUT: K of N chunks
    already stored`` when a run continues a folder, and ``stopped after K of N chunks …;
    rerun the same command to resume`` when Ctrl-C interrupted a local run."""


def _say(message: str) -> None:
    # Issued from inside ``run`` (this frame, then ``run``): point at the caller of ``run``.
    warnings.warn(message, ResumeWarning, stacklevel=3)


def _evaluate(config: str, chunk: str) -> str:
    """Evaluates one chunk (runs on a Dask worker)."""
    return _native.experiment_chunk(config, chunk)


def run(
    path: PathLike,
    out: PathLike,
    client: Any = None,
    jobs: Optional[int] = None,
    samples: Optional[int] = None,
) -> Path:
    """Runs the experiment file ``path`` into the folder ``out``; returns the path of
    ``report.html``.

    ``samples``: task sets per point instead of the file's (``schedlab experiment
    --samples N``): recorded in the folder's manifest and part of its config hash, so a
    reduced folder resumes only with the same ``samples``; set ``k`` of a point is the same
    set whatever ``samples``.

    ``client``: a ``dask.distributed.Client`` to distribute chunks over its workers; without
    one, the experiment runs on ``jobs`` local threads (default: one per CPU). Rerunning with
    the same folder resumes: finished chunks are not computed again, and a
    :class:`ResumeWarning` says how many were found. Ctrl-C during a local run lets the running
    chunks finish and be stored, warns how far it got, and raises ``KeyboardInterrupt``.
    Raises ``schedlab.Error`` for an invalid file (every problem, with its line) or a folder
    that holds another experiment.
    """
    path, out = os.fspath(path), os.fspath(out)
    if client is None:
        return Path(_native.experiment_run(path, out, jobs or 0, _say, samples))
    from distributed import as_completed

    plan = json.loads(_native.experiment_prepare(path, out, samples))
    if plan["resume"]:
        _say(plan["resume"])
    config = plan["config"]
    futures = {}
    for chunk in plan["pending"]:
        text = json.dumps(chunk)
        futures[client.submit(_evaluate, config, text, pure=False)] = text
    for future in as_completed(futures):  # type: ignore[no-untyped-call]
        _native.experiment_store(out, futures[future], future.result())
    return Path(_native.experiment_finish(out))


__all__ = ["ResumeWarning", "run"]
