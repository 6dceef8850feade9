"""Email senders: the one interface outbox delivery calls, an SES implementation and a local one.

A sender answers one of three ways, and delivery treats them differently:
- it returns the provider's message id: accepted (`delivered`);
- it raises `SendRejected`: the provider answered and refused (nothing was sent; `failed`);
- anything else it raises (a timeout, a dropped connection) leaves the outcome unknown: the
  provider may have accepted the message, so it is recorded `outcome_unknown`, never retried.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class OutboundEmail:
    to_address: str
    to_name: str | None
    subject: str
    body: str
    # the outbox row: a provider tag, so a message found at the provider traces back to its row
    outbox_id: str


class SendRejected(Exception):
    """The provider answered and did not accept the message: it was not sent."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class EmailSender(Protocol):
    async def send(self, email: OutboundEmail) -> str:
        """Hand the message to the provider; the provider's message id."""
        ...


@dataclass
class RecordingSender:
    """The local sender (make dev, tests): records what would have been sent and accepts it.

    `reject` / `interrupt` make the next sends fail the two ways a provider can, for tests.
    """

    sent: list[OutboundEmail] = field(default_factory=list)
    reject: SendRejected | None = None
    interrupt: BaseException | None = None

    async def send(self, email: OutboundEmail) -> str:
        if self.interrupt is not None:
            raise self.interrupt
        if self.reject is not None:
            raise self.reject
        self.sent.append(email)
        return f"local-{uuid.uuid4()}"


def _display(name: str | None, address: str) -> str:
    if not name:
        return address
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{quoted}" <{address}>'


class SesSender:
    """Amazon SES (v2 API) through boto3.

    botocore retries are off: a retried send after a read timeout could mail the person twice,
    and a timeout must surface as an unknown outcome instead. boto3 is imported on first use, so
    functions that never send mail do not pay for it at cold start.
    """

    def __init__(
        self,
        *,
        from_address: str,
        region: str | None = None,
        configuration_set: str | None = None,
        client: Any = None,
    ) -> None:
        self.from_address = from_address
        self.region = region
        self.configuration_set = configuration_set
        self._client = client

    def _ses(self) -> Any:
        if self._client is None:
            import boto3
            from botocore.config import Config

            config = Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=10)
            self._client = boto3.client("sesv2", region_name=self.region, config=config)
        return self._client

    def _request(self, email: OutboundEmail) -> dict[str, Any]:
        request: dict[str, Any] = {
            "FromEmailAddress": self.from_address,
            "Destination": {"ToAddresses": [_display(email.to_name, email.to_address)]},
            "Content": {
                "Simple": {
                    "Subject": {"Data": email.subject, "Charset": "UTF-8"},
                    "Body": {"Text": {"Data": email.body, "Charset": "UTF-8"}},
                }
            },
            "EmailTags": [{"Name": "outbox_id", "Value": email.outbox_id}],
        }
        if self.configuration_set:
            request["ConfigurationSetName"] = self.configuration_set
        return request

    async def send(self, email: OutboundEmail) -> str:
        import asyncio

        from botocore.exceptions import ClientError

        ses = self._ses()
        try:
            # boto3 is synchronous: run the call off the event loop
            answer = await asyncio.to_thread(ses.send_email, **self._request(email))
        except ClientError as exc:
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 400)
            if status >= 500:
                raise  # the service failed mid-request: it may have sent it (unknown)
            error = exc.response.get("Error", {})
            raise SendRejected(
                str(error.get("Code", "ClientError")), str(error.get("Message", ""))
            ) from exc
        return str(answer["MessageId"])
