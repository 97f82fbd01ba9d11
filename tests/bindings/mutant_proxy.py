"""A mutant of an external adapter, served over the protocol: MUTANT_ID CMD... (tests/test_conformance_exec.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from test_conformance_mutants import MUTANTS

from agent_control_plane_core.conformance._external import ExecAdapter, serve_adapter

mutant = next(m for m in MUTANTS if m.id == sys.argv[1])
inner = ExecAdapter.start(sys.argv[2:])
serve_adapter(mutant.wrap(inner) if mutant.wrap else inner, sys.stdin, sys.stdout)  # type: ignore[arg-type]
inner.close()
