"""The compliance org-type gate: which kinds of forms an organization of each type may keep.

A waiver releases liability for training on the premises; a health questionnaire collects
health data, which an org may hold only where someone on site screens it (a gym or studio
floor). An online coaching business has neither, so it keeps intake forms and waivers only.
An org type not listed here has no forms at all: the gate fails closed, like an unknown tier.
"""

from __future__ import annotations

from typing import Literal, get_args

from spotter.db.scope import OrgScope
from spotter.domain.errors import DomainError

FormKind = Literal["waiver", "intake", "health"]
FORM_KINDS: tuple[str, ...] = get_args(FormKind)

KINDS_BY_ORG_TYPE: dict[str, frozenset[str]] = {
    "gym": frozenset(FORM_KINDS),
    "studio": frozenset(FORM_KINDS),
    "online": frozenset({"waiver", "intake"}),
}


def allowed_kinds(org_type: str) -> frozenset[str]:
    return KINDS_BY_ORG_TYPE.get(org_type, frozenset())


# A health form's answers are health data: owners and admins read them; a coach sees that the
# member signed it (who, when, which version), not what they declared.
HEALTH_ANSWER_READERS: frozenset[str] = frozenset({"owner", "admin"})


def may_read_answers(kind: str, role: str) -> bool:
    """Whether someone of this role may read a submission's answers to a form of this kind."""
    return kind != "health" or role in HEALTH_ANSWER_READERS


def keeps_forms(org_type: str) -> bool:
    """Whether an org of this type has forms at all (else the forms tools are not offered)."""
    return bool(allowed_kinds(org_type))


async def org_type(scope: OrgScope) -> str:
    cur = await scope.conn.execute(
        "SELECT org_type FROM organizations WHERE id = %s", (scope.org_id,)
    )
    row = await cur.fetchone()
    return str(row["org_type"]) if row else ""


async def require_forms(scope: OrgScope) -> frozenset[str]:
    """The kinds this org may keep; `feature_unavailable` when its type keeps no forms."""
    kinds = allowed_kinds(await org_type(scope))
    if not kinds:
        raise DomainError(
            "feature_unavailable", "Forms are not available for this organization type."
        )
    return kinds


async def require_kind(scope: OrgScope, kind: str) -> None:
    """Creating, copying or publishing a form of `kind` needs the org type to allow it."""
    kinds = await require_forms(scope)
    if kind not in kinds:
        raise DomainError(
            "form_kind_not_allowed",
            f"A {kind} form is not available for this organization type.",
            allowed=sorted(kinds),
        )
