"""Issue 26 item 4: every write's audit label is `<resource>.<words>` whose verb is a real
English past tense, checked against a dictionary (lemminflect's, offline), not a list we keep."""

from __future__ import annotations

import re

from lemminflect import getAllInflections, getAllLemmas

from spotter.tools.catalog import load_catalog
from spotter.tools.router import derived_audit

# A phrasal verb's particle may follow its verb: `booking.checked_in`.
PARTICLES = frozenset({"in", "out", "up", "off", "back"})
WORD = re.compile(r"^[a-z]+$")


def is_past_tense(word: str) -> bool:
    """A dictionary verb's past tense or participle (`sent`, `set`, `cancelled`); a reversal
    (`untagged`, `unpublished`) is `un` + one."""
    for lemma in getAllLemmas(word).get("VERB", ()):
        forms = getAllInflections(lemma, upos="VERB")
        if word in (*forms.get("VBD", ()), *forms.get("VBN", ())):
            return True
    return word.startswith("un") and len(word) > 4 and is_past_tense(word[2:])


def past_tense_verb(label: str) -> str:
    words = label.partition(".")[2].split("_")
    while len(words) > 1 and words[-1] in PARTICLES:
        words.pop()
    return words[-1]


def test_every_audit_label_is_a_real_word_in_plain_past_tense() -> None:
    writes = [s for s in load_catalog().specs.values() if s.side_effects == "write"]
    assert len(writes) > 100  # the whole catalog, not a sample
    wrong = []
    for spec in writes:
        assert spec.audit is not None, f"{spec.name} is a write without an audit label"
        label = spec.audit.action_label
        resource, _, action = label.partition(".")
        words = action.split("_")
        if (
            resource != spec.audit.resource
            or not all(WORD.match(w) for w in words)
            or not is_past_tense(past_tense_verb(label))
        ):
            wrong.append(f"{spec.name}: {label}")
    assert wrong == []


def test_the_dictionary_check_refuses_what_the_admin_view_used_to_show() -> None:
    for label in (
        "message.sended",
        "announcement.sended",
        "membership.creditsed",
        "membership.invitations_sended",
        "booking.no_show",
        "workout.upserted",
    ):
        assert not is_past_tense(past_tense_verb(label)), label
    assert is_past_tense(past_tense_verb("booking.checked_in"))
    assert is_past_tense(past_tense_verb("lead.untagged"))


def test_send_is_derived_as_sent() -> None:
    assert derived_audit("message", "send").action_label == "message.sent"
    assert derived_audit("membership", "send_invitations").action_label == (
        "membership.invitations_sent"
    )
