"""Named subsets of the MCP tool list, served at `/mcp/{toolset}` for clients that cap how many
tools they take (VS Code: 128 a request; Cursor historically ~40). The full list stays at `/mcp`.

A toolset is a few routers (every action of them the caller's role may use) plus the `read_*`
lookups its work needs, kept at most `MAX_TOOLS` for every role and org flag (a test holds it).
Sizes in Claude tokens are in docs/mcp.md (`spotter mcp-doc`).
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_TOOLS = 40


@dataclass(frozen=True)
class Toolset:
    name: str
    description: str
    routers: frozenset[str]
    reads: frozenset[str]  # actions of the `read` router it adds

    def holds(self, router: str, action: str) -> bool:
        return router in self.routers or (router == "read" and action in self.reads)


def _toolset(name: str, description: str, routers: str, reads: str) -> Toolset:
    return Toolset(name, description, frozenset(routers.split()), frozenset(reads.split()))


TOOLSETS: dict[str, Toolset] = {
    t.name: t
    for t in (
        _toolset(
            "schedule", "Classes, sessions, coaches, bookings and check-ins.",
            "class_sessions class_types bookings",
            "class_types coaches schedule session find_members member org",
        ),
        _toolset(
            "programming", "Programs, workouts, daily programming and program templates.",
            "programs workouts daily_programming program_templates",
            "programs workouts exercises schedule org",
        ),
        _toolset(
            "members", "Memberships, plans, invitations and program assignments.",
            "memberships assignments",
            "find_members member programs org",
        ),
        _toolset(
            "forms", "Forms, waivers and their submissions.", "forms", "find_members member org"
        ),
        _toolset("leads", "Leads, pipelines and tasks.", "leads tasks", "coaches org"),
        _toolset(
            "messages", "Email to members, announcements, automations and the inbox.",
            "messages announcements automations inbox",
            "find_members member org",
        ),
        _toolset(
            "analytics", "Attendance, retention, revenue reports and the help center.",
            "analytics help",
            "org schedule member find_members programs class_types coaches",
        ),
    )
}  # fmt: skip
