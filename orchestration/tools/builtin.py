"""The built-in tool implementations, by contract name; ``orchestration.services`` registers them."""

from __future__ import annotations

from orchestration.tools.analysis_tool import analyse
from orchestration.tools.comparison_tool import compare
from orchestration.tools.inventory_tool import inventory_tool
from orchestration.tools.issue_tracking_tool import track
from orchestration.tools.registry import ToolImpl
from orchestration.tools.slic_tool import slic_results_tool
from orchestration.tools.sql_path_tool import sql_path_tool

BUILTIN_TOOLS: dict[str, ToolImpl] = {
    "assessment_analysis_tool": analyse,
    "assessment_comparison_tool": compare,
    "issue_tracking_tool": track,
    "slic_results_tool": slic_results_tool,
    "inventory_tool": inventory_tool,
    "sql_path": sql_path_tool,
}
