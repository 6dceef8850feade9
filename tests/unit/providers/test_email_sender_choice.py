"""Which sender the settings build: SES needs a from address; a stack without one refuses."""

from __future__ import annotations

import pytest

from spotter.config import Settings
from spotter.providers.email import (
    DisabledSender,
    OutboundEmail,
    RecordingSender,
    SendRejected,
    SesSender,
    email_sender_for,
)

EMAIL = OutboundEmail("ann@example.com", None, "S", "B", "row-1")


def test_dev_and_tests_record_instead_of_sending() -> None:
    assert isinstance(email_sender_for(Settings(environment="test")), RecordingSender)


def test_ses_is_built_with_the_verified_from_address() -> None:
    settings = Settings(email_sender="ses", email_from_address="desk@box.example")
    sender = email_sender_for(settings)
    assert isinstance(sender, SesSender) and sender.from_address == "desk@box.example"


def test_ses_without_a_from_address_is_a_configuration_error() -> None:
    with pytest.raises(RuntimeError, match="EMAIL_FROM_ADDRESS"):
        email_sender_for(Settings(email_sender="ses"))


async def test_a_stack_without_email_refuses_every_send() -> None:
    sender = email_sender_for(Settings(email_sender="none"))
    assert isinstance(sender, DisabledSender)
    with pytest.raises(SendRejected) as info:
        await sender.send(EMAIL)
    assert info.value.code == "email_not_configured"
