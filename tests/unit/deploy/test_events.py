"""Every sample event in events/ is one the tests replay, and each is well formed for its source."""

from __future__ import annotations

import json

import pytest

from tests.support.events import (
    EVENTS_DIR,
    MIGRATION_EVENTS,
    READS_EVENTS,
    SCHEDULED_EVENTS,
    STREAMING_EVENTS,
    as_http,
    load_event,
)

URL_EVENTS = STREAMING_EVENTS + READS_EVENTS


def test_every_event_file_is_replayed_by_a_test() -> None:
    files = {p.stem for p in EVENTS_DIR.glob("*.json")} - {"local-env"}
    assert files == set(URL_EVENTS + MIGRATION_EVENTS + SCHEDULED_EVENTS)


@pytest.mark.parametrize("name", URL_EVENTS)
def test_function_url_events_are_payload_v2(name: str) -> None:
    event = load_event(name)
    assert event["version"] == "2.0"
    assert event["rawPath"] == event["requestContext"]["http"]["path"]
    assert event["headers"]["authorization"].startswith("Bearer ")
    request = as_http(event)
    posts = name in STREAMING_EVENTS and name != "stream"  # following a stream is a GET
    assert request.method == ("POST" if posts else "GET")
    if request.body:
        assert event["headers"]["content-type"] == "application/json"
        json.loads(request.body)


@pytest.mark.parametrize("name", MIGRATION_EVENTS)
def test_custom_resource_events_match_their_request_type(name: str) -> None:
    event = load_event(name)
    assert event["RequestType"].lower() == name.removeprefix("migrate-")
    assert event["ResponseURL"].startswith("https://")
    assert event["ResourceProperties"]["LayerVersion"]
    assert ("PhysicalResourceId" in event) == (event["RequestType"] != "Create")


@pytest.mark.parametrize("name", SCHEDULED_EVENTS)
def test_scheduled_events_come_from_the_scheduler(name: str) -> None:
    event = load_event(name)
    assert event["source"] == "aws.scheduler"
    assert event["detail-type"] == "Scheduled Event"
