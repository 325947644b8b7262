"""The case model shared by the suites."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

# argv for one process of one system, given (threads, repeat)
ArgvFn = Callable[[int, int], list]


@dataclass
class Case:
    suite: str
    name: str
    graph: str
    systems: dict[str, ArgvFn] = field(default_factory=dict)
    # keys of the "check" objects that must agree between Weald and the peers
    guard: tuple[str, ...] = ()
    unit: str = "s"
    # Weald's JSON is `weald run --json` (trials, result) rather than {"times", "check"}
    weald_run: bool = True
    check_key: str | None = None  # name of Weald's `result` in the check dict


@dataclass
class Context:
    weald: str
    py: str
    peers_script: str
    graphs: list  # harness.Graph
    quick: bool
    tol: float = 1e-4
    cache: str = ""  # where inputs are cached (suites that need extra inputs put them here)
    weald_py: str = ""  # the interpreter with `import weald` (set when the python suite runs)
