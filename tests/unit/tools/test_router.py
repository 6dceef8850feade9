"""Router declarations: defaults, groups, derived audit labels, typed inverses."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

from spotter.tools.args import Args
from spotter.tools.context import ToolContext
from spotter.tools.errors import ToolArgsError
from spotter.tools.router import Router, derived_audit
from spotter.tools.spec import MANAGERS, STAFF, Audit, Identified, Inverse


class ThingId(Args):
    thing_id: UUID


class Renamed(Identified):
    previous_name: str


class RenameArgs(ThingId):
    name: str


def _things() -> Router:
    things = Router("things", "Things.", roles=MANAGERS, feature_gate="things")

    @things.read("list", "List things.", roles=STAFF)
    async def list_things(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    @things.write("create", "Create a thing.")
    async def create(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    @things.write("set_colour", "Paint it.", audit=Audit("paint", "paint.applied"))
    async def paint(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    @things.write(
        "rename",
        "Rename a thing.",
        inverse=Inverse(
            "rename", Renamed, lambda out: RenameArgs(thing_id=out.id, name=out.previous_name)
        ),
    )
    async def rename(ctx: ToolContext, args: RenameArgs) -> Renamed:
        return Renamed(id=args.thing_id, previous_name="old")

    return things


def test_router_defaults_apply_unless_the_action_overrides_them() -> None:
    specs = _things().specs
    assert specs["create"].roles == MANAGERS
    assert specs["list"].roles == STAFF
    assert specs["list"].feature_gate == "things"


def test_writes_are_audited_with_a_derived_label_and_reads_are_not() -> None:
    specs = _things().specs
    assert specs["create"].audit == Audit("thing", "thing.created")
    assert specs["list"].audit is None
    assert specs["set_colour"].audit == Audit("paint", "paint.applied")


def test_derived_labels_put_the_object_first_and_the_verb_in_the_past() -> None:
    assert derived_audit("program_template", "set_days").action_label == "program_template.days_set"
    assert derived_audit("session", "cancel").action_label == "session.cancelled"
    assert derived_audit("program", "archive").action_label == "program.archived"
    assert derived_audit("inbox_thread", "reply").action_label == "inbox_thread.replied"
    assert derived_audit("lead", "untag").action_label == "lead.untagged"


def test_a_bulk_action_keeps_bulk_before_its_verb() -> None:
    assert derived_audit("lead", "bulk_move").action_label == "lead.bulk_moved"


def test_an_action_object_that_names_the_resource_is_not_repeated() -> None:
    assert derived_audit("lead_stage", "create_stage").action_label == "lead_stage.created"
    assert derived_audit("lead_pipeline", "reorder_stages").action_label == (
        "lead_pipeline.stages_reordered"
    )


def _grouped() -> Router:
    things = Router("things", "Things.", feature_gate="things")
    admin = things.group(roles=MANAGERS, confirm="always")
    parts = admin.group(resource="thing_part", confirm="destructive")

    @things.write("create", "Create a thing.")
    async def create(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    @admin.write("merge", "Merge two things.")
    async def merge(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    @admin.write("split", "Split a thing.", confirm="never")
    async def split(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    @parts.write("delete_part", "Delete a part.")
    async def delete_part(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    return things


def test_a_group_declares_into_its_router_with_its_own_defaults() -> None:
    specs = _grouped().specs
    assert sorted(specs) == ["create", "delete_part", "merge", "split"]
    assert (specs["create"].roles, specs["create"].confirm) == (STAFF, "never")
    assert (specs["merge"].roles, specs["merge"].confirm) == (MANAGERS, "always")
    assert {s.feature_gate for s in specs.values()} == {"things"}


def test_an_action_overrides_its_group_and_a_nested_group_its_parent() -> None:
    specs = _grouped().specs
    assert specs["split"].confirm == "never"
    assert (specs["delete_part"].roles, specs["delete_part"].confirm) == (MANAGERS, "destructive")


def test_a_group_resource_names_its_writes_in_their_audit_labels() -> None:
    specs = _grouped().specs
    assert specs["delete_part"].audit == Audit("thing_part", "thing_part.deleted")
    assert specs["merge"].audit == Audit("thing", "thing.merged")


def test_the_catalog_finds_grouped_actions_under_their_one_router() -> None:
    from spotter.tools.catalog import load_catalog

    catalog = load_catalog()
    assert [r.name for r in catalog.routers].count("leads") == 1
    assert catalog.specs["leads.bulk_move"].roles == MANAGERS


def test_an_unknown_option_is_refused_when_declared() -> None:
    things = Router("things", "Things.")
    with pytest.raises(TypeError, match="colour"):
        things.group(colour="red")  # type: ignore[call-arg]


def test_every_read_is_idempotent_and_a_write_only_when_declared() -> None:
    things = Router("things", "Things.")

    @things.read("list", "List.")
    async def list_things(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    @things.write("touch", "Touch.", idempotent=True)
    async def touch(ctx: ToolContext, args: ThingId) -> dict[str, Any]:
        return {}

    assert things.specs["list"].idempotent and things.specs["touch"].idempotent
    assert not _things().specs["create"].idempotent


def test_an_inverse_defaults_to_the_declaring_router() -> None:
    inverse = _things().specs["rename"].inverse
    assert inverse is not None
    assert (inverse.router, inverse.action) == ("things", "rename")


def test_an_inverse_builds_camel_case_args_from_the_stored_output() -> None:
    inverse = _things().specs["rename"].inverse
    assert inverse is not None
    thing = uuid4()
    stored = {"id": str(thing), "previousName": "old", "colour": "red"}
    assert inverse.build_input(stored) == {"thingId": str(thing), "name": "old"}


def test_a_stored_output_that_does_not_fit_the_model_is_invalid_args() -> None:
    inverse = _things().specs["rename"].inverse
    assert inverse is not None
    with pytest.raises(ToolArgsError):
        inverse.build_input({"id": "not-a-uuid"})


def test_a_handler_must_return_the_model_its_inverse_reads() -> None:
    things = Router("things", "Things.")
    with pytest.raises(TypeError, match="Renamed"):

        @things.write(
            "rename",
            "Rename.",
            inverse=Inverse("rename", Renamed, lambda out: ThingId(thing_id=out.id)),
        )
        async def rename(ctx: ToolContext, args: RenameArgs) -> dict[str, Any]:
            return {}


def test_an_output_is_stored_as_camel_case_with_its_other_keys_kept() -> None:
    thing = uuid4()
    out = Renamed.model_validate({"id": str(thing), "previousName": "old", "seats": 3})
    assert out.wire() == {"id": thing, "previousName": "old", "seats": 3}


def test_a_router_declared_twice_in_one_catalog_is_refused() -> None:
    from spotter.tools.catalog import ToolCatalog

    with pytest.raises(ValueError, match="twice"):
        ToolCatalog([_things(), _things()])
