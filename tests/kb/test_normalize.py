"""Normalisation of ids, list fields and venue families."""

from __future__ import annotations

from datetime import date

import pytest

from foresci.kb.models import VENUE_FAMILIES
from foresci.kb.normalize import (
    FieldError,
    id_month,
    normalize_arxiv_id,
    parse_list_field,
    venue_from_comment,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2503.11731", "2503.11731"),
        ("2503.11731v3", "2503.11731"),
        ("arXiv:2503.11731v2", "2503.11731"),
        ("https://arxiv.org/abs/2503.11731v1", "2503.11731"),
        ("hep-th/9901001v2", "hep-th/9901001"),
        (" 2401.00001 ", "2401.00001"),
    ],
)
def test_ids_lose_prefix_and_version(raw: str, expected: str) -> None:
    assert normalize_arxiv_id(raw) == expected


@pytest.mark.parametrize("raw", ["", None, "hello world", "25031.1731", ["2503.11731"], True])
def test_bad_ids_name_the_field(raw: object) -> None:
    with pytest.raises(FieldError) as error:
        normalize_arxiv_id(raw)
    assert error.value.field == "id"


def test_id_month() -> None:
    assert id_month("2503.11731") == date(2025, 3, 1)
    assert id_month("hep-th/9901001") == date(1999, 1, 1)


def test_list_fields_accept_stringified_lists() -> None:
    assert parse_list_field("['A B', 'C  D']", "authors") == ["A B", "C D"]
    assert parse_list_field(["cs.CV", "cs.RO"], "categories") == ["cs.CV", "cs.RO"]
    assert parse_list_field("cs.CL cs.AI", "categories") == ["cs.CL", "cs.AI"]
    assert parse_list_field("A, B and C", "authors", separator=r",\s*|\s+and\s+") == ["A", "B", "C"]
    with pytest.raises(FieldError):
        parse_list_field("[1, 2]", "authors")


@pytest.mark.parametrize(
    ("comment", "family", "year"),
    [
        ("Accepted to CVPR 2026", "CVPR/ICCV/ECCV", 2026),
        ("ICCV'25 highlight", "CVPR/ICCV/ECCV", 2025),
        ("Findings of EMNLP 2025, 9 pages", "ACL/EMNLP/NAACL", 2025),
        ("Camera-ready for NAACL 2025", "ACL/EMNLP/NAACL", 2025),
        ("NeurIPS 2025 (spotlight)", "ICLR/ICML/NeurIPS", 2025),
        ("Published at AAAI-26", "AAAI/IJCAI", 2026),
        ("KDD 2025 ADS track", "SIGIR/KDD", 2025),
        ("Accepted by ICLR", "ICLR/ICML/NeurIPS", None),
    ],
)
def test_venue_family_from_comment(comment: str, family: str, year: int | None) -> None:
    assert family in VENUE_FAMILIES
    assert venue_from_comment(comment) == (family, year)


@pytest.mark.parametrize(
    "comment",
    [
        None,
        "",
        "12 pages, 5 figures",
        "Submitted to NeurIPS 2025",
        "Under review at ICLR 2026",
        "oracle ACLs for access control",
    ],
)
def test_no_venue_without_acceptance(comment: str | None) -> None:
    assert venue_from_comment(comment) == (None, None)
