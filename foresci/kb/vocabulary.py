"""The BM25 vocabulary as a memory-mapped sorted term table: a search process looks its query's terms
up by binary search instead of parsing every term.

``bm25_vocabulary.json`` (the terms by column) takes ~30 ms to parse and turn into a dict for the real
KB's 126k terms, in every search process. ``bm25_terms.bin`` holds the same vocabulary sorted by the terms'
UTF-8 bytes, with the column of each: opening it maps the file and reads a 24-byte header; a lookup reads
about 17 terms. Layout (little-endian)::

    b"FSTERMS1"  uint64 n  uint64 blob_bytes
    uint64 offsets[n + 1]   (term i is blob[offsets[i]:offsets[i + 1]])
    uint32 columns[n]       (the BM25 column of term i)
    blob                    (the sorted terms' UTF-8 bytes, concatenated)

New KBs write it beside the JSON (which updates and older foresci versions read); a KB without it gets
one derived into its cache folder (:meth:`foresci.kb.store.KnowledgeBase.bm25_postings`).
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

TERMS_FILE = "bm25_terms.bin"
MAGIC = b"FSTERMS1"
HEADER = struct.Struct("<8sQQ")


def write_terms(path: Path, vocabulary: Mapping[str, int]) -> None:
    """Write ``vocabulary`` (term -> column) as a sorted term table at ``path`` (atomically)."""
    import numpy as np

    from foresci.core.io import atomic_path

    encoded = sorted((term.encode("utf-8"), column) for term, column in vocabulary.items())
    offsets = np.zeros(len(encoded) + 1, dtype="<u8")
    np.cumsum([len(term) for term, _ in encoded], out=offsets[1:])
    columns = np.fromiter((column for _, column in encoded), dtype="<u4", count=len(encoded))
    blob = b"".join(term for term, _ in encoded)
    with atomic_path(path) as temporary, Path(temporary).open("wb") as handle:
        handle.write(HEADER.pack(MAGIC, len(encoded), len(blob)))
        handle.write(offsets.tobytes())
        handle.write(columns.tobytes())
        handle.write(blob)


def append_terms(source: Path, path: Path, added: Sequence[str], first_column: int) -> None:
    """Write at ``path`` the term table at ``source`` plus the new terms ``added`` (columns
    ``first_column``, ``first_column + 1``...): byte for byte what :func:`write_terms` writes for the
    whole vocabulary, but without sorting the old terms again. Each new term is placed by binary search
    and the old table is copied around them, so the cost is a copy of the file plus the new terms'
    searches (an update's few hundred terms, not the KB's 126k)."""
    import bisect

    import numpy as np

    from foresci.core.io import atomic_path

    data = Path(source).read_bytes()
    magic, count, blob_bytes = HEADER.unpack_from(data, 0)
    columns_start = HEADER.size + 8 * (count + 1)
    blob_start = columns_start + 4 * count
    if magic != MAGIC or blob_start + blob_bytes != len(data):
        raise ValueError(f"{source}: not a foresci term table (bad header or size)")
    offsets = np.frombuffer(data, dtype="<u8", count=count + 1, offset=HEADER.size)
    columns = np.frombuffer(data, dtype="<u4", count=count, offset=columns_start)
    blob = memoryview(data)[blob_start:]
    starts = offsets.tolist()

    class _Terms:  # the old terms as a sequence, for bisect
        def __len__(self) -> int:
            return int(count)

        def __getitem__(self, index: int) -> bytes:
            return bytes(blob[starts[index] : starts[index + 1]])

    new = sorted((term.encode("utf-8"), first_column + number) for number, term in enumerate(added))
    positions = [bisect.bisect_left(_Terms(), term) for term, _ in new]  # type: ignore[call-overload]
    lengths = np.insert(np.diff(offsets), positions, [len(term) for term, _ in new]).astype("<u8")
    merged_columns = np.insert(columns, positions, [column for _, column in new]).astype("<u4")
    merged_offsets = np.zeros(len(lengths) + 1, dtype="<u8")
    np.cumsum(lengths, out=merged_offsets[1:])
    pieces: list[bytes | memoryview] = []
    previous = 0
    for (term, _), position in zip(new, positions, strict=True):
        pieces += [blob[starts[previous] : starts[position]], term]
        previous = position
    pieces.append(blob[starts[previous] :])
    merged_blob = b"".join(pieces)
    with atomic_path(path) as temporary, Path(temporary).open("wb") as handle:
        handle.write(HEADER.pack(MAGIC, len(lengths), len(merged_blob)))
        handle.write(merged_offsets.tobytes())
        handle.write(merged_columns.tobytes())
        handle.write(merged_blob)


class MappedVocabulary(Mapping[str, int]):
    """A read-only term -> column mapping over a memory-mapped :func:`write_terms` file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        with self.path.open("rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        if len(self._map) < HEADER.size:
            raise ValueError(f"{self.path}: too short for a term table")
        magic, count, blob_bytes = HEADER.unpack_from(self._map, 0)
        offsets_start = HEADER.size
        columns_start = offsets_start + 8 * (count + 1)
        self._blob_start = columns_start + 4 * count
        if magic != MAGIC or self._blob_start + blob_bytes != len(self._map):
            raise ValueError(f"{self.path}: not a foresci term table (bad header or size)")
        view = memoryview(self._map)
        self._offsets = view[offsets_start:columns_start].cast("Q")
        self._columns = view[columns_start : self._blob_start].cast("I")
        self._count = int(count)

    def _term(self, index: int) -> bytes:
        start = self._blob_start
        return self._map[start + self._offsets[index] : start + self._offsets[index + 1]]

    def _find(self, key: bytes) -> int:
        low, high = 0, self._count
        while low < high:
            middle = (low + high) // 2
            if self._term(middle) < key:
                low = middle + 1
            else:
                high = middle
        return low if low < self._count and self._term(low) == key else -1

    def __getitem__(self, term: str) -> int:
        index = self._find(term.encode("utf-8")) if isinstance(term, str) else -1
        if index < 0:
            raise KeyError(term)
        return int(self._columns[index])

    def get(self, term: str, default: int | None = None) -> int | None:  # type: ignore[override]
        """The column of ``term``, or ``default``."""
        index = self._find(term.encode("utf-8"))
        return int(self._columns[index]) if index >= 0 else default

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self._find(term.encode("utf-8")) >= 0

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return (self._term(index).decode("utf-8") for index in range(self._count))

    def items(self) -> Iterator[tuple[str, int]]:  # type: ignore[override]
        """(term, column) pairs in term order."""
        return (
            (self._term(index).decode("utf-8"), int(self._columns[index])) for index in range(self._count)
        )


def read_vocabulary(folder: Path) -> Mapping[str, int]:
    """The vocabulary of a generation folder: its term table mapped, else its JSON parsed."""
    import json

    table = folder / TERMS_FILE
    if table.is_file():
        return MappedVocabulary(table)
    terms = json.loads((folder / "bm25_vocabulary.json").read_text(encoding="utf-8"))
    return {term: column for column, term in enumerate(terms)}
