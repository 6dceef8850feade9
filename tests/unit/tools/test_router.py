"""Router declarations: defaults, derived audit labels, typed inverses."""

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
