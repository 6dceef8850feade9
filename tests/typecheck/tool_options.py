"""Checked by mypy (`make typecheck`, pyproject's `[tool.mypy] files`), never run: tool options
are typed by `ToolOptions`' own signature wherever they are given.

Each marked line must fail type checking: `--strict` includes `warn_unused_ignores`, so if any
of them ever type-checks (the options became `**Any`), its `type: ignore` is unused and mypy
fails `make test`.
"""

from __future__ import annotations

from spotter.tools.router import Router
from spotter.tools.spec import MANAGERS

things = Router("things", "Things.", rols=MANAGERS)  # type: ignore[call-arg]
things.group(confirm="sometimes")  # type: ignore[arg-type]
things.read("list", "List things.", feature_gte="things")  # type: ignore[call-arg]
things.write("paint", "Paint a thing.", roles="owner")  # type: ignore[arg-type]
things.group(roles=MANAGERS).write("merge", "Merge.", idempotent="yes")  # type: ignore[arg-type]

# and the right spellings pass
admin = Router("things", "Things.", feature_gate="things").group(roles=MANAGERS, confirm="always")
admin.write("merge", "Merge two things.", resource="thing_pair", external_effects=False)
