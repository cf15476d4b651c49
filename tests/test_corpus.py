"""factory.corpus, which makes assets/text/ from the Debian package: its reader of R's serialization
(fed bytes packed here by hand) and its cleaning of a novel's lines."""

from __future__ import annotations

import gzip
import struct
import zlib

from factory import corpus


def chars(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">ii", 9 | 1 << 15, len(data)) + data  # CHARSXP, UTF-8


def strings(*texts: str, names: tuple[str, ...] | None = None) -> bytes:
    flags = 16 | (1 << 9 if names else 0)  # STRSXP, with attributes if named
    body = struct.pack(">ii", flags, len(texts)) + b"".join(chars(t) for t in texts)
    if names:
        body += struct.pack(">i", 2 | 1 << 10) + struct.pack(">i", 1) + chars("names")  # pairlist, tag: symbol
        body += strings(*names) + struct.pack(">i", 254)  # its value, then the end of the list
    return body


def serialized(item: bytes) -> bytes:
    return b"X\n" + struct.pack(">iiii", 3, 0x40201, 0x30500, 5) + b"UTF-8" + item


def test_the_reader_reads_named_and_plain_character_vectors():
    assert corpus.RReader(serialized(strings("It is a truth", ""))).item() == ["It is a truth", ""]
    named = corpus.RReader(serialized(strings("a", "b", names=("first", "second")))).item()
    assert named == {"first": "a", "second": "b"}
    na = struct.pack(">ii", 16, 1) + struct.pack(">ii", 9, -1)  # one NA string
    assert corpus.RReader(serialized(na)).item() == [None]


def test_a_lazyload_database_is_read_by_its_index(tmp_path):
    blobs = [serialized(strings("Chapter 1", "", "She smiled.")), serialized(strings("Other"))]
    packed = [struct.pack(">i", len(b)) + zlib.compress(b) for b in blobs]
    offsets = [(0, len(packed[0])), (len(packed[0]), len(packed[1]))]
    ints = [struct.pack(">ii", 13, 2) + struct.pack(">ii", *o) for o in offsets]  # INTSXP (offset, length)
    variables = struct.pack(">ii", 19 | 1 << 9, 2) + b"".join(ints)
    variables += struct.pack(">ii", 2 | 1 << 10, 1) + chars("names") + strings("book", "other") + struct.pack(">i", 254)
    index = struct.pack(">ii", 19 | 1 << 9, 1) + variables
    index += (
        struct.pack(">ii", 2 | 1 << 10, 255 | 1 << 8) + strings("variables") + struct.pack(">i", 254)
    )  # tag: ref 1, "names"
    (tmp_path / "Rdata.rdx").write_bytes(gzip.compress(serialized(index)))
    (tmp_path / "Rdata.rdb").write_bytes(b"".join(packed))
    assert corpus.read_lazyload(tmp_path / "Rdata") == {"book": ["Chapter 1", "", "She smiled."], "other": ["Other"]}


def test_cleaning_keeps_the_chapters_paragraphs():
    lines = [
        "EMMA",
        "",
        "By Jane Austen",
        "",
        "VOLUME I",
        "",
        "CHAPTER I",
        "",
        "Emma Woodhouse, handsome,",
        "clever, and _rich_.",
        "",
        "[Illustration]",
        "",
        "CHAPTER II",
        "",
        "THE END",
        "",
        "Mr. Weston  was",
        "a man.",
        None,
    ]
    assert corpus.clean("Emma", lines) == [
        "= Emma, chapter 1",
        "Emma Woodhouse, handsome, clever, and rich.",
        "= Emma, chapter 2",
        "Mr. Weston was a man.",
    ]


def test_the_text_readme_states_what_the_shipped_files_hold():
    """Issue 47 item 4: assets/text/README.md said 10,269 paragraphs and 863,000 tokens (87.9 %) where the shipped
    files hold 10,000 paragraphs and 867,478 tokens (88.0 % known). Every figure it gives about the shipped
    files is the one factory.corpus.figures reads from them now; Austen's row of the comparison too."""
    from engine import text

    readme = (text.FOLDER / "README.md").read_text(encoding="utf-8")
    found = corpus.figures()
    for name, said in found.items():
        assert said in readme, (name, said)
    row = next(line for line in readme.splitlines() if line.startswith("| **Jane Austen"))
    assert row.endswith(found["compared"]), row
    assert "not shipped" in readme and "--figures" in readme  # where the other rows came from
