"""The ``schedlab`` command of the wheel (``[project.scripts]`` in pyproject.toml) and of
``python -m schedlab``: the same command line as the ``schedlab`` binary, run in this process by
the Rust core (``schedlab._native.cli_main``, the binary's own ``main_with_args``)."""

import signal
import sys
import threading
from typing import List, Optional

from . import _native


def main(argv: Optional[List[str]] = None) -> int:
    """Runs ``schedlab ARGS…`` (``argv``: the arguments after the program name; default
    ``sys.argv[1:]``) and returns its exit status (``sys.exit`` takes it)."""
    args = sys.argv[1:] if argv is None else list(argv)
    # Ctrl-C as in the binary: its default action ends the process (status 130 in the shell),
    # except while `run` and `experiment` catch it to stop cleanly. Python's own handler would
    # only record it until the command returned, since the command runs in Rust with the GIL
    # released. An ignored SIGINT (`nohup`, a background job) stays ignored, as for the binary.
    # Python lets only the main thread change handlers.
    previous = None
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        # "schedlab", not the script's path or __main__.py, in usage and error messages.
        return _native.cli_main(["schedlab", *args])
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
