"""The SES sender against moto's SES: accepted, refused, and a 5xx left for delivery to call
unknown; the client never retries a send by itself."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber
from moto import mock_aws
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

from spotter.providers.email import OutboundEmail, SendRejected, SesSender

REGION = "eu-west-1"
FROM = "desk@box.example"
EMAIL = OutboundEmail("ann@example.com", 'Ann "A" Bar', "Hello", "See you at 7.", "row-1")


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        yield boto3.client("sesv2", region_name=REGION)


async def test_an_accepted_send_returns_the_ses_message_id(aws: Any) -> None:
    aws.create_email_identity(EmailIdentity=FROM)
    message_id = await SesSender(from_address=FROM, region=REGION).send(EMAIL)
    sent = ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages
    assert [m.id for m in sent] == [message_id]
    assert sent[0].destinations["ToAddresses"] == ['"Ann \\"A\\" Bar" <ann@example.com>']
    assert (sent[0].subject, sent[0].body) == ("Hello", "See you at 7.")


async def test_an_unverified_sender_is_rejected_not_unknown(aws: Any) -> None:
    with pytest.raises(SendRejected) as info:
        await SesSender(from_address=FROM, region=REGION).send(EMAIL)
    assert info.value.code == "MessageRejected"


async def test_a_service_failure_is_raised_as_is_for_an_unknown_outcome(aws: Any) -> None:
    stubber = Stubber(aws)
    stubber.add_client_error("send_email", "InternalFailure", http_status_code=500)
    with stubber, pytest.raises(ClientError) as info:
        await SesSender(from_address=FROM, client=aws).send(EMAIL)
    assert info.value.response["Error"]["Code"] == "InternalFailure"


def test_the_default_client_never_retries_a_send(aws: Any) -> None:
    client = SesSender(from_address=FROM, region=REGION)._ses()
    assert client.meta.config.retries["total_max_attempts"] == 1
