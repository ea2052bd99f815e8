"""The venue-status parser on 200 hand-labelled comments, and what acceptance-only means for the KB."""

from __future__ import annotations

import pytest

from foresci.kb.normalize import venue_from_comment
from foresci.kb.venue_status import STATUSES, confusion, parse_venue_status
from tests.kb.venue_comments import LABELLED


def test_sample_is_200_distinct_comments_covering_every_status() -> None:
    assert len(LABELLED) == 200
    assert len({comment for comment, _, _ in LABELLED}) == 200
    assert {status for _, status, _ in LABELLED} == set(STATUSES)


def test_confusion_on_the_labelled_sample() -> None:
    table = confusion(LABELLED)
    print("\nvenue status confusion (true -> predicted):")
    for truth, row in table.items():
        print(f"  {truth:13s} " + " ".join(f"{label}={count}" for label, count in row.items() if count))
    correct = sum(table[label][label] for label in STATUSES)
    assert correct / len(LABELLED) >= 0.95
    # what matters downstream: nothing that is not an acceptance is counted as one
    false_acceptances = sum(table[label]["accepted"] for label in STATUSES if label != "accepted")
    assert false_acceptances == 0


def test_family_is_right_whenever_an_acceptance_is_right() -> None:
    wrong = [(comment, family, parse_venue_status(comment).family) for comment, status, family in LABELLED
             if status == "accepted" and parse_venue_status(comment).status == "accepted"
             and parse_venue_status(comment).family != family]
    assert wrong == []


@pytest.mark.parametrize(("comment", "expected"), [
    ("[ICLR26 Submission]", (None, None)),
    ("Accepted at the NeurIPS 2025 Workshop on Efficient Reasoning", (None, None)),
    ("Under review at ICLR 2026", (None, None)),
    ("CVPRW 2025", (None, None)),
    ("Accepted to CVPR 2026", ("CVPR/ICCV/ECCV", 2026)),
    ("9 pages, 2 figures, 9 tables, ACL 2025", ("ACL/EMNLP/NAACL", 2025)),
    ("To appear in the Proceedings of SIGIR '25", ("SIGIR/KDD", 2025)),
    ("Accepted at CVPR 2025; extended version under review at TPAMI", ("CVPR/ICCV/ECCV", 2025)),
    ("Computer Vision and Pattern Recognition (cs.CV); Artificial Intelligence (cs.AI)", (None, None)),
])
def test_kb_venue_counts_acceptances_only(comment: str, expected: tuple[str | None, int | None]) -> None:
    assert venue_from_comment(comment) == expected
