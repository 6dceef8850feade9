"""T0 seeds of the leads surface: the lead or the pipeline board the user is looking at.

The leads page registers `leads:lead` ({leadId}) while a lead's sheet is open and
`leads:pipeline` ({pipelineId, pipelineName}) while a board is shown; a merged selection may also
carry those keys flat. Its route is /dashboard/leads/<pipelineId>[/<leadId>], so the path alone
names them too. The lead is the more specific read, so it comes first.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

LEADS_PATH = "/dashboard/leads"


def _selected(selection: dict[str, Any], entry: str, key: str) -> str | None:
    nested = selection.get(entry)
    for source in (nested if isinstance(nested, dict) else {}, selection):
        value = source.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _path_ids(pathname: str) -> list[str]:
    path = pathname.rstrip("/")
    if not path.startswith(LEADS_PATH + "/"):
        return []
    ids = []
    for segment in path.removeprefix(LEADS_PATH + "/").split("/"):
        try:
            ids.append(str(UUID(segment)))
        except ValueError:
            continue
    return ids


def lead_seed_inputs(
    pathname: str, selection: dict[str, Any] | None
) -> list[tuple[str, dict[str, Any]]]:
    """`leads.get` for the lead shown, then `leads.list` for the pipeline shown."""
    chosen = selection or {}
    from_path = _path_ids(pathname)
    lead = _selected(chosen, "leads:lead", "leadId") or (
        from_path[1] if len(from_path) > 1 else None
    )
    pipeline = _selected(chosen, "leads:pipeline", "pipelineId") or (
        from_path[0] if from_path else None
    )
    seeds: list[tuple[str, dict[str, Any]]] = []
    if lead:
        seeds.append(("leads", {"action": "get", "args": {"leadId": lead}}))
    if pipeline:
        seeds.append(("leads", {"action": "list", "args": {"pipelineId": pipeline}}))
    return seeds
