"""Builders of real test documents in every supported format (a minimal but valid PDF included)."""

from __future__ import annotations

from pathlib import Path


def write_pdf(path: Path, lines: list[str]) -> Path:
    """A one-page PDF with the lines as text (hand-built: objects, content stream and xref table)."""
    text = "BT /F1 11 Tf 50 780 Td 14 TL " + " ".join(
        f"({line.replace('(', '[').replace(')', ']')}) '" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        f"<< /Length {len(text)} >>\nstream\n{text}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{obj}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def write_docx(path: Path, title: str, paragraphs: list[str]) -> Path:
    import docx

    document = docx.Document()
    document.add_heading(title, level=1)
    for p in paragraphs:
        document.add_paragraph(p)
    document.save(str(path))
    return path


def write_html(path: Path, title: str, paragraphs: list[str]) -> Path:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    path.write_text(f"<html><head><title>{title}</title><script>alert(1)</script></head>"
                    f"<body><h1>{title}</h1>{body}</body></html>")
    return path
