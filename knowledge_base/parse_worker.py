"""The parser process of ``parsing.ParserWorker``: reads one JSON line per file (``{"path": …}``) on stdin and
answers one JSON line on stdout — the loader's documents, or the ``IngestError`` message. Its limits (memory, CPU)
are set by the parent before it starts; a parser that runs out of memory is answered as such."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from knowledge_base.loaders import IngestError, parse


def _answer(path: Path) -> dict[str, object]:
    try:
        docs = parse(path)
    except IngestError as exc:
        return {"error": str(exc)}
    return {"documents": [{"content": d.page_content, "metadata": d.metadata} for d in docs]}


def main() -> None:
    for line in sys.stdin:
        reply = _answer(Path(json.loads(line)["path"]))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
