"""The confirmation card of a call whose mail leaves our database (Confirmation.outbound).

Outbound cards show the message complete — subject and full body, never an excerpt — and who
gets it: the count always, the names of up to `NAMED_RECIPIENTS`. A single recipient is also
the card's target.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import Field

from spotter.domain.outbox import MAX_BODY, MAX_SUBJECT
from spotter.tools.cards import Confirmation

NAMED_RECIPIENTS = 20


def outbound_card(
    recipients: Sequence[str],
    *,
    subject: str,
    body: str,
    consequences: Sequence[str] = (),
) -> Confirmation:
    names = list(recipients)
    return Confirmation(
        target=names[0] if len(names) == 1 else None,
        affected_count=len(names),
        consequences=["email_sent", *consequences],
        outbound={
            "channel": "email",
            "subject": subject,
            "body": body,
            "recipientCount": len(names),
            "recipients": names[:NAMED_RECIPIENTS],
        },
    )


# The arguments every outbound tool takes, stated once (the model sees one schema shape).
Subject = Annotated[str, Field(min_length=1, max_length=MAX_SUBJECT)]
Body = Annotated[str, Field(min_length=1, max_length=MAX_BODY)]
