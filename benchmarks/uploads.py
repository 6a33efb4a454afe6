"""``assess bench upload``: uploaded configurations assessed end to end (checked, parsed, judged, written into a new
published version of the warehouse) beside the floor measured in the same run — parse and rules alone on the same
texts, nothing written. The configurations are the fleet's latest ones, each copy under a hostname of its own, so
the batch is as large as asked for without any file from outside the repository."""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from assessment_engine.checks.judgement import judge
from assessment_engine.warehouse.user_configs import assess_files, check_config_text, command_line_workers
from foundation.config import get_settings, using_data_dir
from orchestration.services import build_services

HOSTNAME = re.compile(r"^(hostname|switchname)\s+(\S+)", re.MULTILINE)


def fleet_configs(warehouse: Path, count: int) -> list[tuple[str, bytes]]:
    """``count`` configurations: the latest fleet run's, repeated with a distinct hostname per copy."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        texts = [row[0] for row in con.execute(
            "SELECT config_text FROM configs WHERE assessment_id = (SELECT assessment_id FROM assessments "
            "WHERE collection = 'fleet' ORDER BY started_at DESC LIMIT 1) ORDER BY asset_id").fetchall()]
    finally:
        con.close()
    out = []
    for i in range(count):
        text = HOSTNAME.sub(rf"\g<1> \g<2>-C{i // len(texts)}", texts[i % len(texts)], count=1)
        out.append((f"copy-{i:05d}.cfg", text.encode()))
    return out


def run(count: int = 600, repeat: int = 3) -> dict[str, float]:
    """Print and return configs/s end to end — the ``assess assess-configs`` command as a user runs it (a process of
    its own: Python's start, its imports, reading the folder, worker processes, one per core) and the chat server's
    upload (in process, one process) — and for parse + rules alone (medians of ``repeat``)."""
    services = build_services()
    source, rules = services.settings.warehouse_path, services.catalog.rules.rules
    if not source.exists():
        raise SystemExit(f"no warehouse at {source}; run 'assess demo build' first")
    files = fleet_configs(source, count)
    timings: dict[str, list[float]] = {"command line": [], "chat": [], "floor": []}
    for _ in range(repeat):
        started = time.perf_counter()
        for name, data in files:  # the floor: what every upload must do at least, nothing written, one core
            text, _, verdict = check_config_text(name, data)
            if text is not None:
                judge(name, text, rules, None, verdict)
        timings["floor"].append(time.perf_counter() - started)
        timings["command line"].append(_command(source, files))
        with tempfile.TemporaryDirectory() as tmp, using_data_dir(Path(tmp)):
            settings = get_settings()
            shutil.copy(source, settings.warehouse_path)
            started = time.perf_counter()
            report = assess_files(files, services.catalog, settings, owner="bench")
            timings["chat"].append(time.perf_counter() - started)
        assert report.assessed == count, (report.assessed, [f.message for f in report.files if not f.ok][:3])
    timings["start"] = [_command(source, [])]
    medians = {k: statistics.median(v) for k, v in timings.items()}
    print(f"{count} configurations, median of {repeat} (spread in brackets)")
    for label, key in ((f"assess assess-configs, its own start included ({command_line_workers()} workers)",
                        "command line"),
                       ("end to end, chat upload (1 process)", "chat"), ("floor: check, parse, judge (1 process)", "floor")):
        print(f"  {label:<60} {count / medians[key]:5.0f} configs/s [{count / max(timings[key]):.0f}–"
              f"{count / min(timings[key]):.0f}]  {medians[key]:.2f} s")
    print(f"  chat upload / floor: {medians['chat'] / medians['floor']:.2f}×")
    print(f"  the command's start alone (an empty folder): {timings['start'][0]:.2f} s")
    return {"configs": count, "command_line_per_s": count / medians["command line"],
            "chat_per_s": count / medians["chat"], "floor_per_s": count / medians["floor"]}


def _command(source: Path, files: list[tuple[str, bytes]]) -> float:
    """Seconds ``assess assess-configs`` takes over ``files`` in a folder, on a copy of ``source``, from its start to
    its exit (an empty folder: the command's start alone; it exits 1, nothing assessed)."""
    with tempfile.TemporaryDirectory() as tmp:
        data, folder = Path(tmp) / "data", Path(tmp) / "configs"
        data.mkdir()
        folder.mkdir()
        shutil.copy(source, data / source.name)
        for name, text in files:
            (folder / name).write_bytes(text)
        env = {**os.environ, "ASSESS_DATA_DIR": str(data), "ASSESS_WAREHOUSE_FILE": str(data / source.name)}
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "command_line.assess", "assess-configs", str(folder)], env=env,
                              capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
    if files and (done.returncode != 0 or f"{len(files)} of {len(files)} files assessed" not in done.stdout):
        raise SystemExit(f"assess assess-configs failed: {done.stdout[-500:]} {done.stderr[-500:]}")
    return elapsed
