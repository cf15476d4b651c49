"""Make assets/text/ from Debian's r-cran-janeaustenr package: Jane Austen's six novels, cleaned,
one paragraph a line (austen.txt.gz), and the vocabulary counted on the training chapters (vocab.txt).

    python -m factory.corpus --build              # apt-get download the package, extract, write assets/text/
    python -m factory.corpus --build --deb FILE   # from a .deb already downloaded
    python -m factory.corpus --figures            # what the shipped files hold, as assets/text/README.md says it

The package keeps each novel as an R character vector (one line of the Project Gutenberg text per
element) in R's lazy-load database (data/Rdata.rdx: the index; data/Rdata.rdb: zlib-compressed
serialized objects). read_lazyload below reads it with the standard library: no R needed. Nothing
here runs when the app or training imports the engine.
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

PACKAGE = "r-cran-janeaustenr"
DATA = "usr/lib/R/site-library/janeaustenr/data/Rdata"
BOOKS = (  # publication order; the file keeps it
    ("sensesensibility", "Sense and Sensibility"),
    ("prideprejudice", "Pride and Prejudice"),
    ("mansfieldpark", "Mansfield Park"),
    ("emma", "Emma"),
    ("northangerabbey", "Northanger Abbey"),
    ("persuasion", "Persuasion"),
)
CHAPTER = re.compile(r"(?:CHAPTER|Chapter) +(?:[IVXLC]+|\d+)\.?")  # a chapter's heading paragraph
DROPPED = re.compile(r"VOLUME [IV]+|THE END|FINIS|\[.*\]")  # headings and editors' notes


class RReader:
    """Reads R's serialization format (XDR, version 2 or 3): the types a data package's character
    vectors and its index use. A vector with a names attribute comes back as a dict."""

    NIL, REF, SYMBOL, PAIRS, CHARS, STRINGS, LIST = 254, 255, 1, 2, 9, 16, 19
    NUMBERS = {10: "i", 13: "i", 14: "d"}  # logical, integer, double: 4, 4 and 8 bytes each

    def __init__(self, data: bytes):
        if data[:2] != b"X\n":
            raise ValueError("not R's XDR serialization")
        self.data, self.at, self.refs = data, 2, []
        version = self.int()
        self.int(), self.int()  # the R versions that wrote it and can read it
        if version == 3:
            self.at += 4 + self.int()  # the native encoding's name

    def int(self) -> int:
        (value,) = struct.unpack_from(">i", self.data, self.at)
        self.at += 4
        return value

    def item(self):
        flags = self.int()
        kind, has_attributes, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
        if kind == self.NIL:
            return None
        if kind == self.REF:
            return self.refs[(flags >> 8 or self.int()) - 1]
        if kind == self.SYMBOL:
            self.refs.append(self.item())
            return self.refs[-1]
        if kind == self.CHARS:
            size = self.int()
            text = None if size == -1 else self.data[self.at : self.at + size].decode("utf-8")
            self.at += max(size, 0)
            return text
        if kind == self.PAIRS:  # a pairlist: [(tag, value), ...]
            if has_attributes:
                self.item()
            tag = self.item() if has_tag else None
            head = (tag, self.item())
            return [head] + (self.item() or [])
        size = self.int()
        if kind in (self.STRINGS, self.LIST):
            value = [self.item() for _ in range(size)]
        elif kind in self.NUMBERS:
            code = self.NUMBERS[kind]
            value = list(struct.unpack_from(f">{size}{code}", self.data, self.at))
            self.at += size * struct.calcsize(code)
        else:
            raise ValueError(f"R type {kind} is not read here")
        attributes = dict(self.item()) if has_attributes else {}
        return dict(zip(attributes["names"], value)) if "names" in attributes else value


def read_lazyload(stem: Path) -> dict[str, list]:
    """Every object of an R lazy-load database (stem.rdx, stem.rdb) by name."""
    index = RReader(gzip.decompress(Path(f"{stem}.rdx").read_bytes())).item()
    blob = Path(f"{stem}.rdb").read_bytes()
    objects = {}
    for name, (offset, length) in index["variables"].items():
        packed = blob[offset : offset + length]  # 4 bytes: the unpacked length, then zlib
        objects[name] = RReader(zlib.decompress(packed[4:])).item()
    return objects


def paragraphs(lines: list[str | None]) -> list[str]:
    """The novel's lines joined into paragraphs (blank lines separate them), white space collapsed,
    the underscores that mark italics removed."""
    found, current = [], []
    for line in lines + [""]:
        line = (line or "").strip()
        if line:
            current.append(line)
        elif current:
            found.append(re.sub(r"\s+", " ", " ".join(current)).replace("_", ""))
            current = []
    return found


def clean(title: str, lines: list[str | None]) -> list[str]:
    """One novel as the file's lines: "= Title, chapter n" before each chapter, then its paragraphs.
    Everything before chapter 1 (title page, the author's note) and headings or notes are left out."""
    out, chapter = [], 0
    for text in paragraphs(lines):
        if CHAPTER.fullmatch(text):
            chapter += 1
            out.append(f"= {title}, chapter {chapter}")
        elif chapter and not DROPPED.fullmatch(text):
            out.append(text)
    return out


def download(folder: Path) -> Path:
    """apt-get download the package into folder; its .deb file."""
    subprocess.run(["apt-get", "download", PACKAGE], cwd=folder, check=True)
    return next(folder.glob(f"{PACKAGE}_*.deb"))


def build(deb: Path | None = None, target: Path | None = None) -> list[Path]:
    """Write austen.txt.gz and vocab.txt into target (default assets/text/); returns their paths."""
    from engine import text

    target = text.FOLDER if target is None else Path(target)
    with tempfile.TemporaryDirectory() as tmp:
        deb = download(Path(tmp)) if deb is None else Path(deb)
        subprocess.run(["dpkg-deb", "-x", str(deb), f"{tmp}/x"], check=True)
        novels = read_lazyload(Path(tmp, "x", DATA))
    lines = [line for name, title in BOOKS for line in clean(title, novels[name])]
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(raw)  # no name, no time: the same bytes on every build
    target.mkdir(parents=True, exist_ok=True)
    corpus_path, vocab_path = target / text.CORPUS_NAME, target / text.VOCAB_NAME
    corpus_path.write_bytes(buffer.getvalue())
    vocab = text.count_vocabulary(text.read_chapters(corpus_path))
    vocab_path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    print(
        f"{deb.name}: {len(lines):,} lines, {len(raw) / 1e6:.2f} MB -> {corpus_path} "
        f"({corpus_path.stat().st_size / 1e6:.2f} MB); {len(vocab)} tokens -> {vocab_path}"
    )
    return [corpus_path, vocab_path]


def figures(folder: Path | None = None) -> dict[str, str]:
    """What the shipped files hold, each figure worded as assets/text/README.md prints it (a test reads the
    README against these): chapters (and how many are held out), paragraphs, the text's size, tokens with
    and without the paragraph mark, and the share of them the vocabulary knows."""
    from engine import text

    folder = text.FOLDER if folder is None else Path(folder)
    packed = (folder / text.CORPUS_NAME).read_bytes()
    chapters = text.read_chapters(folder / text.CORPUS_NAME)
    paragraphs = sum(len(paras) for _, paras in chapters)
    held = sum(text.is_held_out(k) for k in range(len(chapters)))
    vocab = (folder / text.VOCAB_NAME).read_text(encoding="utf-8").split("\n")[:-1]
    known = {token: i for i, token in enumerate(vocab)}
    tokens = [
        known.get(token, 0)
        for _, paras in chapters
        for paragraph in paras
        for token in text.words(paragraph) + [text.PARAGRAPH]
    ]
    marks = paragraphs  # one ¶ ends each paragraph
    known_all = sum(1 for i in tokens if i != 0)  # ¶ is in the vocabulary
    return {
        "chapters": f"{len(chapters)} chapters ({held} of them held out: every tenth)",
        "paragraphs": f"{paragraphs:,} paragraphs",
        "size": f"{len(gzip.decompress(packed)) / 1e6:.1f} MB of UTF-8 text ({len(packed) / 1e6:.1f} MB gzipped)",
        "tokens": f"{len(tokens):,} tokens ({len(tokens) - marks:,} without the paragraph mark ¶)",
        "known": f"{known_all / len(tokens):.1%} of them known to the vocabulary "
        f"({(known_all - marks) / (len(tokens) - marks):.1%} without ¶)".replace("%", " %"),
        "vocabulary": f"{len(vocab):,} tokens",
        "compared": f"| {len(tokens) - marks:,} | {(known_all - marks) / (len(tokens) - marks):.1%} |".replace(
            "%", " %"
        ),
    }


def build_or_count(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="make assets/text/ from the Debian package")
    parser.add_argument("--deb", type=Path, help="use this .deb instead of downloading it")
    parser.add_argument("--to", type=Path, help="write here instead of assets/text/")
    parser.add_argument(
        "--figures", action="store_true", help="print what the shipped files hold (the README's figures)"
    )
    args = parser.parse_args(argv)
    if args.figures:
        for name, said in figures(args.to).items():
            print(f"{name}: {said}")
        return 0
    if not args.build:
        parser.print_help()
        return 2
    build(args.deb, args.to)
    return 0


if __name__ == "__main__":
    sys.exit(build_or_count(sys.argv[1:]))
