"""What the template gives the functions of the database (issue 22): the app role's secret only
(never the owner's), through RDS Proxy, which knows only that secret; each function's pool holds
what one request of it uses at once (docs/deploy.md, "Connections")."""

from __future__ import annotations

from typing import Any

from spotter.agent.run.tool_batch import MAX_PARALLEL_READS
from tests.integration.deploy.conftest import template

# a run: its parallel reads, its event log's flush or heartbeat, the new conversation's title
RUN_CONNECTIONS = MAX_PARALLEL_READS + 2
RUNS = ("SendFunction", "ConfirmFunction", "PickFunction", "ChatFunction")


def _functions() -> dict[str, Any]:
    return {
        name: r["Properties"]
        for name, r in template()["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function"
    }


def _environment(properties: dict[str, Any]) -> dict[str, Any]:
    shared = template()["Globals"]["Function"]["Environment"]["Variables"]
    return {**shared, **properties.get("Environment", {}).get("Variables", {})}


def test_only_the_migration_can_read_the_owners_secret() -> None:
    for name, properties in _functions().items():
        secret = _environment(properties)["APP_DATABASE_SECRET_ARN"]
        assert secret == {"Ref": "AppDatabaseSecret"}, name
    naming_the_owner = {
        name for name, r in template()["Resources"].items() if "MasterUserSecret" in str(r)
    }
    assert naming_the_owner == {"MigrationFunction"}


def test_the_proxy_authenticates_the_app_role_only() -> None:
    proxy = template()["Resources"]["DatabaseProxy"]["Properties"]
    assert [a["SecretArn"] for a in proxy["Auth"]] == [{"Ref": "AppDatabaseSecret"}]
    secret = template()["Resources"]["AppDatabaseSecret"]["Properties"]["GenerateSecretString"]
    assert '"username": "spotter_app"' in secret["SecretStringTemplate"]


def test_each_pool_holds_what_one_request_uses_at_once() -> None:
    sizes = {name: int(_environment(p)["DB_POOL_MAX_SIZE"]) for name, p in _functions().items()}
    assert {sizes[name] for name in RUNS} == {RUN_CONNECTIONS}
    # one transaction at a time: a read, an undo, a follower's poll or a stop
    assert sizes["ReadsFunction"] == sizes["UndoFunction"] == sizes["StreamFunction"] == 1
    assert all(size <= RUN_CONNECTIONS for size in sizes.values())
