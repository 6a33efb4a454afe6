"""Registers the three built-in warehouse tools through the same registry an extension would use."""

from __future__ import annotations

from orchestration.tools.analysis_tool import assessment_analysis_tool
from orchestration.tools.comparison_tool import assessment_comparison_tool
from orchestration.tools.issue_tracking_tool import issue_tracking_tool
from orchestration.tools.registry import register

register("assessment_analysis_tool", assessment_analysis_tool)
register("assessment_comparison_tool", assessment_comparison_tool)
register("issue_tracking_tool", issue_tracking_tool)
