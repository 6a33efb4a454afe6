"""Parsers that cannot stall the server: PDF, Word and HTML files are read in a worker process with a wall-clock and
a memory limit.

The size budgets in ``loaders.py`` are checks before parsing; they cannot bound what a parser does with what it is
given (a 60 KB Word file with a huge style table took 278 s of CPU, a 536 KB one 2.75 GB). Here the parser runs in a
child process (``python -m knowledge_base.parse_worker``) with ``RLIMIT_AS`` (``ASSESS_PARSE_MEMORY_MB``) and is
killed after ``ASSESS_PARSE_TIMEOUT_SECONDS``: that file is reported, the next file gets a new worker, and the server's
own process — its memory, its GIL — is never involved. One worker serves a whole ingest batch (starting one costs
about half a second), and it imports no model.
"""

from __future__ import annotations

import json
import os
import resource
import selectors
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

from langchain_core.documents import Document

from knowledge_base.loaders import IngestError, named_as


def _limits(memory_mb: int, cpu_seconds: int) -> None:  # runs in the child, before it starts Python
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 1024 * 1024, memory_mb * 1024 * 1024))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    os.nice(5)  # the chat's own work comes first


class ParserWorker:
    """A parser process for a batch of files; used as a context manager, it is stopped at the end."""

    def __init__(self, timeout: float, memory_mb: int) -> None:
        """``timeout``: seconds a file may take; ``memory_mb``: the address space the process may use."""
        self.timeout, self.memory_mb = timeout, memory_mb
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ParserWorker:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            cpu = int(self.timeout) * 3 + 10
            self._process = subprocess.Popen(
                [sys.executable, "-m", "knowledge_base.parse_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, preexec_fn=lambda: _limits(self.memory_mb, cpu),  # noqa: PLW1509
                env={**os.environ, "OMP_NUM_THREADS": "1"})
        return self._process

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.close()
                process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()

    def parse(self, path: Path, name: str) -> list[Document]:
        """The documents of ``path`` as its loader reads them, or ``IngestError`` naming ``name``."""
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps({"path": str(path)}).encode() + b"\n")
            process.stdin.flush()
        except OSError:
            self.close()
            raise IngestError(f"{name}: could not be read (the parser stopped)") from None
        line = self._read_line(process)
        if line is None:
            timed_out = process.poll() is None
            self._kill()
            if timed_out:
                raise IngestError(f"{name}: reading it took longer than {self.timeout:g} s, so it was stopped; the file "
                                  "is unusually complex for its size (save it again as plain text or PDF)")
            raise IngestError(f"{name}: reading it needed more than the {self.memory_mb} MB a document may use, so it "
                              "was stopped; the file is unusually complex for its size")
        reply = json.loads(line)
        if "error" in reply:
            raise IngestError(named_as(str(reply["error"]), path, name))
        return [Document(page_content=d["content"], metadata=d["metadata"]) for d in reply["documents"]]

    def _read_line(self, process: subprocess.Popen[bytes]) -> bytes | None:
        """The worker's answer, or None if it did not give one in time (or died)."""
        assert process.stdout is not None
        deadline = time.monotonic() + self.timeout
        chunks: list[bytes] = []
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    return None
                data = os.read(process.stdout.fileno(), 1 << 20)
                if not data:
                    return None
                chunks.append(data)
                if data.endswith(b"\n"):
                    return b"".join(chunks)

    def _kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self.close()
