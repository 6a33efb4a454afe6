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


_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_DOCX_PARTS = {
    "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.'
    'openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.'
    'openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
    'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
    'document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/'
    'vnd.openxmlformats-package.core-properties+xml"/></Types>',
    "_rels/.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.'
    'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
    'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http:'
    '//schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'
    '</Relationships>',
    "word/_rels/document.xml.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns='
    '"http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
    'openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
}


def write_hostile_docx(path: Path, title: str = "Notes", styles: int = 1, paragraphs: int = 10, words: int = 0) -> Path:
    """A small, valid Word file built by hand: a core-properties ``title`` of any length, a style table of ``styles``
    styles, and ``paragraphs`` paragraphs each using the last style (python-docx scans the table per paragraph), each
    ``words`` words longer than the default sentence."""
    import zipfile

    table = "".join(f'<w:style w:type="paragraph" w:styleId="S{i}"><w:name w:val="Style {i}"/></w:style>'
                    for i in range(styles))
    body = "".join(f'<w:p><w:pPr><w:pStyle w:val="S{styles - 1}"/></w:pPr><w:r><w:t>Paragraph {i}: SNMP traps go to the '
                   f'collector and NTP is authenticated.{" word" * words}</w:t></w:r></w:p>' for i in range(paragraphs))
    parts = {**_DOCX_PARTS,
             "word/styles.xml": f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles {_W}>{table}</w:styles>',
             "word/document.xml": f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {_W}><w:body>'
                                  f'{body}</w:body></w:document>',
             "docProps/core.xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp='
                                  '"http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc='
                                  f'"http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title></cp:coreProperties>'}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return path
