"""Lead pipelines and their ordered stages: the boards leads move across."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError, not_found
from spotter.domain.refusals import refused

MAX_STAGES = 12


def stage_out(row: dict[str, Any]) -> dict[str, Any]:
    out = {"id": str(row["id"]), "name": row["name"], "position": row["position"]}
    if "open_leads" in row:
        out["openLeads"] = row["open_leads"]
    return out


def pipeline_out(row: dict[str, Any], stages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "isDefault": row["is_default"],
        "status": row["status"],
        "stages": [stage_out(s) for s in stages],
    }


async def _stages(scope: OrgScope, pipeline_ids: list[UUID]) -> dict[UUID, list[dict[str, Any]]]:
    cur = await scope.conn.execute(
        "SELECT s.id, s.pipeline_id, s.name, s.position,"
        " (SELECT count(*) FROM leads l WHERE l.stage_id = s.id AND l.status = 'open'"
        "   AND l.organization_id = s.organization_id)::int AS open_leads"
        " FROM lead_stages s WHERE s.organization_id = %s AND s.pipeline_id = ANY(%s)"
        " ORDER BY s.pipeline_id, s.position",
        (scope.org_id, pipeline_ids),
    )
    by_pipeline: dict[UUID, list[dict[str, Any]]] = {pid: [] for pid in pipeline_ids}
    for row in await cur.fetchall():
        by_pipeline[row["pipeline_id"]].append(row)
    return by_pipeline


async def list_pipelines(scope: OrgScope, *, include_archived: bool) -> list[dict[str, Any]]:
    cur = await scope.conn.execute(
        "SELECT id, name, is_default, status FROM lead_pipelines"
        " WHERE organization_id = %s AND (%s OR status = 'active')"
        " ORDER BY is_default DESC, lower(name), id",
        (scope.org_id, include_archived),
    )
    rows = await cur.fetchall()
    stages = await _stages(scope, [r["id"] for r in rows])
    return [pipeline_out(r, stages[r["id"]]) for r in rows]


async def _pipeline_row(
    scope: OrgScope, pipeline_id: UUID, *, lock: bool = False
) -> dict[str, Any]:
    cur = await scope.conn.execute(
        "SELECT id, name, is_default, status FROM lead_pipelines"
        " WHERE id = %s AND organization_id = %s AND status = 'active'"
        + (" FOR UPDATE" if lock else ""),
        (pipeline_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("pipeline")
    return row


async def get_pipeline(scope: OrgScope, pipeline_id: UUID) -> dict[str, Any]:
    row = await _pipeline_row(scope, pipeline_id)
    stages = await _stages(scope, [pipeline_id])
    return pipeline_out(row, stages[pipeline_id])


async def get_stage(scope: OrgScope, stage_id: UUID) -> dict[str, Any]:
    """A stage of an active pipeline, with its pipeline's id and name."""
    cur = await scope.conn.execute(
        "SELECT s.id, s.name, s.position, s.pipeline_id, p.name AS pipeline_name"
        " FROM lead_stages s JOIN lead_pipelines p ON p.id = s.pipeline_id"
        " WHERE s.id = %s AND s.organization_id = %s AND p.status = 'active'",
        (stage_id, scope.org_id),
    )
    row = await cur.fetchone()
    if row is None:
        raise not_found("stage")
    return row


async def first_stage(scope: OrgScope, pipeline_id: UUID | None) -> dict[str, Any]:
    """The first stage of the given pipeline, or of the org's default (else oldest) pipeline."""
    cur = await scope.conn.execute(
        "SELECT s.id, s.name, s.position, s.pipeline_id, p.name AS pipeline_name"
        " FROM lead_stages s JOIN lead_pipelines p ON p.id = s.pipeline_id"
        " WHERE s.organization_id = %s AND p.status = 'active'"
        " AND (%s::uuid IS NULL OR p.id = %s)"
        " ORDER BY p.is_default DESC, p.created_at, s.position LIMIT 1",
        (scope.org_id, pipeline_id, pipeline_id),
    )
    row = await cur.fetchone()
    if row is None:
        if pipeline_id is not None:
            raise not_found("pipeline")
        raise refused("no_pipeline", "Create a lead pipeline first.")
    return row


async def _name_taken(scope: OrgScope, name: str, except_id: UUID | None) -> bool:
    cur = await scope.conn.execute(
        "SELECT 1 FROM lead_pipelines WHERE organization_id = %s AND status = 'active'"
        " AND lower(name) = lower(%s) AND id IS DISTINCT FROM %s",
        (scope.org_id, name, except_id),
    )
    return await cur.fetchone() is not None


def _check_stage_names(names: list[str]) -> None:
    lowered = [n.lower() for n in names]
    if len(set(lowered)) != len(lowered):
        raise DomainError("conflict", "Stage names in a pipeline must differ.")
    if not 1 <= len(names) <= MAX_STAGES:
        raise DomainError("invalid_args", f"A pipeline has 1 to {MAX_STAGES} stages.")


async def _clear_default(scope: OrgScope) -> None:
    await scope.conn.execute(
        "UPDATE lead_pipelines SET is_default = false, updated_at = now()"
        " WHERE organization_id = %s AND is_default",
        (scope.org_id,),
    )


async def create_pipeline(
    scope: OrgScope, *, name: str, stages: list[str], make_default: bool
) -> dict[str, Any]:
    _check_stage_names(stages)
    if await _name_taken(scope, name, None):
        raise DomainError("conflict", f"A pipeline named {name!r} already exists.")
    cur = await scope.conn.execute(
        "SELECT NOT EXISTS (SELECT 1 FROM lead_pipelines WHERE organization_id = %s"
        " AND status = 'active') AS first",
        (scope.org_id,),
    )
    first = await cur.fetchone()
    make_default = make_default or bool(first and first["first"])
    if make_default:
        await _clear_default(scope)
    cur = await scope.conn.execute(
        "INSERT INTO lead_pipelines (organization_id, name, is_default) VALUES (%s, %s, %s)"
        " RETURNING id",
        (scope.org_id, name, make_default),
    )
    row = await cur.fetchone()
    assert row is not None
    for position, stage in enumerate(stages):
        await scope.conn.execute(
            "INSERT INTO lead_stages (organization_id, pipeline_id, name, position)"
            " VALUES (%s, %s, %s, %s)",
            (scope.org_id, row["id"], stage, position),
        )
    return await get_pipeline(scope, row["id"])


async def update_pipeline(
    scope: OrgScope, pipeline_id: UUID, *, name: str | None, make_default: bool
) -> dict[str, Any]:
    """Rename and/or make default; the output's `previousName` lets an undo rename back."""
    current = await _pipeline_row(scope, pipeline_id, lock=True)
    if name is not None and await _name_taken(scope, name, pipeline_id):
        raise DomainError("conflict", f"A pipeline named {name!r} already exists.")
    if make_default and not current["is_default"]:
        await _clear_default(scope)
    await scope.conn.execute(
        "UPDATE lead_pipelines SET name = coalesce(%s, name), is_default = is_default OR %s,"
        " updated_at = now() WHERE id = %s AND organization_id = %s",
        (name, make_default, pipeline_id, scope.org_id),
    )
    return {**await get_pipeline(scope, pipeline_id), "previousName": current["name"]}


async def count_open_leads(scope: OrgScope, pipeline_id: UUID) -> int:
    cur = await scope.conn.execute(
        "SELECT count(*)::int AS n FROM leads WHERE organization_id = %s AND pipeline_id = %s"
        " AND status = 'open'",
        (scope.org_id, pipeline_id),
    )
    row = await cur.fetchone()
    return int(row["n"]) if row else 0


async def check_archivable(
    scope: OrgScope, pipeline_id: UUID, *, lock: bool = False
) -> dict[str, Any]:
    """Refused while it holds open leads (move or close them first) or is the default."""
    current = await _pipeline_row(scope, pipeline_id, lock=lock)
    if current["is_default"]:
        raise refused(
            "pipeline_is_default", "Make another pipeline the default before archiving this one."
        )
    open_leads = await count_open_leads(scope, pipeline_id)
    if open_leads:
        raise refused(
            "pipeline_has_open_leads",
            "Move or close the pipeline's open leads first.",
            openLeads=open_leads,
        )
    return current


async def archive_pipeline(scope: OrgScope, pipeline_id: UUID) -> dict[str, Any]:
    current = await check_archivable(scope, pipeline_id, lock=True)
    await scope.conn.execute(
        "UPDATE lead_pipelines SET status = 'archived', updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (pipeline_id, scope.org_id),
    )
    return {"id": str(pipeline_id), "name": current["name"], "status": "archived"}


async def _stage_count(scope: OrgScope, pipeline_id: UUID) -> int:
    cur = await scope.conn.execute(
        "SELECT count(*)::int AS n FROM lead_stages"
        " WHERE organization_id = %s AND pipeline_id = %s",
        (scope.org_id, pipeline_id),
    )
    row = await cur.fetchone()
    return int(row["n"]) if row else 0


async def _stage_name_taken(
    scope: OrgScope, pipeline_id: UUID, name: str, except_id: UUID | None
) -> bool:
    cur = await scope.conn.execute(
        "SELECT 1 FROM lead_stages WHERE organization_id = %s AND pipeline_id = %s"
        " AND lower(name) = lower(%s) AND id IS DISTINCT FROM %s",
        (scope.org_id, pipeline_id, name, except_id),
    )
    return await cur.fetchone() is not None


async def create_stage(
    scope: OrgScope, pipeline_id: UUID, *, name: str, position: int | None
) -> dict[str, Any]:
    """Insert at `position` (0-based; default: last), shifting later stages down."""
    await _pipeline_row(scope, pipeline_id, lock=True)
    count = await _stage_count(scope, pipeline_id)
    if count >= MAX_STAGES:
        raise DomainError("invalid_args", f"A pipeline has at most {MAX_STAGES} stages.")
    if await _stage_name_taken(scope, pipeline_id, name, None):
        raise DomainError("conflict", f"The pipeline already has a stage named {name!r}.")
    at = count if position is None else min(position, count)
    await scope.conn.execute(
        "UPDATE lead_stages SET position = position + 1"
        " WHERE organization_id = %s AND pipeline_id = %s AND position >= %s",
        (scope.org_id, pipeline_id, at),
    )
    cur = await scope.conn.execute(
        "INSERT INTO lead_stages (organization_id, pipeline_id, name, position)"
        " VALUES (%s, %s, %s, %s) RETURNING id, name, position",
        (scope.org_id, pipeline_id, name, at),
    )
    row = await cur.fetchone()
    assert row is not None
    return {**stage_out(row), "pipelineId": str(pipeline_id)}


async def rename_stage(scope: OrgScope, stage_id: UUID, *, name: str) -> dict[str, Any]:
    stage = await get_stage(scope, stage_id)
    if await _stage_name_taken(scope, stage["pipeline_id"], name, stage_id):
        raise DomainError("conflict", f"The pipeline already has a stage named {name!r}.")
    await scope.conn.execute(
        "UPDATE lead_stages SET name = %s WHERE id = %s AND organization_id = %s",
        (name, stage_id, scope.org_id),
    )
    return {
        "id": str(stage_id),
        "name": name,
        "previousName": stage["name"],
        "pipelineId": str(stage["pipeline_id"]),
    }


async def reorder_stages(
    scope: OrgScope, pipeline_id: UUID, stage_ids: list[UUID]
) -> dict[str, Any]:
    """`stage_ids` must be exactly the pipeline's stages, in their new order."""
    await _pipeline_row(scope, pipeline_id, lock=True)
    cur = await scope.conn.execute(
        "SELECT id FROM lead_stages WHERE organization_id = %s AND pipeline_id = %s"
        " ORDER BY position",
        (scope.org_id, pipeline_id),
    )
    previous = [r["id"] for r in await cur.fetchall()]
    if len(stage_ids) != len(set(stage_ids)) or set(stage_ids) != set(previous):
        raise DomainError(
            "invalid_args", "List every stage of the pipeline exactly once, in the new order."
        )
    # the position key is deferred: permuting inside the transaction is fine
    await scope.conn.execute(
        "UPDATE lead_stages s SET position = o.ord - 1"
        " FROM unnest(%s::uuid[]) WITH ORDINALITY AS o(id, ord)"
        " WHERE s.id = o.id AND s.organization_id = %s",
        (stage_ids, scope.org_id),
    )
    return {
        **await get_pipeline(scope, pipeline_id),
        "previousOrder": [str(s) for s in previous],
    }


async def check_stage_deletable(
    scope: OrgScope, stage_id: UUID, move_to_stage_id: UUID | None
) -> tuple[dict[str, Any], int]:
    """The stage and how many leads (any status) it holds; refused when they have nowhere to go."""
    stage = await get_stage(scope, stage_id)
    if await _stage_count(scope, stage["pipeline_id"]) <= 1:
        raise refused("last_stage", "A pipeline keeps at least one stage.")
    cur = await scope.conn.execute(
        "SELECT count(*)::int AS n FROM leads WHERE organization_id = %s AND stage_id = %s",
        (scope.org_id, stage_id),
    )
    row = await cur.fetchone()
    holding = int(row["n"]) if row else 0
    if holding and move_to_stage_id is None:
        raise refused(
            "stage_has_leads",
            "Say which stage of the pipeline its leads move to (moveToStageId).",
            leads=holding,
        )
    if move_to_stage_id is not None:
        target = await get_stage(scope, move_to_stage_id)
        if target["pipeline_id"] != stage["pipeline_id"] or move_to_stage_id == stage_id:
            raise DomainError("invalid_args", "Move the leads to another stage of this pipeline.")
    return stage, holding


async def delete_stage(
    scope: OrgScope, stage_id: UUID, *, move_to_stage_id: UUID | None
) -> dict[str, Any]:
    """Delete a stage; its leads (any status) move to `move_to_stage_id` of the same pipeline."""
    stage = await get_stage(scope, stage_id)
    await _pipeline_row(scope, stage["pipeline_id"], lock=True)
    stage, holding = await check_stage_deletable(scope, stage_id, move_to_stage_id)
    pipeline_id = stage["pipeline_id"]
    moved = 0
    if holding:
        cur = await scope.conn.execute(
            "UPDATE leads SET stage_id = %s, updated_at = now()"
            " WHERE organization_id = %s AND stage_id = %s",
            (move_to_stage_id, scope.org_id, stage_id),
        )
        moved = cur.rowcount
    await scope.conn.execute(
        "DELETE FROM lead_stages WHERE id = %s AND organization_id = %s", (stage_id, scope.org_id)
    )
    await scope.conn.execute(
        "UPDATE lead_stages s SET position = o.ord - 1 FROM ("
        "  SELECT id, row_number() OVER (ORDER BY position) AS ord FROM lead_stages"
        "   WHERE organization_id = %s AND pipeline_id = %s) o"
        " WHERE s.id = o.id",
        (scope.org_id, pipeline_id),
    )
    return {"id": str(stage_id), "name": stage["name"], "deleted": True, "movedLeads": moved}
