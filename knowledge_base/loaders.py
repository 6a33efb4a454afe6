"""Document loaders for the knowledge base: md, txt, pdf, docx, html, each into LangChain ``Document``s.

Markdown front matter (``---`` YAML block) becomes metadata (title, topic, domain, effective_date …).
Every problem — unsupported type, oversized, empty, unreadable or corrupt file, or a file over one of the
budgets below — raises ``IngestError`` with a message that names the file, so a batch can report it and go on.

Budgets, checked before the expensive parse so a small hostile file costs milliseconds: front matter without
YAML anchors/aliases and at most 8 KB; text (md/txt) and HTML at most 5 MB; a Word file's XML at most 30 MB
uncompressed and 50,000 paragraphs, all its parts at most 60 MB and 2,000 parts; a PDF at most 500 pages; HTML at most
200,000 elements. What a parser then does is bounded by running it in a worker (``parsing.py``). Titles and other
metadata are cut to ``TITLE_CHARS`` / ``META_CHARS``: every chunk of the document carries them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import yaml
from langchain_core.documents import Document

from foundation.secrets import mask_prompt
from foundation.vocabulary.text import visible

MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_TEXT_BYTES = 5 * 1024 * 1024
MAX_FRONT_MATTER = 8 * 1024
MAX_DOCX_XML_BYTES = 30 * 1024 * 1024
MAX_DOCX_PARAGRAPHS = 50_000
MAX_DOCX_PARTS = 2_000
MAX_DOCX_UNPACKED_BYTES = 60 * 1024 * 1024
MAX_PDF_PAGES = 500
MAX_HTML_ELEMENTS = 200_000
def first_line_title(text: str) -> str | None:
    """A document without a heading (a text file, a PDF) is titled by its first line when that reads like a title
    (short, not a sentence), not by its file name ("Notes Change Window")."""
    line = next((ln.strip(" #*\t") for ln in text.splitlines() if ln.strip()), "")
    if 3 <= len(line) <= 90 and not line.endswith((".", ",", ";", ":")) and len(line.split()) <= 12:
        return line
    return None


TITLE_CHARS = 200  # a title, heading or metadata value longer than this is cut: each chunk carries them
META_CHARS = 300
SUPPORTED = (".md", ".markdown", ".txt", ".pdf", ".docx", ".html", ".htm")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)


class IngestError(ValueError):
    """A file cannot be ingested; the message is for the user and names the file."""


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors and aliases: a few bytes of nested aliases expand to gigabytes ("billion laughs")."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        upcoming = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(upcoming, yaml.AliasEvent) or getattr(upcoming, "anchor", None):
            raise yaml.YAMLError("anchors and aliases are not allowed in front matter")
        return super().compose_node(parent, index)


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    m = _FRONT_MATTER.match(text[: MAX_FRONT_MATTER + 16])
    if not m:
        return {}, text
    try:
        meta = yaml.load(m.group(1), Loader=_NoAliasLoader) or {}  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError:
        return {}, text
    if not isinstance(meta, dict):
        return {}, text
    return {k: str(v) for k, v in meta.items()}, text[m.end():]


def _decode(path: Path, data: bytes) -> str:
    for encoding in ("utf-8", "utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ("utf-8", "latin-1"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise IngestError(f"{path.name}: cannot be decoded as text")


def _text(path: Path) -> list[Document]:
    data = path.read_bytes()
    if len(data) > MAX_TEXT_BYTES:
        raise IngestError(f"{path.name}: {len(data) / 1024 / 1024:.1f} MB of text is over the "
                          f"{MAX_TEXT_BYTES // 1024 // 1024} MB limit for one document; split it")
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise IngestError(f"{path.name}: binary content in a text file")
    meta, body = _front_matter(_decode(path, data))
    return [Document(page_content=body, metadata=meta)]


def _pdf(path: Path) -> list[Document]:
    from langchain_community.document_loaders import PyPDFLoader
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        pages_in_file = len(PdfReader(str(path)).pages)
        if pages_in_file > MAX_PDF_PAGES:
            raise IngestError(f"{path.name}: {pages_in_file} pages is over the {MAX_PDF_PAGES}-page limit; split it")
        pages = PyPDFLoader(str(path), mode="page").load()
    except (PdfReadError, ValueError, KeyError, OSError, TypeError) as exc:
        raise IngestError(f"{path.name}: not a readable PDF ({type(exc).__name__}: {str(exc)[:120]})") from None
    return [Document(page_content=p.page_content, metadata={"page": str(int(p.metadata.get("page", i)) + 1)})
            for i, p in enumerate(pages)]


def _docx(path: Path) -> list[Document]:
    import zipfile

    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.oxml.ns import qn

    try:  # measure the XML before python-docx parses it: a small file can hold millions of paragraphs or styles
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
            unpacked = sum(p.file_size for p in parts)
            if len(parts) > MAX_DOCX_PARTS or unpacked > MAX_DOCX_UNPACKED_BYTES:
                raise IngestError(f"{path.name}: {len(parts):,} parts and {unpacked / 1024 / 1024:.0f} MB unpacked is "
                                  f"over the limit for a Word document ({MAX_DOCX_PARTS:,} parts, "
                                  f"{MAX_DOCX_UNPACKED_BYTES // 1024 // 1024} MB)")
            info = archive.getinfo("word/document.xml")
            if info.file_size > MAX_DOCX_XML_BYTES:
                raise IngestError(f"{path.name}: {info.file_size / 1024 / 1024:.0f} MB of document XML is over the "
                                  f"{MAX_DOCX_XML_BYTES // 1024 // 1024} MB limit")
            xml = archive.read(info)
            paragraphs = xml.count(b"<w:p>") + xml.count(b"<w:p ")
            if paragraphs > MAX_DOCX_PARAGRAPHS:
                raise IngestError(f"{path.name}: {paragraphs:,} paragraphs is over the {MAX_DOCX_PARAGRAPHS:,} limit")
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise IngestError(f"{path.name}: not a readable Word document ({type(exc).__name__})") from None
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, ValueError, KeyError, OSError) as exc:
        raise IngestError(f"{path.name}: not a readable Word document ({type(exc).__name__})") from None
    # style names read once: python-docx looks a paragraph's style up by scanning the whole style table, which made a
    # document with a huge table quadratic (minutes of CPU for 60 KB)
    names = {el.get(qn("w:styleId")): (el.find(qn("w:name")).get(qn("w:val")) if el.find(qn("w:name")) is not None
                                       else "") for el in document.styles.element.iterchildren(qn("w:style"))}
    lines = []
    for para in document.paragraphs:
        style_ref = para._p.pPr.pStyle if para._p.pPr is not None else None  # noqa: SLF001 (python-docx's own XML)
        level = re.search(r"heading (\d)", (names.get(style_ref.val, "") if style_ref is not None else "").lower())
        text = para.text.strip()
        if text:
            lines.append(f"{'#' * int(level.group(1))} {text}" if level else text)
    title = document.core_properties.title or ""
    return [Document(page_content="\n\n".join(lines), metadata={"title": title[:TITLE_CHARS]} if title else {})]


def _html(path: Path) -> list[Document]:
    from bs4 import BeautifulSoup

    data = path.read_bytes()
    if len(data) > MAX_TEXT_BYTES:
        raise IngestError(f"{path.name}: {len(data) / 1024 / 1024:.1f} MB of HTML is over the "
                          f"{MAX_TEXT_BYTES // 1024 // 1024} MB limit for one page")
    if data.count(b"<") > MAX_HTML_ELEMENTS:
        raise IngestError(f"{path.name}: over {MAX_HTML_ELEMENTS:,} HTML elements; save the page as text or split it")
    soup = BeautifulSoup(data, "html.parser")
    for tag in soup(["script", "style", "nav", "footer"]):
        tag.decompose()
    lines = []
    for el in soup.find_all(["h1", "h2", "h3", "h4", "p", "li", "pre", "td"]):
        text = el.get_text(" ", strip=True)
        if text:
            lines.append(f"{'#' * int(el.name[1])} {text}" if el.name in ("h1", "h2", "h3", "h4") else text)
    title = soup.title.get_text(strip=True) if soup.title else ""
    return [Document(page_content="\n\n".join(lines), metadata={"title": title} if title else {})]


LOADERS: dict[str, Callable[[Path], list[Document]]] = {
    ".md": _text, ".markdown": _text, ".txt": _text, ".pdf": _pdf, ".docx": _docx, ".html": _html, ".htm": _html,
}


class Parser(Protocol):
    """Reads a file into documents somewhere bounded (``parsing.ParserWorker``)."""

    def parse(self, path: Path, name: str) -> list[Document]: ...


def parse(path: Path) -> list[Document]:
    """``path`` read by its loader; any failure of the parser is an ``IngestError`` naming the file."""
    try:
        return LOADERS[path.suffix.lower()](path)
    except IngestError:
        raise
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot be read ({exc.strerror})") from None
    except RecursionError:
        raise IngestError(f"{path.name}: nested too deeply to be read") from None
    except MemoryError:
        raise IngestError(f"{path.name}: reading it needed more memory than a document may use") from None
    except Exception as exc:  # a parser's own error on a corrupt file (lxml, zip, pdf, html): one line, no trace
        raise IngestError(f"{path.name}: the file is corrupt or not what its name says ({type(exc).__name__}: "
                          f"{str(exc)[:120]})") from None


def named_as(message: str, path: Path, name: str) -> str:
    """A parser's message about ``path`` (an upload stored under an internal id) in the words of the user's file
    ``name``: wherever the path or the stored name appears in it (a parser's own error quotes it too)."""
    return message.replace(str(path), name).replace(path.name, name)


def load_file(path: Path, display_name: str | None = None, parser: Parser | None = None) -> list[Document]:
    """Load one file into documents with base metadata; raise ``IngestError`` for any problem. PDF, Word and HTML
    go through ``parser`` when one is given (a worker with time and memory limits), else are read here."""
    name = display_name or path.name
    suffix = path.suffix.lower()
    if suffix not in LOADERS:
        raise IngestError(f"{name}: unsupported file type '{suffix or 'none'}' (supported: {', '.join(SUPPORTED)})")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise IngestError(f"{name}: cannot be read ({exc.strerror})") from None
    if size == 0:
        raise IngestError(f"{name}: the file is empty")
    if size > MAX_FILE_BYTES:
        raise IngestError(f"{name}: {size / 1024 / 1024:.1f} MB is over the {MAX_FILE_BYTES // 1024 // 1024} MB limit")
    if parser is not None and suffix in (".pdf", ".docx", ".html", ".htm"):
        docs = parser.parse(path, name)
    else:
        try:
            docs = parse(path)
        except IngestError as exc:
            raise IngestError(named_as(str(exc), path, name)) from None
    if not any(d.page_content.strip() for d in docs):
        raise IngestError(f"{name}: no text could be extracted")
    for doc in docs:
        # a configuration inside a document (pasted into a runbook, after pages of show output) is stored with its
        # secrets masked, as a question's pasted lines are; a standard's prose that names a command keeps its words
        doc.page_content = mask_prompt(doc.page_content)
    timestamp = datetime.fromtimestamp(path.stat().st_mtime, UTC).date().isoformat()
    heading = next((m.group(1).strip() for d in docs for m in [re.search(r"^# (.+)$", d.page_content, re.M)] if m), None)
    heading = heading or first_line_title(docs[0].page_content if docs else "")
    for doc in docs:
        # every value is cut and made plain: a title is repeated in every chunk's keywords and embedding text, and
        # a name with right-to-left or control characters must not display as something else
        meta = {k: visible(str(v), TITLE_CHARS if k == "title" else META_CHARS) for k, v in doc.metadata.items()}
        meta.setdefault("title", visible(heading or Path(name).stem.replace("-", " ").replace("_", " ").title(),
                                         TITLE_CHARS))
        meta.setdefault("topic", "uncategorized")
        meta.setdefault("domain", "general")
        meta["source"] = name
        meta["timestamp"] = meta.get("effective_date", timestamp)
        doc.metadata = meta
    return docs
