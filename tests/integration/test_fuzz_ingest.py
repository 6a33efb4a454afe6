"""A fuzz corpus of malformed and hostile documents (≥ 300 files, generated here): ingestion reports every file,
raises nothing, and stays within its time and memory budgets — bombs are refused before they are parsed."""

from __future__ import annotations

import io
import random
import resource
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from knowledge_base.ingest import expand, ingest_paths
from orchestration.services import Services
from tests.documents import write_docx, write_html, write_pdf

Maker = Callable[[Path, random.Random], None]


def _bytes(n: int) -> Maker:
    return lambda p, r: p.write_bytes(r.randbytes(n))


def _truncated(base: Callable[[Path], Path]) -> Maker:
    def make(p: Path, r: random.Random) -> None:
        base(p)
        data = p.read_bytes()
        p.write_bytes(data[: r.randrange(1, max(2, len(data) - 1))])
    return make


def _flipped(base: Callable[[Path], Path]) -> Maker:
    def make(p: Path, r: random.Random) -> None:
        base(p)
        data = bytearray(p.read_bytes())
        for _ in range(r.randrange(1, 40)):
            data[r.randrange(len(data))] = r.randrange(256)
        p.write_bytes(bytes(data))
    return make


def _zip(entries: dict[str, bytes]) -> Maker:
    def make(p: Path, r: random.Random) -> None:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries.items():
                z.writestr(name, data)
        p.write_bytes(buf.getvalue())
    return make


def _docx(p: Path) -> Path:
    return write_docx(p, "Policy", ["All devices use SSH.", "Telnet is forbidden."])


def _pdf(p: Path) -> Path:
    return write_pdf(p, ["NTP must be authenticated.", "Use two servers."])


def _html(p: Path) -> Path:
    return write_html(p, "Standard", ["Logging goes to two collectors.", "Use TLS."])


LAUGHS = "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" \
         "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n---\n# T\n\nbody text here\n"
PARAGRAPH_BOMB = b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' \
                 b"<w:body>" + b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 400_000 + b"</w:body></w:document>"

MAKERS: dict[str, tuple[str, Maker]] = {
    "random-md": (".md", _bytes(3000)),
    "random-txt": (".txt", _bytes(500)),
    "random-pdf": (".pdf", _bytes(4000)),
    "random-docx": (".docx", _bytes(4000)),
    "random-html": (".html", _bytes(4000)),
    "truncated-pdf": (".pdf", _truncated(_pdf)),
    "truncated-docx": (".docx", _truncated(_docx)),
    "flipped-pdf": (".pdf", _flipped(_pdf)),
    "flipped-docx": (".docx", _flipped(_docx)),
    "flipped-html": (".html", _flipped(_html)),
    "yaml-laughs": (".md", lambda p, r: p.write_text(LAUGHS)),
    "front-matter-huge": (".md", lambda p, r: p.write_text("---\n" + "k: v\n" * 20_000 + "---\n# T\n\ntext body\n")),
    "nul-md": (".md", lambda p, r: p.write_bytes(b"# T\n\x00\x00" + r.randbytes(200))),
    "whitespace": (".txt", lambda p, r: p.write_text(" \n\t\n" * r.randrange(1, 50))),
    "long-line": (".md", lambda p, r: p.write_text("# T\n\n" + "word " * 200_000)),
    "over-5mb": (".txt", lambda p, r: p.write_bytes(b"policy line\n" * 500_000)),
    "chunk-flood": (".md", lambda p, r: p.write_text("".join(f"# H{i}\n\nsection {i} text about {r.random()}\n\n"
                                                             for i in range(3000)))),
    "nested-html": (".html", lambda p, r: p.write_text("<div>" * 50_000 + "x" + "</div>" * 50_000)),
    "element-flood-html": (".html", lambda p, r: p.write_text("<p>a</p>" * 300_000)),
    "empty-zip": (".docx", _zip({})),
    "docx-no-body": (".docx", _zip({"[Content_Types].xml": b"<Types/>"})),
    "docx-bad-xml": (".docx", _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document><w:body"})),
    "docx-paragraph-bomb": (".docx", _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": PARAGRAPH_BOMB})),
    "pdf-header-only": (".pdf", lambda p, r: p.write_bytes(b"%PDF-1.7\n%%EOF\n")),
    "utf16-no-bom": (".txt", lambda p, r: p.write_bytes("Policy text here".encode("utf-16-le"))),
    "unicode-garbage": (".md", lambda p, r: p.write_text("".join(chr(r.randrange(0x20, 0x2FFF)) for _ in range(800)))),
}


def _corpus(folder: Path, per_kind: int = 12) -> list[Path]:
    rnd = random.Random(20261123)
    files = []
    for kind, (suffix, make) in MAKERS.items():
        for i in range(per_kind):
            path = folder / f"{kind}-{i:02d}{suffix}"
            make(path, rnd)
            files.append(path)
    return files


def test_a_fuzz_corpus_is_reported_file_by_file_within_budgets(writable_warehouse: Path, tmp_path: Path, services: Services) -> None:
    folder = tmp_path / "fuzz"
    folder.mkdir()
    files = _corpus(folder)
    assert len(files) >= 300
    timings: dict[str, float] = {}
    last = [time.perf_counter()]

    def progress(name: str, i: int, n: int) -> None:
        now = time.perf_counter()
        timings[name] = now - last[0]
        last[0] = now

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    report = ingest_paths(services.knowledge(), [folder], progress=progress)  # raises nothing, whatever is inside
    total = time.perf_counter() - started
    rss_growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    assert len(report.files) == len(files)  # every file reported
    assert all(f.message and "Traceback" not in f.message for f in report.files)
    by_name = {f.name: f for f in report.files}
    for kind in ("docx-paragraph-bomb", "over-5mb", "element-flood-html", "chunk-flood", "random-pdf", "empty-zip"):
        assert all(by_name[f"{kind}-{i:02d}{MAKERS[kind][0]}"].status == "error" for i in range(12)), kind
    assert "paragraphs is over" in by_name["docx-paragraph-bomb-00.docx"].message
    assert total < 240, f"fuzz corpus took {total:.0f} s"
    assert max(timings.values()) < 15, max(timings.items(), key=lambda kv: kv[1])
    assert rss_growth_mb < 1500, rss_growth_mb


def test_folder_ingest_does_not_follow_links_out_of_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "real.md").write_text("# Real\n\nA real standard.\n")
    (folder / "passwd.md").symlink_to("/etc/passwd")
    (folder / "linked-dir").symlink_to(Path("/etc"))
    assert [p.name for p in expand([folder])] == ["real.md"]
