"""``assess bench upload``: uploaded configurations assessed end to end (checked, parsed, judged, written into a new
published version of the warehouse) beside the floor measured in the same run — parse and rules alone on the same
texts, nothing written. The configurations are the fleet's latest ones, each copy under a hostname of its own, so
the batch is as large as asked for without any file from outside the repository."""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from orchestration.config import get_settings, using_data_dir
from orchestration.engines.judgement import judge
from orchestration.warehouse.store import close_warehouses
from orchestration.warehouse.user_configs import assess_files, check_config_text

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
    """Print and return configs/s end to end and for parse + rules alone (medians of ``repeat``)."""
    source = get_settings().warehouse_path
    if not source.exists():
        raise SystemExit(f"no warehouse at {source}; run 'assess demo build' first")
    files = fleet_configs(source, count)
    ends, floors = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        for name, data in files:  # the floor: what every upload must do at least, nothing written
            text, _, verdict = check_config_text(name, data)
            if text is not None:
                judge(name, text, None, verdict)
        floors.append(time.perf_counter() - started)
        with tempfile.TemporaryDirectory() as tmp, using_data_dir(Path(tmp)):
            shutil.copy(source, get_settings().warehouse_path)
            started = time.perf_counter()
            report = assess_files(files, owner="bench")
            ends.append(time.perf_counter() - started)
            close_warehouses()
        assert report.assessed == count, (report.assessed, [f.message for f in report.files if not f.ok][:3])
    end, floor = statistics.median(ends), statistics.median(floors)
    print(f"{count} configurations, median of {repeat} (spread in brackets)")
    print(f"  end to end (check, parse, judge, SLIC, write): {count / end:6.0f} configs/s "
          f"[{count / max(ends):.0f}–{count / min(ends):.0f}]  {end:.2f} s")
    print(f"  floor, same run (check, parse, judge only):    {count / floor:6.0f} configs/s "
          f"[{count / max(floors):.0f}–{count / min(floors):.0f}]  {floor:.2f} s")
    print(f"  end to end / floor: {end / floor:.2f}×")
    return {"configs": count, "end_to_end_per_s": count / end, "floor_per_s": count / floor}
