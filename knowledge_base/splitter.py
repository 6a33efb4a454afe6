"""Structure-aware splitting: markdown headings stay with their text (LangChain's
``MarkdownHeaderTextSplitter``), long sections are cut by ``RecursiveCharacterTextSplitter``, and every
chunk records its heading path so that a piece of a long section still says where it comes from."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document
from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

from foundation.vocabulary.text import visible
from knowledge_base.loaders import TITLE_CHARS

CHUNK_SIZE = 900
CHUNK_OVERLAP = 120
_HEADERS = [("#", "h1"), ("##", "h2"), ("###", "h3")]


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    content: str
    embed_text: str  # content with its document title and heading path, for the embedding and BM25
    content_hash: str
    metadata: dict[str, Any]


def content_hash(text: str) -> str:
    return hashlib.sha256(re.sub(r"\s+", " ", text.strip().lower()).encode()).hexdigest()


def split_documents(docs: list[Document]) -> list[Chunk]:
    md = MarkdownHeaderTextSplitter(headers_to_split_on=_HEADERS, strip_headers=False)
    rec = RecursiveCharacterTextSplitter(chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP)
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for doc in docs:
        sections = md.split_text(doc.page_content) if re.search(r"^#{1,3} ", doc.page_content, re.M) else [
            Document(page_content=doc.page_content)]
        for section in sections:
            # each heading cut like a title: the path is repeated in every chunk's keywords and embedding text
            path = " › ".join(visible(section.metadata[h], TITLE_CHARS) for _, h in _HEADERS if h in section.metadata)
            for piece in rec.split_text(section.page_content):
                text = piece.strip()
                if len(text) < 20:
                    continue
                digest = content_hash(text)
                if digest in seen:
                    continue
                seen.add(digest)
                meta = {**doc.metadata, "section": path}
                title = meta.get("title", "")
                chunk_id = hashlib.sha256(f"{meta.get('source')}|{digest}".encode()).hexdigest()[:16]
                chunks.append(Chunk(chunk_id, text, f"{title}. {path}. {text}", digest, {**meta, "chunk_id": chunk_id}))
    return chunks
