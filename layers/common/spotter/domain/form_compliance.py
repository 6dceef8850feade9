"""Forms' compliance: which kinds of forms an organization of each type may keep, and who may
read health answers (`withhold_health_answers`, the one rule every channel applies).

A waiver releases liability for training on the premises; a health questionnaire collects
health data, which an org may hold only where someone on site screens it (a gym or studio
floor). An online coaching business has neither, so it keeps intake forms and waivers only.
An org type not listed here has no forms at all: the gate fails closed, like an unknown tier.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

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


# Health answers are health data: owners and admins read them; a coach sees that the member
# signed (who, when, which version) and every other answer, never what they declared about their
# health. An answer is a health answer when its form is a health questionnaire, when its field is
# marked `health` (a form's editor says so), or — unmarked — when the field's words name health
# (a waiver's "Injuries or medical conditions", an intake's "Any allergies?"): an editor who
# forgets the mark still keeps them from a coach; `health: false` on a field says it is not.
HEALTH_ANSWER_READERS: frozenset[str] = frozenset({"owner", "admin"})
HEALTH_ANSWERS_WITHHELD = "Health answers are shown to owners and admins only."
_HEALTH_WORDS = re.compile(
    r"injur|medic|\bconditions?\b|health|illness|disease|disorder|pregnan|allerg|surger|"
    r"\bheart\b|blood pressure|asthma|diabet|epilep|\bpain\b|diagnos|"
    r"פציע|רפוא|מחל|בריאות|הריון|תרופ|אלרג|ניתוח|לב\b|"
    r"травм|медиц|здоров|болезн|заболев|беремен|лекарств|аллерг|операц|сердц|давлен",
    re.IGNORECASE,
)


def may_read_health(role: str | None) -> bool:
    """Whether someone of this role may read health answers (None: a reader not known)."""
    return role in HEALTH_ANSWER_READERS


def is_health_field(kind: str, field: dict[str, Any]) -> bool:
    """Whether the answers to this field of a form of this kind are health data."""
    if kind == "health":
        return True
    marked = field.get("health")
    if isinstance(marked, bool):
        return marked
    return bool(_HEALTH_WORDS.search(f"{field.get('key', '')} {field.get('label', '')}"))


def withhold_health_answers(output: Any, role: str | None) -> Any:
    """What a reader of this role may see of a submission's output (`domain.forms.submission_out`
    with its answers, live or as stored): the health answers dropped, and said so, for anyone
    but a manager. The one rule for every channel — the tool, the stream and its replay, the
    conversation read and the AI SDK history, MCP; anything else passes through unchanged."""
    if (
        may_read_health(role)
        or not isinstance(output, dict)
        or not isinstance(output.get("answers"), list)
        or "formKind" not in output
    ):
        return output
    kind = str(output["formKind"])
    answers = [a for a in output["answers"] if isinstance(a, dict)]
    health = [a for a in answers if a.get("health") is True or is_health_field(kind, _field(a))]
    if not health:
        return output
    shown = {k: v for k, v in output.items() if k != "answers"}
    kept = [a for a in answers if a not in health]
    if kept:
        shown["answers"] = kept
    shown["answersWithheld"] = HEALTH_ANSWERS_WITHHELD
    shown["withheldFields"] = [str(a.get("field")) for a in health]
    return shown


def _field(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer as the output gives it, read as its field (key and label, the mark if any)."""
    field = {"key": answer.get("field", ""), "label": answer.get("label", "")}
    if isinstance(answer.get("health"), bool):
        field["health"] = answer["health"]
    return field


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
