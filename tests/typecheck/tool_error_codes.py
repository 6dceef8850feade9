"""Checked by mypy (`make typecheck`, pyproject's `[tool.mypy] files`), never run: a misspelt
tool error code is a type error.

Each line below must fail type checking: `--strict` includes `warn_unused_ignores`, so if any of
them ever type-checks (the code became a plain `str`), its `type: ignore` is unused and mypy
fails `make test`.
"""

from __future__ import annotations

from spotter.domain.errors import DomainError
from spotter.tools.errors import CallRefused, ToolError

ToolError("not_fuond", "A misspelt code.")  # type: ignore[arg-type]
ToolError("internal_error", "Not a code of the vocabulary.")  # type: ignore[arg-type]
DomainError("forbidden", "A runner's code is not the domain's.")  # type: ignore[arg-type]
CallRefused("not_found", "A domain code is not the runner's.")  # type: ignore[arg-type]

# and the right spellings pass
ToolError("not_found", "No such program in this organization.")
CallRefused("forbidden", "programs.archive is not available to your role.")
