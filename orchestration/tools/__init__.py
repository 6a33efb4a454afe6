"""Allowlisted tools of the Data Query Agent: registry, selection and (later) implementations."""
